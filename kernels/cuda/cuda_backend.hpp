// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one entry point of the CUDA backend, called by tilescope::makeCudaBackend() in a build
// with CUDA. Kept apart from backend.hpp so the public headers never mention CUDA.
#include <memory>

#include "tilescope/backend.hpp"

namespace tilescope {

// Always returns a backend; without a driver or a GPU it reports why in unavailableReason().
std::unique_ptr<Backend> makeCudaBackendImpl();

}  // namespace tilescope
