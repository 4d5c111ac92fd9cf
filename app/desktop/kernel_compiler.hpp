// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Compiles the editor's kernel on a thread of its own, so the window never waits; a compile
// asked for while one runs stops it (its result says so) and follows with the newest source. The
// compile itself runs where compileUserKernel sends it: in the app, a child process with time and
// memory limits (tilescope/compile/compile_child.hpp), which a cancel ends at once.
#include <QObject>
#include <QThread>
#include <atomic>
#include <memory>
#include <optional>

#include "tilescope/user_kernel.hpp"

namespace tilescope::desktop {

class KernelCompiler : public QObject {
  Q_OBJECT

 public:
  explicit KernelCompiler(QObject* parent = nullptr);
  ~KernelCompiler() override;  // cancels a compile in progress and waits for its thread

  void compile(const UserKernelSource& kernel, const CompileOptions& options);
  // Stops the compile in progress (it reports "the compile was cancelled") and drops the one
  // waiting.
  void cancel();
  bool busy() const { return thread_ != nullptr; }

 signals:
  void started();
  // The compile of `kernel` (the source as it was sent) has finished.
  void compiled(const tilescope::UserKernelSource& kernel, const tilescope::CompileResult& result);

 private:
  void start(const UserKernelSource& kernel, const CompileOptions& options);

  QThread* thread_ = nullptr;
  std::shared_ptr<std::atomic<bool>> cancel_;  // the running compile's
  std::optional<std::pair<UserKernelSource, CompileOptions>> next_;
};

}  // namespace tilescope::desktop

Q_DECLARE_METATYPE(tilescope::UserKernelSource)
Q_DECLARE_METATYPE(tilescope::CompileResult)
