// SPDX-License-Identifier: GPL-3.0-or-later
#include "cublas_library.hpp"

#include <dlfcn.h>

#include <optional>
#include <string>

#include "tilescope/error.hpp"
#include "toolkit_library.hpp"

namespace tilescope::cuda {

namespace {

struct Loaded {
  Cublas functions;
  std::optional<std::string> missing;  // why they could not be loaded
};

Loaded load() {
  Loaded loaded;
  const std::string version = std::to_string(CUBLAS_VER_MAJOR);
  const std::string package = "NVIDIA's cuBLAS (libcublas.so." + version + " and libcublasLt.so." +
                              version + ", from the CUDA Toolkit or the libcublas-" + version +
                              "-0 package)";
  void* libraries[2] = {};
  const char* names[2] = {"libcublasLt.so.", "libcublas.so."};
  for (int i = 0; i < 2; ++i) {
    std::string error;
    libraries[i] = openToolkitLibrary(names[i] + version, {}, error);
    if (!libraries[i]) {
      loaded.missing = "the library kernel and the GPU reference need " + package +
                       ", which this machine lacks: " + error;
      return loaded;
    }
  }
  // Each symbol from whichever of the two defines it.
  const auto find = [&](const char* symbol) {
    void* found = dlsym(libraries[1], symbol);
    return found ? found : dlsym(libraries[0], symbol);
  };
#define TS_CUBLAS_LOOKUP(member, symbol)                                                        \
  loaded.functions.member = reinterpret_cast<decltype(loaded.functions.member)>(find(#symbol)); \
  if (!loaded.functions.member) {                                                               \
    loaded.missing = "this machine's cuBLAS lacks " #symbol ": the build expects " + package;   \
    return loaded;                                                                              \
  }
  TS_CUBLAS_FUNCTIONS(TS_CUBLAS_LOOKUP)
  TS_CUBLAS_LOOKUP(gemmEx, cublasGemmEx)
#undef TS_CUBLAS_LOOKUP
  return loaded;
}

}  // namespace

const Cublas& cublas() {
  static const Loaded loaded = load();
  if (loaded.missing) throw Error(ErrorKind::Unavailable, *loaded.missing);
  return loaded.functions;
}

}  // namespace tilescope::cuda
