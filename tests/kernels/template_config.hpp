// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the tests of the Kernel Editor's templates (on the GPU and on the CPU) share.
#include "tilescope/catalogue.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::test {

// The catalogue configuration a template's compiled parameter values stand for: a seed
// template's TILE is the catalogue's tile; a ladder template's parameters carry the catalogue's
// own names. A parameter the catalogue kernel lacks (PAD, at its catalogue value by default) is
// the template's own experiment.
inline KernelConfig catalogueConfig(const UserKernelTemplate& t, const Params& values) {
  if (const auto tile = values.find("TILE"); tile != values.end())
    return resolve({t.kernel, {{"tile", tile->second}}});
  KernelConfig config{t.kernel, {}};
  for (const auto& [name, value] : values)
    if (kernelInfo(t.kernel).param(name)) config.params[name] = value;
  return resolve(config);
}

}  // namespace tilescope::test
