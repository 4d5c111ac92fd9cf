// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one error type the core throws. Front ends (CLI, app) turn it into a message; nothing in
// the core prints or exits.
#include <stdexcept>
#include <string>

namespace tilescope {

enum class ErrorKind {
  InvalidArgument,  // bad size, unknown kernel, refused parameter
  Unsupported,      // the backend cannot run this kernel or configuration
  Unavailable,      // the backend (or its device) is not usable at all
  OutOfMemory,      // host or device memory would not hold the problem; recoverable
  LaunchFailed,     // an invalid launch (too many threads, too much shared memory); recoverable
  DeviceLost,       // a sticky device fault: the backend is unusable until the process restarts
  Cancelled,        // the user asked to stop
};

const char* toString(ErrorKind kind);

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }
  // Recoverable errors leave the backend usable for the next run.
  bool recoverable() const {
    return kind_ != ErrorKind::DeviceLost && kind_ != ErrorKind::Unavailable;
  }

 private:
  ErrorKind kind_;
};

}  // namespace tilescope
