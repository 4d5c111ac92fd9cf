// SPDX-License-Identifier: GPL-3.0-or-later
// The JSON field validators and the quoting of values that every message uses.
#include <gtest/gtest.h>
#include <cmath>
#include <functional>

#include "tilescope/error.hpp"
#include "tilescope/io/json_fields.hpp"
#include "tilescope/quote.hpp"

namespace tilescope::io {
namespace {

std::string refusalOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(QuoteValue, EscapesControlCharactersAndShowsAtMost80) {
  EXPECT_EQ(quoteValue("naive"), "'naive'");
  EXPECT_EQ(quoteValue("na\x1bive\n"), "'na\\x1bive\\n'");
  const std::string shown = quoteValue(std::string(100000, 'a'));
  EXPECT_EQ(shown, "'" + std::string(80, 'a') + "...' (100000 characters)");
}

TEST(JsonFields, NameThePathTheValueAndWhatIsAllowed) {
  const nlohmann::json entry = {{"m", -256},    {"reps", 1.5}, {"name", 3},
                                {"rate", -1.0}, {"on", "yes"}, {"big", std::uint64_t(1) << 63}};
  EXPECT_EQ(refusalOf([&] { sizeField(entry, "m", "results[3]"); }),
            "results[3].m: -256 is not a valid size (a whole number from 1 to 2147483647)");
  EXPECT_EQ(refusalOf([&] { sizeField(entry, "big", "x"); }),
            "x.big: 9223372036854775808 is not a valid size (a whole number from 1 to "
            "2147483647)");
  EXPECT_EQ(refusalOf([&] { integerField(entry, "reps", "s", 1, 10, "count"); }),
            "s.reps: 1.5 is not a whole number (a whole number from 1 to 10)");
  EXPECT_EQ(refusalOf([&] { stringField(entry, "name", ""); }), "name: 3 is not a string");
  EXPECT_EQ(refusalOf([&] { numberField(entry, "rate", "r", Sign::Positive); }),
            "r.rate: -1.0 is out of range (a finite number above 0)");
  EXPECT_EQ(refusalOf([&] { booleanField(entry, "on", "o"); }), "o.on: 'yes' is not true or false");
  EXPECT_EQ(refusalOf([&] { stringField(entry, "missing", "p"); }), "p.missing is missing");
  EXPECT_EQ(refusalOf([&] { stringField(nlohmann::json::array(), "x", "p"); }),
            "p: [] is not a JSON object");
}

TEST(JsonFields, NullReadsAsNotANumberOnlyWhereAllowed) {
  const nlohmann::json entry = {{"spread", nullptr}};
  EXPECT_TRUE(std::isnan(numberField(entry, "spread", "", Sign::NonNegative, true)));
  EXPECT_EQ(refusalOf([&] { numberField(entry, "spread", "", Sign::NonNegative); }),
            "spread: null is not a number (a finite number, 0 or more)");
}

TEST(JsonFields, AVersionIsAKnownWholeNumber) {
  EXPECT_EQ(versionField({{"version", 1}}, "version", "", 1), 1);
  EXPECT_EQ(refusalOf([] {
              versionField({{"version", "1"}}, "version", "", 1);
            }),
            "version: '1' is not a whole number (a whole number from 1 to 1)");
  EXPECT_EQ(refusalOf([] {
              versionField({{"version", 2}}, "version", "", 1);
            }),
            "version: 2 is newer than this build reads (up to 1): the file was written by a "
            "newer TileScope");
}

}  // namespace
}  // namespace tilescope::io
