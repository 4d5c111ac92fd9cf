// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/io/json_fields.hpp"

#include <cmath>
#include <ctime>

#include "tilescope/error.hpp"
#include "tilescope/quote.hpp"

namespace tilescope::io {

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string memberPath(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}

std::string elementPath(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

void refuseAt(const std::string& path, const std::string& problem) {
  throw Error(ErrorKind::InvalidArgument, path + ": " + problem);
}

std::string shownValue(const nlohmann::json& value) {
  // A string is quoted as a value, anything else as its JSON text without the quotes.
  if (value.is_string()) return quoteValue(value.get_ref<const std::string&>());
  const std::string text =
      quoteValue(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return text.substr(1, text.rfind('\'') - 1) + text.substr(text.rfind('\'') + 1);
}

const nlohmann::json& objectAt(const nlohmann::json& json, const std::string& path) {
  if (!json.is_object()) refuseAt(path, shownValue(json) + " is not a JSON object");
  return json;
}

const nlohmann::json& arrayAt(const nlohmann::json& json, const std::string& path) {
  if (!json.is_array()) refuseAt(path, shownValue(json) + " is not a list");
  return json;
}

const nlohmann::json& requiredField(const nlohmann::json& object, const char* name,
                                    const std::string& path) {
  objectAt(object, path.empty() ? "the document" : path);
  const auto it = object.find(name);
  if (it == object.end())
    throw Error(ErrorKind::InvalidArgument, memberPath(path, name) + " is missing");
  return *it;
}

const nlohmann::json* optionalField(const nlohmann::json& object, const char* name) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(name);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string stringField(const nlohmann::json& object, const char* name, const std::string& path) {
  const nlohmann::json& value = requiredField(object, name, path);
  if (!value.is_string()) refuseAt(memberPath(path, name), shownValue(value) + " is not a string");
  return value.get<std::string>();
}

bool booleanField(const nlohmann::json& object, const char* name, const std::string& path) {
  const nlohmann::json& value = requiredField(object, name, path);
  if (!value.is_boolean())
    refuseAt(memberPath(path, name), shownValue(value) + " is not true or false");
  return value.get<bool>();
}

std::int64_t integerField(const nlohmann::json& object, const char* name, const std::string& path,
                          std::int64_t minimum, std::int64_t maximum, const std::string& meaning) {
  const nlohmann::json& value = requiredField(object, name, path);
  const std::string at = memberPath(path, name);
  const std::string allowed =
      " (a whole number from " + std::to_string(minimum) + " to " + std::to_string(maximum) + ")";
  // Unsigned first: 2^63 and above would wrap if read as signed.
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(maximum))
    refuseAt(at, shownValue(value) + " is not a valid " + meaning + allowed);
  if (!value.is_number_integer())
    refuseAt(at, shownValue(value) + " is not a whole number" + allowed);
  const std::int64_t number = value.get<std::int64_t>();
  if (number < minimum || number > maximum)
    refuseAt(at, shownValue(value) + " is not a valid " + meaning + allowed);
  return number;
}

std::int64_t sizeField(const nlohmann::json& object, const char* name, const std::string& path) {
  return integerField(object, name, path, 1, kMaxStoredSize, "size");
}

std::int64_t versionField(const nlohmann::json& object, const char* name, const std::string& path,
                          std::int64_t newest) {
  const nlohmann::json& value = requiredField(object, name, path);
  const std::string at = memberPath(path, name);
  const bool newer =
      (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(newest)) ||
      (value.is_number_integer() && value.get<std::int64_t>() > newest);
  if (newer) {
    refuseAt(at, shownValue(value) + " is newer than this build reads (up to " +
                     std::to_string(newest) + "): the file was written by a newer TileScope");
  }
  return integerField(object, name, path, 1, newest, "format version");
}

double numberField(const nlohmann::json& object, const char* name, const std::string& path,
                   Sign sign, bool nullable) {
  const nlohmann::json& value = requiredField(object, name, path);
  const std::string at = memberPath(path, name);
  if (nullable && value.is_null()) return std::nan("");
  const std::string allowed =
      sign == Sign::Positive ? "a finite number above 0" : "a finite number, 0 or more";
  if (!value.is_number()) refuseAt(at, shownValue(value) + " is not a number (" + allowed + ")");
  const double number = value.get<double>();
  const bool valid = std::isfinite(number) && (sign == Sign::Positive ? number > 0 : number >= 0);
  if (!valid) refuseAt(at, shownValue(value) + " is out of range (" + allowed + ")");
  return number;
}

ElementType elementTypeField(const nlohmann::json& object, const char* name,
                             const std::string& path) {
  const std::string text = stringField(object, name, path);
  if (const auto element = parseElementType(text)) return *element;
  refuseAt(memberPath(path, name),
           quoteValue(text) + " is not an element type (" + elementTypeNames() + ")");
}

}  // namespace tilescope::io
