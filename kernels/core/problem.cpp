// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/problem.hpp"

#include <bit>
#include <cmath>
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

const char* toString(ElementType type) {
  switch (type) {
    case ElementType::F32:
      return "fp32";
    case ElementType::TF32:
      return "tf32";
    case ElementType::F16:
      return "fp16";
    case ElementType::BF16:
      return "bf16";
    case ElementType::E4M3:
      return "e4m3";
    case ElementType::E5M2:
      return "e5m2";
  }
  return "fp32";
}

std::optional<ElementType> parseElementType(const std::string& text) {
  for (const ElementType type : kElementTypes)
    if (text == toString(type)) return type;
  return std::nullopt;
}

std::string elementTypeNames() {
  std::string names;
  for (std::size_t i = 0; i < std::size(kElementTypes); ++i)
    names += (i == 0                              ? ""
              : i + 1 == std::size(kElementTypes) ? " or "
                                                  : ", ") +
             std::string(toString(kElementTypes[i]));
  return names;
}

int storageBytes(ElementType type) {
  switch (type) {
    case ElementType::F32:
    case ElementType::TF32:
      return 4;
    case ElementType::F16:
    case ElementType::BF16:
      return 2;
    case ElementType::E4M3:
    case ElementType::E5M2:
      return 1;
  }
  return 4;
}

bool isFp8(ElementType type) {
  return type == ElementType::E4M3 || type == ElementType::E5M2;
}

bool storesBKMajor(ElementType type) {
  return isFp8(type);
}

int mantissaBits(ElementType type) {
  switch (type) {
    case ElementType::F32:
      return 23;
    case ElementType::TF32:
    case ElementType::F16:
      return 10;
    case ElementType::BF16:
      return 7;
    case ElementType::E4M3:
      return 3;
    case ElementType::E5M2:
      return 2;
  }
  return 23;
}

namespace {

// Rounds a finite float to `bits` explicit mantissa bits, ties to even, keeping float32's
// exponent range: adding half an ulp of the narrower type (less one, plus the kept lowest bit)
// carries into the kept bits exactly when rounding goes up.
float roundMantissa(float value, int bits) {
  const int dropped = 23 - bits;
  if (dropped == 0 || !std::isfinite(value)) return value;
  auto word = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t keptLowest = (word >> dropped) & 1u;
  word += (1u << (dropped - 1)) - 1u + keptLowest;
  word &= ~((1u << dropped) - 1u);
  return std::bit_cast<float>(word);
}

}  // namespace

namespace {

// A narrow type's exponent range: its smallest normal value, the step of its subnormals and its
// largest finite value; and what lies past that: infinity, or the largest value (saturation).
struct ExponentRange {
  float smallestNormal, subnormalStep, largest;
  bool saturates;
};

std::optional<ExponentRange> exponentRange(ElementType type) {
  switch (type) {
    case ElementType::F16:
      return ExponentRange{0x1p-14f, 0x1p-24f, 65504.0f, false};
    case ElementType::E4M3:
      return ExponentRange{0x1p-6f, 0x1p-9f, 448.0f, true};
    case ElementType::E5M2:
      return ExponentRange{0x1p-14f, 0x1p-16f, 57344.0f, true};
    case ElementType::F32:
    case ElementType::TF32:
    case ElementType::BF16:
      break;
  }
  return std::nullopt;  // float32's own exponent range
}

}  // namespace

float roundToElement(float value, ElementType type) {
  const std::optional<ExponentRange> range = exponentRange(type);
  if (!range || std::isnan(value)) return roundMantissa(value, mantissaBits(type));
  float rounded;
  if (std::abs(value) < range->smallestNormal)  // subnormal: a multiple of the step
    rounded = std::nearbyint(value / range->subnormalStep) * range->subnormalStep;
  else
    rounded = roundMantissa(value, mantissaBits(type));
  if (std::abs(rounded) > range->largest)
    return std::copysign(range->saturates ? range->largest : std::numeric_limits<float>::infinity(),
                         value);
  return rounded;
}

std::int64_t problemBytes(const Shape& shape, ElementType type) {
  return storageBytes(type) * (shape.elementsA() + shape.elementsB()) + 4 * shape.elementsC();
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

Operands makeOperands(const Shape& shape, Fill fill, std::uint64_t seed, ElementType type) {
  validateShape(shape);
  // Distinct streams so A and B are never equal when M == N == K.
  Operands operands{makeMatrix(shape.m, shape.k, fill, seed),
                    makeMatrix(shape.k, shape.n, fill, seed ^ 0x9e3779b97f4a7c15ULL)};
  if (type != ElementType::F32)
    for (Matrix* matrix : {&operands.a, &operands.b})
      for (float& x : matrix->data) x = roundToElement(x, type);
  return operands;
}

}  // namespace tilescope
