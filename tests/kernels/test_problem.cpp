// SPDX-License-Identifier: GPL-3.0-or-later
// The problem: shape validation, 64-bit sizes and the seeded fills.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "tilescope/error.hpp"
#include "tilescope/problem.hpp"

namespace tilescope {
namespace {

TEST(Shape, SizesAreComputedIn64Bits) {
  const Shape shape{46341, 46341, 46341};  // 46341^2 overflows 32 bits
  EXPECT_EQ(shape.elementsC(), 2147488281LL);
  EXPECT_EQ(problemBytes(shape, ElementType::F32), 3 * 4 * 2147488281LL);
  // fp16 A and B take 2 bytes an element; C stays float32.
  EXPECT_EQ(problemBytes(shape, ElementType::F16), (2 + 2 + 4) * 2147488281LL);
  EXPECT_DOUBLE_EQ(Shape({2, 3, 4}).flops(), 48.0);
}

TEST(ElementType, NamesRoundTripAndSizesFollowTheType) {
  for (const ElementType type : kElementTypes)
    EXPECT_EQ(parseElementType(toString(type)), type) << toString(type);
  EXPECT_EQ(parseElementType("half"), std::nullopt);
  EXPECT_EQ(storageBytes(ElementType::F32), 4);
  EXPECT_EQ(storageBytes(ElementType::TF32), 4);
  EXPECT_EQ(storageBytes(ElementType::F16), 2);
  EXPECT_EQ(storageBytes(ElementType::BF16), 2);
  EXPECT_EQ(storageBytes(ElementType::E4M3), 1);
  EXPECT_EQ(storageBytes(ElementType::E5M2), 1);
  for (const ElementType type : kElementTypes)
    EXPECT_EQ(storesBKMajor(type), storageBytes(type) == 1) << toString(type);
}

// The value of an FP8 code with `exponentBits` and `mantissaBits` (OCP FP8: E4M3 has no
// infinities and one NaN mantissa at the top exponent; E5M2 is IEEE-like), or NaN.
float decodeFp8(unsigned code, int exponentBits, int mantissaBits) {
  const int bias = (1 << (exponentBits - 1)) - 1;
  const unsigned exponent = code >> mantissaBits & ((1u << exponentBits) - 1);
  const unsigned mantissa = code & ((1u << mantissaBits) - 1);
  const float sign = code >> 7 ? -1.0f : 1.0f;
  const unsigned top = (1u << exponentBits) - 1;
  if (exponentBits == 4 && exponent == top && mantissa == (1u << mantissaBits) - 1) return NAN;
  if (exponentBits == 5 && exponent == top) return NAN;  // infinities and NaNs: never produced
  const float fraction = float(mantissa) / float(1 << mantissaBits);
  if (exponent == 0) return sign * std::ldexp(fraction, 1 - bias);
  return sign * std::ldexp(1.0f + fraction, int(exponent) - bias);
}

// Every FP8 value is kept; halfway between two neighbours rounds to the even code, just off it
// to the nearer one; past the largest value, the largest (the GPU's saturating conversion).
TEST(ElementType, Fp8RoundsToEveryCodeWithTiesToEvenAndSaturates) {
  for (const auto& [type, exponentBits, largest] :
       {std::tuple{ElementType::E4M3, 4, 448.0f}, std::tuple{ElementType::E5M2, 5, 57344.0f}}) {
    const int mantissa = 7 - exponentBits;
    EXPECT_EQ(mantissaBits(type), mantissa);
    std::vector<float> positive;
    for (unsigned code = 0; code < 128; ++code) {
      const float value = decodeFp8(code, exponentBits, mantissa);
      if (std::isnan(value)) continue;
      positive.push_back(value);
      EXPECT_EQ(roundToElement(value, type), value) << toString(type) << " code " << code;
      EXPECT_EQ(roundToElement(-value, type), -value) << toString(type) << " code " << code;
    }
    ASSERT_EQ(positive.back(), largest) << toString(type);
    for (std::size_t i = 0; i + 1 < positive.size(); ++i) {
      const float below = positive[i], above = positive[i + 1], half = (below + above) / 2;
      // Codes are consecutive integers here: the even one has an even index.
      EXPECT_EQ(roundToElement(half, type), i % 2 == 0 ? below : above)
          << toString(type) << " between " << below << " and " << above;
      EXPECT_EQ(roundToElement(std::nextafter(half, 0.0f), type), below) << toString(type);
      EXPECT_EQ(roundToElement(std::nextafter(half, largest * 2), type), above) << toString(type);
    }
    EXPECT_EQ(roundToElement(largest * 1.1f, type), largest) << toString(type);
    EXPECT_EQ(roundToElement(-1e30f, type), -largest) << toString(type);
    EXPECT_EQ(roundToElement(INFINITY, type), largest) << toString(type);
  }
}

TEST(ElementType, RoundsToNearestWithTiesToEven) {
  // One ulp of 1 is 2^-10 in fp16 and tf32 and 2^-7 in bf16.
  EXPECT_EQ(roundToElement(1.0f + 0x1p-11f, ElementType::F16), 1.0f);  // tie: down to even
  EXPECT_EQ(roundToElement(1.0f + 3 * 0x1p-11f, ElementType::F16), 1.0f + 0x1p-9f);  // tie: up
  EXPECT_EQ(roundToElement(1.0f + 0x1p-11f + 0x1p-20f, ElementType::TF32), 1.0f + 0x1p-10f);
  EXPECT_EQ(roundToElement(1.0f + 0x1p-9f, ElementType::BF16), 1.0f);
  EXPECT_EQ(roundToElement(-(1.0f + 0x1p-7f + 0x1p-9f), ElementType::BF16), -(1.0f + 0x1p-7f));
  // bf16 and tf32 keep float32's exponent range; fp16 has subnormals below 2^-14 and overflows
  // past 65504.
  EXPECT_EQ(roundToElement(0x1p-30f, ElementType::BF16), 0x1p-30f);
  EXPECT_EQ(roundToElement(0x1p-30f, ElementType::F16), 0.0f);
  EXPECT_EQ(roundToElement(3 * 0x1p-25f, ElementType::F16), 0x1p-23f);  // 1.5 steps: to even 2
  EXPECT_EQ(roundToElement(65504.0f, ElementType::F16), 65504.0f);
  EXPECT_TRUE(std::isinf(roundToElement(70000.0f, ElementType::F16)));
  const float x = 0.123456789f;
  EXPECT_EQ(roundToElement(x, ElementType::F32), x);
  EXPECT_NEAR(roundToElement(x, ElementType::F16), x, x * 0x1p-11f);
  EXPECT_NEAR(roundToElement(x, ElementType::BF16), x, x * 0x1p-8f);
}

TEST(ElementType, OperandsHoldValuesOfTheType) {
  const Shape shape{13, 11, 17};
  for (const ElementType type : kElementTypes) {
    const Operands operands = makeOperands(shape, Fill::Random, 3, type);
    const Operands exact = makeOperands(shape, Fill::Random, 3);
    bool changed = false;
    for (std::size_t i = 0; i < operands.a.data.size(); ++i) {
      const float x = operands.a.data[i];
      EXPECT_EQ(roundToElement(x, type), x) << toString(type);  // already of the type
      changed |= x != exact.a.data[i];
    }
    EXPECT_EQ(changed, type != ElementType::F32) << toString(type);
    // Integers in [-8, 8] are exact in every type.
    EXPECT_EQ(makeOperands(shape, Fill::Integer, 3, type).b.data,
              makeOperands(shape, Fill::Integer, 3).b.data);
  }
}

TEST(Shape, ValidationNamesTheBadDimension) {
  EXPECT_NO_THROW(validateShape({1, 1, 1}));
  EXPECT_NO_THROW(validateShape({kMaxDimension, 1, kMaxDimension}));
  for (const auto& [shape, name] : {std::pair{Shape{0, 1, 1}, "M"}, std::pair{Shape{1, -4, 1}, "N"},
                                    std::pair{Shape{1, 1, kMaxDimension + 1}, "K"}}) {
    try {
      validateShape(shape);
      ADD_FAILURE() << name << " should be refused";
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
      EXPECT_EQ(std::string(error.what()).rfind(name, 0), 0u) << error.what();
    }
  }
}

TEST(Operands, AreSeededAndDistinct) {
  const Shape shape{9, 9, 9};
  const Operands first = makeOperands(shape, Fill::Random, 5);
  const Operands again = makeOperands(shape, Fill::Random, 5);
  const Operands other = makeOperands(shape, Fill::Random, 6);
  EXPECT_EQ(first.a.data, again.a.data);
  EXPECT_EQ(first.b.data, again.b.data);
  EXPECT_NE(first.a.data, first.b.data);
  EXPECT_NE(first.a.data, other.a.data);
  EXPECT_EQ(first.a.rows, 9);
  EXPECT_EQ(first.b.cols, 9);
  for (float x : first.a.data) {
    EXPECT_GE(x, -1.0f);
    EXPECT_LT(x, 1.0f);
  }
}

TEST(Operands, IntegerFillStaysInItsExactRange) {
  const Operands operands = makeOperands({30, 40, 50}, Fill::Integer, 1);
  for (const Matrix* m : {&operands.a, &operands.b})
    for (float x : m->data) {
      EXPECT_EQ(x, std::round(x));
      EXPECT_LE(std::abs(x), 8.0f);
    }
}

TEST(Poison, FillsWithNaN) {
  Matrix m = makePoisonedMatrix(3, 4);
  ASSERT_EQ(m.data.size(), 12u);
  for (float x : m.data) EXPECT_TRUE(std::isnan(x));
  m.data.assign(12, 1.0f);
  poison(m);
  for (float x : m.data) EXPECT_TRUE(std::isnan(x));
}

}  // namespace
}  // namespace tilescope
