// SPDX-License-Identifier: GPL-3.0-or-later
// Compiling a user kernel with NVRTC, loaded at run time, and reading the compiler's messages
// back onto the user's lines.
#include "tilescope/user_kernel.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "tilescope/occupancy.hpp"
#include "user/compiler_logs.hpp"
#include "user/cubin_resources.hpp"
#include "user/file_reads.hpp"
#include "user/source_text.hpp"

#ifdef TILESCOPE_HAVE_NVRTC_HEADER
#include <nvrtc.h>
#endif

namespace tilescope {
namespace {

#ifdef TILESCOPE_HAVE_NVRTC_HEADER

// The NVRTC functions used, from libnvrtc.so.13.
struct Nvrtc {
  decltype(&nvrtcCreateProgram) createProgram = nullptr;
  decltype(&nvrtcDestroyProgram) destroyProgram = nullptr;
  decltype(&nvrtcCompileProgram) compileProgram = nullptr;
  decltype(&nvrtcGetProgramLogSize) getProgramLogSize = nullptr;
  decltype(&nvrtcGetProgramLog) getProgramLog = nullptr;
  decltype(&nvrtcGetCUBINSize) getCubinSize = nullptr;
  decltype(&nvrtcGetCUBIN) getCubin = nullptr;
  decltype(&nvrtcGetErrorString) getErrorString = nullptr;
  std::optional<std::string> missing;
};

Nvrtc loadNvrtc() {
  Nvrtc api;
  void* library = nullptr;
  for (const char* name : {"libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.13"})
    if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  if (!library) {
    api.missing =
        "compiling a kernel needs NVIDIA's NVRTC (libnvrtc.so.13, from the CUDA Toolkit or the "
        "cuda-nvrtc-13-0 package), which this machine lacks";
    return api;
  }
  const auto find = [&](auto& function, const char* name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(library, name));
    if (!function && !api.missing) api.missing = std::string("this machine's NVRTC lacks ") + name;
  };
  find(api.createProgram, "nvrtcCreateProgram");
  find(api.destroyProgram, "nvrtcDestroyProgram");
  find(api.compileProgram, "nvrtcCompileProgram");
  find(api.getProgramLogSize, "nvrtcGetProgramLogSize");
  find(api.getProgramLog, "nvrtcGetProgramLog");
  find(api.getCubinSize, "nvrtcGetCUBINSize");
  find(api.getCubin, "nvrtcGetCUBIN");
  find(api.getErrorString, "nvrtcGetErrorString");
  return api;
}

const Nvrtc& nvrtc() {
  static const Nvrtc loaded = loadNvrtc();
  return loaded;
}

// Whether the cubin holds entry point `name`: its symbol, NUL-terminated in the string table.
bool defines(const std::string& image, const std::string& name) {
  return image.find(std::string(1, '\0') + name + '\0') != std::string::npos ||
         image.find(".text." + name + '\0') != std::string::npos;
}

#endif  // TILESCOPE_HAVE_NVRTC_HEADER

}  // namespace

std::string userKernelArchitecture(int capability) {
  return "sm_" + std::to_string(capability) + (capability == 90 ? "a" : "");
}

std::optional<std::string> userKernelCompilerUnavailable() {
#ifdef TILESCOPE_HAVE_NVRTC_HEADER
  return nvrtc().missing;
#else
  return "this build of TileScope was made without the CUDA Toolkit, so it cannot compile "
         "kernels (NVRTC)";
#endif
}

CompileResult prepareCompile(const UserKernelSource& kernel, const CompileOptions& options) {
  CompileResult result;
  result.arch = options.arch;
  // A line too long is all a compile says: nothing past it (the compiler least of all) reads it.
  result.diagnostics = overlongLines(kernel.source);
  if (!result.diagnostics.empty()) return result;
  result.diagnostics = fileReads(kernel.source);
  // The name becomes the file name of a #line before the source: a quote or a newline in it
  // would write a directive there.
  if (const auto why = kernel.name.empty() ? std::nullopt : userKernelNameProblem(kernel.name))
    result.diagnostics.push_back({0, 0, true, *why});
  result.params = declaredParams(kernel.source, &result.diagnostics);
  const std::vector<ElementType> types = declaredTypes(kernel.source, &result.diagnostics);
  if (std::find(types.begin(), types.end(), options.element) == types.end()) {
    std::string listed;
    for (const ElementType type : types)
      listed += (listed.empty() ? "" : ", ") + std::string(toString(type));
    result.diagnostics.push_back({0, 0, true,
                                  std::string("the kernel multiplies ") + listed + ", not " +
                                      toString(options.element) +
                                      " (TS_TYPES lists the types it takes)"});
  }
  for (const auto& given : options.params) {
    const std::string& name = given.first;
    const int value = given.second;
    const auto spec = std::find_if(result.params.begin(), result.params.end(),
                                   [&](const ParamSpec& p) { return p.name == name; });
    if (spec == result.params.end())
      result.diagnostics.push_back({0, 0, true, "the source declares no parameter " + name});
    else if (!std::binary_search(spec->allowed.begin(), spec->allowed.end(), value))
      result.diagnostics.push_back(
          {0, 0, true, name + " = " + std::to_string(value) + " " + spec->refusal});
  }
  for (const ParamSpec& spec : result.params) {
    const auto given = options.params.find(spec.name);
    result.values[spec.name] = given == options.params.end() ? spec.defaultValue : given->second;
  }
  return result;
}

