// SPDX-License-Identifier: GPL-3.0-or-later
#include "toolkit_library.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <filesystem>

namespace tilescope::cuda {

namespace {

// The folder of the shared CUDA runtime this process loaded, or "" (a static runtime).
std::string runtimeFolder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&cudaRuntimeGetVersion), &info) == 0 || !info.dli_fname)
    return {};
  const std::filesystem::path path(info.dli_fname);
  if (path.filename().string().rfind("libcudart.so", 0) != 0) return {};
  return path.parent_path().string();
}

}  // namespace

void* openToolkitLibrary(const std::string& soname, const std::vector<std::string>& folders,
                         std::string& error) {
  std::vector<std::string> candidates = {soname};
  if (const std::string folder = runtimeFolder(); !folder.empty())
    candidates.push_back(folder + "/" + soname);
  candidates.push_back("/usr/local/cuda/lib64/" + soname);
  for (const std::string& folder : folders) candidates.push_back(folder + "/" + soname);
  for (const std::string& candidate : candidates) {
    if (void* library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) return library;
    if (error.empty())
      if (const char* said = dlerror()) error = said;
  }
  return nullptr;
}

}  // namespace tilescope::cuda
