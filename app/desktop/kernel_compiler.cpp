// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel_compiler.hpp"

#include <QPointer>
#include <utility>

namespace tilescope::desktop {

KernelCompiler::KernelCompiler(QObject* parent) : QObject(parent) {
  qRegisterMetaType<tilescope::UserKernelSource>();
  qRegisterMetaType<tilescope::CompileResult>();
}

KernelCompiler::~KernelCompiler() {
  cancel();
  if (thread_) thread_->wait();
}

void KernelCompiler::compile(const UserKernelSource& kernel, const CompileOptions& options) {
  if (thread_) {
    next_ = {kernel, options};  // only the newest waiting source is worth compiling
    *cancel_ = true;            // and the running one is worth no wait
    return;
  }
  start(kernel, options);
}

void KernelCompiler::cancel() {
  next_.reset();
  if (cancel_) *cancel_ = true;
}

void KernelCompiler::start(const UserKernelSource& kernel, const CompileOptions& options) {
  emit started();
  QPointer<KernelCompiler> self(this);
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  thread_ = QThread::create([self, kernel, options, cancel = cancel_] {
    const CompileResult result = compileUserKernel(kernel, options, cancel.get());
    // Back on the window's thread; nothing is delivered to a compiler that is gone.
    QMetaObject::invokeMethod(
        self.data(),
        [self, kernel, result] {
          if (self) emit self->compiled(kernel, result);
        },
        Qt::QueuedConnection);
  });
  thread_->setParent(this);  // never outlives the compiler, which waits for it
  connect(thread_, &QThread::finished, this, [this] {
    thread_->deleteLater();
    thread_ = nullptr;
    cancel_.reset();
    if (next_) {
      const auto [kernel, options] = *std::exchange(next_, std::nullopt);
      start(kernel, options);
    }
  });
  thread_->start();
}

}  // namespace tilescope::desktop
