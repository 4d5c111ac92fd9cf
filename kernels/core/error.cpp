// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/error.hpp"

namespace tilescope {

const char* toString(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::InvalidArgument:
      return "invalid argument";
    case ErrorKind::Unsupported:
      return "unsupported";
    case ErrorKind::Unavailable:
      return "unavailable";
    case ErrorKind::OutOfMemory:
      return "out of memory";
    case ErrorKind::LaunchFailed:
      return "launch failed";
    case ErrorKind::DeviceLost:
      return "device lost";
    case ErrorKind::Cancelled:
      return "cancelled";
  }
  return "error";
}

}  // namespace tilescope
