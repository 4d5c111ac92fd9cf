// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Compiles the editor's kernel with NVRTC on a thread of its own, so the window never waits; a
// compile asked for while one runs follows it with the newest source.
#include <QObject>
#include <QThread>
#include <optional>

#include "tilescope/user_kernel.hpp"

namespace tilescope::desktop {

class KernelCompiler : public QObject {
  Q_OBJECT

 public:
  explicit KernelCompiler(QObject* parent = nullptr);
  ~KernelCompiler() override;  // waits for a compile in progress

  void compile(const UserKernelSource& kernel, const CompileOptions& options);
  bool busy() const { return thread_ != nullptr; }

 signals:
  void started();
  // The compile of `kernel` (the source as it was sent) has finished.
  void compiled(const tilescope::UserKernelSource& kernel, const tilescope::CompileResult& result);

 private:
  void start(const UserKernelSource& kernel, const CompileOptions& options);

  QThread* thread_ = nullptr;
  std::optional<std::pair<UserKernelSource, CompileOptions>> next_;
};

}  // namespace tilescope::desktop

Q_DECLARE_METATYPE(tilescope::UserKernelSource)
Q_DECLARE_METATYPE(tilescope::CompileResult)
