#include "tilescope/problem.hpp"

#include <limits>
#include <new>
#include <random>

#include "tilescope/error.hpp"

namespace tilescope {

void validateShape(const Shape& shape) {
  const std::pair<const char*, std::int64_t> dims[] = {
      {"M", shape.m}, {"N", shape.n}, {"K", shape.k}};
  for (const auto& [name, value] : dims) {
    if (value < 1 || value > kMaxDimension) {
      throw Error(ErrorKind::InvalidArgument,
                  std::string(name) + " = " + std::to_string(value) +
                      " is out of range: each of M, N, K must be in 1.." +
                      std::to_string(kMaxDimension));
    }
  }
}

namespace {

Matrix allocate(std::int64_t rows, std::int64_t cols) {
  Matrix m{rows, cols, {}};
  try {
    m.data.resize(std::size_t(rows * cols));
  } catch (const std::bad_alloc&) {
    throw Error(ErrorKind::OutOfMemory, "cannot allocate a " + std::to_string(rows) + " x " +
                                            std::to_string(cols) + " matrix (" +
                                            std::to_string(rows * cols * 4 / (1 << 20)) +
                                            " MiB) in host memory");
  }
  return m;
}

}  // namespace

Matrix makeMatrix(std::int64_t rows, std::int64_t cols, Fill fill, std::uint64_t seed) {
  Matrix m = allocate(rows, cols);
  std::mt19937_64 engine(seed);
  if (fill == Fill::Integer) {
    std::uniform_int_distribution<int> dist(-8, 8);
    for (float& x : m.data) x = float(dist(engine));
  } else {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& x : m.data) x = dist(engine);
  }
  return m;
}

Matrix makePoisonedMatrix(std::int64_t rows, std::int64_t cols) {
  Matrix m = allocate(rows, cols);
  poison(m);
  return m;
}

void poison(Matrix& m) {
  std::fill(m.data.begin(), m.data.end(), std::numeric_limits<float>::quiet_NaN());
}

Operands makeOperands(const Shape& shape, Fill fill, std::uint64_t seed) {
  validateShape(shape);
  // Distinct streams so A and B are never equal when M == N == K.
  return {makeMatrix(shape.m, shape.k, fill, seed),
          makeMatrix(shape.k, shape.n, fill, seed ^ 0x9e3779b97f4a7c15ULL)};
}

}  // namespace tilescope