namespace {

std::mutex isolatedMutex;
IsolatedCompiler& isolated() {
  static IsolatedCompiler compiler;
  return compiler;
}

}  // namespace

void setIsolatedCompiler(IsolatedCompiler compiler) {
  const std::lock_guard lock(isolatedMutex);
  isolated() = std::move(compiler);
}

IsolatedCompiler isolatedCompiler() {
  const std::lock_guard lock(isolatedMutex);
  return isolated();
}

CompileResult compileUserKernel(const UserKernelSource& kernel, const CompileOptions& options,
                                const std::atomic<bool>* cancel) {
  if (const IsolatedCompiler compiler = isolatedCompiler())
    return compiler(kernel, options, CompileTarget{}, cancel);
  return compileUserKernelHere(kernel, options);
}

CompileResult compileUserKernelHere(const UserKernelSource& kernel, const CompileOptions& options) {
  CompileResult result = prepareCompile(kernel, options);
  if (!result.diagnostics.empty()) return result;
  if (const std::optional<std::string> why = userKernelCompilerUnavailable()) {
    result.diagnostics.push_back({0, 0, true, *why});
    return result;
  }
#ifdef TILESCOPE_HAVE_NVRTC_HEADER
  const Nvrtc& api = nvrtc();
  const std::string file = (kernel.name.empty() ? std::string("kernel") : kernel.name) + ".cu";
  // The API names its own files (tilescope_api.cuh, ts/...): a message there is TileScope's.
  const std::string text = userApiHeader() + "#line 1 \"" + file + "\"\n" + kernel.source;
  nvrtcProgram program = nullptr;
  if (nvrtcResult created =
          api.createProgram(&program, text.c_str(), file.c_str(), 0, nullptr, nullptr);
      created != NVRTC_SUCCESS) {
    result.diagnostics.push_back({0, 0, true, api.getErrorString(created)});
    return result;
  }
  std::vector<std::string> arguments = {"--gpu-architecture=" + options.arch, "-Xptxas", "-v",
                                        "-lineinfo", "--std=c++17"};
  for (const auto& [name, value] : result.values)
    arguments.push_back("-D" + name + "=" + std::to_string(value));
  if (options.trace) arguments.push_back("-DTS_TRACE");
  // ts::Element: float unless the type says otherwise (tf32 operands are floats too).
  if (options.element == ElementType::TF32) arguments.push_back("-DTS_TF32");
  if (options.element == ElementType::F16) arguments.push_back("-DTS_FP16");
  if (options.element == ElementType::BF16) arguments.push_back("-DTS_BF16");
  if (options.element == ElementType::E4M3) arguments.push_back("-DTS_E4M3");
  if (options.element == ElementType::E5M2) arguments.push_back("-DTS_E5M2");
  std::vector<const char*> argv;
  for (const std::string& argument : arguments) argv.push_back(argument.c_str());
  const nvrtcResult compiled = api.compileProgram(program, int(argv.size()), argv.data());
  std::size_t logSize = 0;
  api.getProgramLogSize(program, &logSize);
  result.log.assign(logSize, '\0');
  if (logSize > 0) api.getProgramLog(program, result.log.data());
  if (!result.log.empty() && result.log.back() == '\0') result.log.pop_back();
  for (CompileDiagnostic& d : nvrtcDiagnostics(result.log, file))
    result.diagnostics.push_back(std::move(d));
  if (compiled == NVRTC_SUCCESS) {
    std::size_t size = 0;
    if (api.getCubinSize(program, &size) == NVRTC_SUCCESS && size > 0) {
      result.image.assign(size, '\0');
      api.getCubin(program, result.image.data());
    }
    // The image says what ptxas -v says, whose log came back without it on an H200 (in a process
    // that had initialised CUDA) and on an H100 (CUDA 13.0): entry points and resources come from
    // the image.
    result.resources = cubinResources(result.image, "ts_kernel");
    if (const auto block = declaredBlock(kernel.source, result.values); block && result.resources) {
      result.resources->threadsPerBlock = block->x * block->y;
      if (auto resident = withTheoreticalOccupancy(options.arch, *result.resources))
        result.resources = resident;
    }
    result.declaresKStep = defines(result.image, "ts_kstep");
    result.declaresTensorMaps = defines(result.image, "ts_tensor_maps");
    result.declaresCluster = defines(result.image, "ts_cluster");
    result.declaresPersistent = defines(result.image, "ts_persistent");
    if (!defines(result.image, "ts_kernel"))
      result.diagnostics.push_back(
          {0, 0, true, "the source has no kernel: write TS_KERNEL { ... }"});
    if (!defines(result.image, "ts_launch"))
      result.diagnostics.push_back(
          {0, 0, true,
           "the source has no launch: write TS_LAUNCH(blockX, blockY, gridX, gridY, sharedBytes)"});
  } else if (std::none_of(result.diagnostics.begin(), result.diagnostics.end(),
                          [](const CompileDiagnostic& d) { return d.error; })) {
    result.diagnostics.push_back({0, 0, true, api.getErrorString(compiled)});
  }
  api.destroyProgram(&program);
  result.ok = compiled == NVRTC_SUCCESS &&
              std::none_of(result.diagnostics.begin(), result.diagnostics.end(),
                           [](const CompileDiagnostic& d) { return d.error; });
  if (!result.ok) result.image.clear();
#endif
  return result;
}

}  // namespace tilescope
