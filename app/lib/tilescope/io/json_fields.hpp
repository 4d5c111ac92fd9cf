// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading the fields of a JSON document (a session, a results document, tuned.json, a request)
// with their type and range checked. Every refusal throws tilescope::Error(InvalidArgument) as
// "<JSON path>: <value> is not <what is allowed>", e.g. "results[3].m: -256 is not a valid size
// (1..2147483647)", the value quoted short and one line.
#include <cstdint>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "tilescope/problem.hpp"

namespace tilescope::io {

// Now, as documents record when they were written: ISO 8601, UTC, to the second.
std::string utcNow();

// "results[3]" + "m" = "results[3].m"; "" + "m" = "m".
std::string memberPath(const std::string& path, const std::string& name);
// "results" + 3 = "results[3]".
std::string elementPath(const std::string& path, std::size_t index);

// Throws Error(InvalidArgument) "<path>: <problem>".
[[noreturn]] void refuseAt(const std::string& path, const std::string& problem);

// `value` as a message shows it: JSON text, at most 80 characters, control characters escaped.
std::string shownValue(const nlohmann::json& value);

// The object `json` itself, refused unless it is one.
const nlohmann::json& objectAt(const nlohmann::json& json, const std::string& path);
// The array `json` itself, refused unless it is one.
const nlohmann::json& arrayAt(const nlohmann::json& json, const std::string& path);

// The member `name` of the object at `path`; refused when it is missing.
const nlohmann::json& requiredField(const nlohmann::json& object, const char* name,
                                    const std::string& path);
// nullptr when the member is missing or null.
const nlohmann::json* optionalField(const nlohmann::json& object, const char* name);

// The largest matrix size a file may hold (the runs themselves allow less).
inline constexpr std::int64_t kMaxStoredSize = std::numeric_limits<std::int32_t>::max();

std::string stringField(const nlohmann::json& object, const char* name, const std::string& path);
bool booleanField(const nlohmann::json& object, const char* name, const std::string& path);
// A whole number in minimum..maximum; `meaning` names what it is ("size", "repetition count").
std::int64_t integerField(const nlohmann::json& object, const char* name, const std::string& path,
                          std::int64_t minimum, std::int64_t maximum, const std::string& meaning);
// A matrix size: 1..kMaxStoredSize.
std::int64_t sizeField(const nlohmann::json& object, const char* name, const std::string& path);
// The document's format version: a whole number from 1 to `newest` (the version this build
// writes); a newer one is refused as written by a newer TileScope.
std::int64_t versionField(const nlohmann::json& object, const char* name, const std::string& path,
                          std::int64_t newest);

enum class Sign { Positive, NonNegative };
// A finite number above 0 (Positive) or at least 0; with `nullable`, null reads as NaN (JSON has
// no NaN: the writers store a non-finite measurement as null).
double numberField(const nlohmann::json& object, const char* name, const std::string& path,
                   Sign sign, bool nullable = false);

// An element type by its name: "fp32", "tf32", "fp16" or "bf16".
ElementType elementTypeField(const nlohmann::json& object, const char* name,
                             const std::string& path);

}  // namespace tilescope::io
