// The problem: shape validation, 64-bit sizes and the seeded fills.
#include <gtest/gtest.h>

#include <cmath>

#include "tilescope/error.hpp"
#include "tilescope/problem.hpp"

namespace tilescope {
namespace {

TEST(Shape, SizesAreComputedIn64Bits) {
  const Shape shape{46341, 46341, 46341};  // 46341^2 overflows 32 bits
  EXPECT_EQ(shape.elementsC(), 2147488281LL);
  EXPECT_EQ(shape.bytes(), 3 * 4 * 2147488281LL);
  EXPECT_DOUBLE_EQ(Shape({2, 3, 4}).flops(), 48.0);
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
