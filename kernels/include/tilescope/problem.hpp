// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The problem: C (M x N) = A (M x K) * B (K x N), row-major, seeded fill. A and B hold values of
// one element type; C is always float32 (every kernel accumulates in FP32).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilescope {

struct Shape {
  std::int64_t m = 1, n = 1, k = 1;

  std::int64_t elementsA() const { return m * k; }
  std::int64_t elementsB() const { return k * n; }
  std::int64_t elementsC() const { return m * n; }
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  bool operator==(const Shape&) const = default;
};

// What A and B hold, and so which units may multiply them: FP32 on the SIMT cores, or one of the
// tensor-core input types. TF32 values are stored in 32 bits (the tensor cores read their top 19);
// FP16 and BF16 in 16; the two FP8 types (OCP's E4M3 and E5M2) in 8.
enum class ElementType { F32, TF32, F16, BF16, E4M3, E5M2 };

inline constexpr ElementType kElementTypes[] = {ElementType::F32,  ElementType::TF32,
                                                ElementType::F16,  ElementType::BF16,
                                                ElementType::E4M3, ElementType::E5M2};

// "fp32", "tf32", "fp16", "bf16", "e4m3", "e5m2"
const char* toString(ElementType type);
std::optional<ElementType> parseElementType(const std::string& text);
// Every type's name, for messages: "fp32, tf32, fp16, bf16, e4m3 or e5m2".
std::string elementTypeNames();
// Bytes one element of A or B takes in memory: 4, 4, 2, 2, 1, 1.
int storageBytes(ElementType type);
// Explicit mantissa bits: 23, 10, 10, 7, 3, 2.
int mantissaBits(ElementType type);
bool isFp8(ElementType type);
// The nearest value of the type (ties to even). FP16 and FP8 also have their narrower exponent
// ranges: tiny values become subnormal, and values past the largest finite one become infinite
// (FP16) or that largest value (FP8, which the GPU converts with saturation: 448 for E4M3, 57344
// for E5M2).
float roundToElement(float value, ElementType type);
// FP8 operands are stored K-major on the GPU: B as its transpose, N rows of K values, which is
// how Hopper's FP8 tensor cores and cuBLASLt's FP8 matmul read it. The other types keep B K x N.
bool storesBKMajor(ElementType type);
// Bytes of A and B in `type` and C in float32 (64-bit arithmetic: 46341^2 overflows 32 bits).
std::int64_t problemBytes(const Shape& shape, ElementType type);

// Largest accepted dimension; beyond it a float32 matrix could not be indexed with 32-bit rows.
inline constexpr std::int64_t kMaxDimension = std::int64_t(1) << 20;

// Throws Error(InvalidArgument) naming the first dimension that is not in [1, kMaxDimension].
void validateShape(const Shape& shape);

enum class Fill {
  Random,   // uniform in [-1, 1): the realistic case
  Integer,  // integers in [-8, 8]: every partial sum is exact in float32 for K < 262144
};

struct Matrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<float> data;  // row-major

  float& at(std::int64_t r, std::int64_t c) { return data[std::size_t(r * cols + c)]; }
  float at(std::int64_t r, std::int64_t c) const { return data[std::size_t(r * cols + c)]; }
};

// Allocates and fills; throws Error(OutOfMemory) instead of std::bad_alloc.
Matrix makeMatrix(std::int64_t rows, std::int64_t cols, Fill fill, std::uint64_t seed);
// An output matrix filled with quiet NaN, so an element a kernel never writes cannot pass.
Matrix makePoisonedMatrix(std::int64_t rows, std::int64_t cols);
void poison(Matrix& m);

struct Operands {
  Matrix a, b;
};
// A and B for a shape, from one seed (A and B use distinct streams), every value rounded to
// `type`: the operands are exactly what the device multiplies, so the double reference on them
// leaves only the accumulation error.
Operands makeOperands(const Shape& shape, Fill fill, std::uint64_t seed,
                      ElementType type = ElementType::F32);

}  // namespace tilescope
