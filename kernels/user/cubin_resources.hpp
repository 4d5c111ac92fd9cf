// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal: a compiled kernel's resources read from its cubin (an ELF file), the way the CUDA
// driver reads them. ptxas -v prints them too, but its log can come back empty (in a process that
// has initialised CUDA): the image always holds them.
#include <optional>
#include <string_view>

#include "tilescope/backend.hpp"

namespace tilescope {

// The registers, stack frame and static shared memory of `function` in `image`; nullopt where the
// image is no 64-bit little-endian ELF, lacks the function or its register count, or is damaged.
// Every offset is checked against the image's size.
std::optional<KernelResources> cubinResources(std::string_view image, std::string_view function);

}  // namespace tilescope
