#include "user_module.hpp"

#include <string>

#include "cuda_check.hpp"
#include "device_memory.hpp"

namespace tilescope::cuda {
namespace {

// The driver functions used, from the driver the runtime has loaded (nothing links libcuda).
struct Driver {
  decltype(&cuModuleLoadData) loadData = nullptr;
  decltype(&cuModuleUnload) unload = nullptr;
  decltype(&cuModuleGetFunction) getFunction = nullptr;
  decltype(&cuLaunchKernel) launchKernel = nullptr;
  decltype(&cuGetErrorString) errorString = nullptr;
};

const Driver& driver() {
  static const Driver loaded = [] {
    return Driver{driverEntryPoint<decltype(&cuModuleLoadData)>("cuModuleLoadData"),
                  driverEntryPoint<decltype(&cuModuleUnload)>("cuModuleUnload"),
                  driverEntryPoint<decltype(&cuModuleGetFunction)>("cuModuleGetFunction"),
                  driverEntryPoint<decltype(&cuLaunchKernel)>("cuLaunchKernel"),
                  driverEntryPoint<decltype(&cuGetErrorString)>("cuGetErrorString")};
  }();
  return loaded;
}

void checkDriver(CUresult result, const std::string& what) {
  if (result == CUDA_SUCCESS) return;
  const char* text = nullptr;
  driver().errorString(result, &text);
  // The runtime's classification applies: the driver's codes are the runtime's.
  check(cudaError_t(int(result)), what + " (" + (text ? text : "unknown driver error") + ")");
}

// The device side's ts::Problem, field for field.
struct Problem {
  int m, n, k;
  const float* a;
  const float* b;
  float* c;
};

}  // namespace

UserModule::UserModule(const CompileResult& compiled) {
  if (!compiled.ok || compiled.image.empty())
    throw Error(ErrorKind::InvalidArgument, "the kernel did not compile: it cannot be loaded");
  checkDriver(driver().loadData(&module_, compiled.image.data()), "loading the compiled kernel");
  try {
    checkDriver(driver().getFunction(&kernel_, module_, "ts_kernel"), "finding TS_KERNEL");
    checkDriver(driver().getFunction(&launchShape_, module_, "ts_launch"), "finding TS_LAUNCH");
  } catch (...) {
    driver().unload(module_);
    throw;
  }
}

UserModule::~UserModule() {
  if (module_) driver().unload(module_);
}

UserLaunch UserModule::launchFor(const Shape& shape) const {
  DeviceBuffer<int> values(5);
  int m = int(shape.m), n = int(shape.n), k = int(shape.k);
  int* out = values.get();
  void* parameters[] = {&m, &n, &k, &out};
  checkDriver(
      driver().launchKernel(launchShape_, 1, 1, 1, 1, 1, 1, 0, nullptr, parameters, nullptr),
      "evaluating TS_LAUNCH");
  int host[5] = {};
  check(cudaMemcpy(host, values.get(), sizeof host, cudaMemcpyDeviceToHost), "reading TS_LAUNCH");
  const UserLaunch launch{{host[0], host[1]}, {host[2], host[3]}, host[4]};
  const auto refuse = [](const char* what, int value) {
    throw Error(ErrorKind::InvalidArgument, std::string("TS_LAUNCH gives ") + what + " " +
                                                std::to_string(value) + ": it must be at least 1");
  };
  if (launch.block.x < 1) refuse("blockX", launch.block.x);
  if (launch.block.y < 1) refuse("blockY", launch.block.y);
  if (launch.grid.x < 1) refuse("gridX", launch.grid.x);
  if (launch.grid.y < 1) refuse("gridY", launch.grid.y);
  if (launch.sharedBytes < 0)
    throw Error(ErrorKind::InvalidArgument, "TS_LAUNCH gives a negative shared-memory size");
  return launch;
}

void UserModule::launch(const ProductArgs& args, const UserLaunch& launch) const {
  Problem problem{int(args.m),       int(args.n),       int(args.k),
                  args.aAs<float>(), args.bAs<float>(), args.c};
  void* parameters[] = {&problem};
  checkDriver(driver().launchKernel(kernel_, unsigned(launch.grid.x), unsigned(launch.grid.y), 1,
                                    unsigned(launch.block.x), unsigned(launch.block.y), 1,
                                    unsigned(launch.sharedBytes), nullptr, parameters, nullptr),
              "launching the user kernel");
}

}  // namespace tilescope::cuda
