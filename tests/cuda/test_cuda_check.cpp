// SPDX-License-Identifier: GPL-3.0-or-later
// The checking helper's mapping from CUDA and cuBLAS status codes to typed errors. Pure
// functions of the status code: these run on machines without a GPU too.
#include <gtest/gtest.h>

#include <string>

#include "cuda_check.hpp"

namespace tilescope::cuda {
namespace {

// The error check() throws for `status`, which must be a failure.
Error thrownBy(auto status, const std::string& what) {
  try {
    check(status, what);
  } catch (const Error& error) {
    return error;
  }
  ADD_FAILURE() << what << ": check() did not throw";
  return Error(ErrorKind::InvalidArgument, "nothing thrown");
}

TEST(CudaCheck, SuccessDoesNotThrow) {
  EXPECT_NO_THROW(check(cudaSuccess, "a call"));
  EXPECT_NO_THROW(check(CUBLAS_STATUS_SUCCESS, "a cuBLAS call"));
}

TEST(CudaCheck, ClassifiesRecoverableAndStickyErrors) {
  EXPECT_EQ(classify(cudaErrorMemoryAllocation), ErrorKind::OutOfMemory);
  EXPECT_EQ(classify(cudaErrorInvalidConfiguration), ErrorKind::LaunchFailed);
  EXPECT_EQ(classify(cudaErrorInvalidValue), ErrorKind::LaunchFailed);
  EXPECT_EQ(classify(cudaErrorLaunchOutOfResources), ErrorKind::LaunchFailed);
  EXPECT_EQ(classify(cudaErrorInsufficientDriver), ErrorKind::Unavailable);
  EXPECT_EQ(classify(cudaErrorNoDevice), ErrorKind::Unavailable);
  EXPECT_EQ(classify(cudaErrorIllegalAddress), ErrorKind::DeviceLost);
  EXPECT_EQ(classify(cudaErrorLaunchFailure), ErrorKind::DeviceLost);
  EXPECT_EQ(classify(cudaErrorMisalignedAddress), ErrorKind::DeviceLost);
}

TEST(CudaCheck, MessagesNameTheCallTheCauseAndTheRemedy) {
  const Error oom = thrownBy(cudaErrorMemoryAllocation, "allocating C");
  EXPECT_EQ(oom.kind(), ErrorKind::OutOfMemory);
  EXPECT_TRUE(oom.recoverable());
  EXPECT_NE(std::string(oom.what()).find("allocating C"), std::string::npos) << oom.what();
  EXPECT_NE(std::string(oom.what()).find("cudaErrorMemoryAllocation"), std::string::npos)
      << oom.what();

  const Error lost = thrownBy(cudaErrorIllegalAddress, "waiting for the kernel");
  EXPECT_EQ(lost.kind(), ErrorKind::DeviceLost);
  EXPECT_FALSE(lost.recoverable());
  EXPECT_NE(std::string(lost.what()).find("restart TileScope"), std::string::npos) << lost.what();

  const Error noDriver = thrownBy(cudaErrorInsufficientDriver, "cudaGetDeviceCount");
  EXPECT_EQ(noDriver.kind(), ErrorKind::Unavailable);
  EXPECT_NE(std::string(noDriver.what()).find("cudaErrorInsufficientDriver"), std::string::npos)
      << noDriver.what();
}

TEST(CudaCheck, SaysWhichDriverItFoundAndWhichItNeeds) {
  EXPECT_EQ(insufficientDriverMessage(12040, "550.54.15", 13000, 580),
            "the NVIDIA driver is 550.54.15, which supports CUDA 12.4 only; this TileScope was "
            "built with CUDA 13.0, which needs the NVIDIA driver 580 or newer: update the driver, "
            "or use a TileScope built with an older CUDA");
  // No /proc/driver/nvidia/version (a container that sees only the library): the CUDA version.
  EXPECT_EQ(insufficientDriverMessage(12080, "", 13010, 580),
            "the NVIDIA driver supports CUDA 12.8 only; this TileScope was built with CUDA 13.1, "
            "which needs the NVIDIA driver 580 or newer: update the driver, or use a TileScope "
            "built with an older CUDA");
  EXPECT_EQ(insufficientDriverMessage(0, "", 13000, 580),
            "no NVIDIA driver was found (libcuda.so.1 could not be loaded): this TileScope was "
            "built with CUDA 13.0, which needs the NVIDIA driver 580 or newer (the cpu backend "
            "needs no driver)");
  EXPECT_NE(insufficientDriverMessage(11080, "", 14000, 0)
                .find("which needs an NVIDIA driver that supports CUDA 14.0"),
            std::string::npos);
}

TEST(CudaCheck, ReadsTheDriverReleaseFromProc) {
  EXPECT_EQ(driverReleaseIn("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  "
                            "5 22:23:56 UTC 2024\nGCC version:  gcc version 12.2.0 (Debian)\n"),
            "550.54.15");
  EXPECT_EQ(driverReleaseIn("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                            "580.65.06  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Jul 22"),
            "580.65.06");
  EXPECT_EQ(driverReleaseIn("NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.104"), "535.104");
  EXPECT_EQ(driverReleaseIn(""), "");
  EXPECT_EQ(driverReleaseIn("NVRM version: unknown\nGCC version:  gcc version 12.2.0\n"), "");
}

TEST(CudaCheck, MapsCublasStatuses) {
  EXPECT_EQ(thrownBy(CUBLAS_STATUS_ALLOC_FAILED, "sgemm").kind(), ErrorKind::OutOfMemory);
  EXPECT_EQ(thrownBy(CUBLAS_STATUS_INVALID_VALUE, "sgemm").kind(), ErrorKind::LaunchFailed);
  EXPECT_EQ(thrownBy(CUBLAS_STATUS_NOT_SUPPORTED, "sgemm").kind(), ErrorKind::Unsupported);
  EXPECT_EQ(thrownBy(CUBLAS_STATUS_NOT_INITIALIZED, "create").kind(), ErrorKind::Unavailable);
}

TEST(CudaCheck, LaunchErrorsNameTheKernelAndTheShape) {
  try {
    checkLaunch(cudaErrorInvalidConfiguration, "naive", {1, 70000}, {1, 1});
    FAIL() << "checkLaunch did not throw";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::LaunchFailed);
    const std::string message = error.what();
    EXPECT_NE(message.find("naive"), std::string::npos) << message;
    EXPECT_NE(message.find("1 x 70000 blocks"), std::string::npos) << message;
  }
  EXPECT_NO_THROW(checkLaunch(cudaSuccess, "naive", {1, 1}, {1, 1}));
}

}  // namespace
}  // namespace tilescope::cuda
