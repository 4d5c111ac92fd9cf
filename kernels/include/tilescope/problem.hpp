#pragma once
// The problem: C (M x N) = A (M x K) * B (K x N), float32, row-major, seeded fill.
#include <cstdint>
#include <string>
#include <vector>

namespace tilescope {

struct Shape {
  std::int64_t m = 1, n = 1, k = 1;

  std::int64_t elementsA() const { return m * k; }
  std::int64_t elementsB() const { return k * n; }
  std::int64_t elementsC() const { return m * n; }
  // Bytes of A, B and C together in float32 (64-bit arithmetic: 46341^2 overflows 32 bits).
  std::int64_t bytes() const { return 4 * (elementsA() + elementsB() + elementsC()); }
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  bool operator==(const Shape&) const = default;
};

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
// A and B for a shape, from one seed (A and B use distinct streams).
Operands makeOperands(const Shape& shape, Fill fill, std::uint64_t seed);

}  // namespace tilescope
