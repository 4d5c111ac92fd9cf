// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Libraries of the CUDA Toolkit opened at run time (dlopen), not linked: a process that never
// uses them does not map them (cuBLAS and cuBLASLt are 570 MiB, and loading cuBLASLt loads the
// driver too), and a machine without them still runs everything else.
#include <string>
#include <vector>

namespace tilescope::cuda {

// The library `soname` ("libcublas.so.13"): from the loader's path, else from the folder of the
// CUDA runtime this process loaded (the toolkit's lib folder), else from /usr/local/cuda/lib64,
// else from each of `folders`.
// Returns its handle, or nullptr with `error` set to the loader's last message.
void* openToolkitLibrary(const std::string& soname, const std::vector<std::string>& folders,
                         std::string& error);

}  // namespace tilescope::cuda
