// SPDX-License-Identifier: GPL-3.0-or-later
// What a user kernel's source declares, read without compiling it: its parameters (TS_PARAM), its
// element types (TS_TYPES), its block (TS_LAUNCH), and the lines too long to read at all. Each
// read is a single pass over a line, none recursing on its length.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <string_view>

#include "tilescope/user_kernel.hpp"
#include "user/source_text.hpp"

namespace tilescope {
namespace {

void problem(std::vector<CompileDiagnostic>* problems, int line, std::string message) {
  if (problems) problems->push_back({line, 0, true, std::move(message)});
}

}  // namespace

std::vector<CompileDiagnostic> overlongLines(const std::string& source) {
  std::vector<CompileDiagnostic> found;
  int number = 0;
  for (const std::string_view line : source_text::lines(source)) {
    ++number;
    if (line.size() > kMaxUserSourceLineLength)
      found.push_back({number, 0, true,
                       "the line is " + source_text::withThousands(line.size()) +
                           " characters long; the limit is " +
                           source_text::withThousands(kMaxUserSourceLineLength) +
                           ": split it into shorter lines"});
  }
  return found;
}

namespace {

// Integer arithmetic (+ - * / %, parentheses, numbers, parameter names) over `text`; nullopt for
// anything else, a division by zero, a value past int or parentheses (and signs) nested deeper
// than kMaxDepth: the descent recurses once per level, so the depth is what bounds its stack.
class LaunchExpression {
 public:
  LaunchExpression(std::string_view text, const Params& values) : text_(text), values_(values) {}
  std::optional<long long> evaluate() {
    const std::optional<long long> value = sum();
    skipSpaces();
    if (!value || at_ != text_.size()) return std::nullopt;
    return value;
  }

 private:
  static constexpr int kMaxDepth = 64;

  void skipSpaces() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool take(char c) {
    skipSpaces();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  static std::optional<long long> checked(long long value) {
    if (value > std::numeric_limits<int>::max() || value < std::numeric_limits<int>::min())
      return std::nullopt;
    return value;
  }
  std::optional<long long> sum() {
    std::optional<long long> value = product();
    while (value) {
      if (take('+')) {
        const auto right = product();
        value = right ? checked(*value + *right) : std::nullopt;
      } else if (take('-')) {
        const auto right = product();
        value = right ? checked(*value - *right) : std::nullopt;
      } else {
        break;
      }
    }
    return value;
  }
  std::optional<long long> product() {
    std::optional<long long> value = factor();
    while (value) {
      const char op = take('*') ? '*' : take('/') ? '/' : take('%') ? '%' : '\0';
      if (op == '\0') break;
      const auto right = factor();
      if (!right || (op != '*' && *right == 0)) return std::nullopt;
      value = checked(op == '*' ? *value * *right : op == '/' ? *value / *right : *value % *right);
    }
    return value;
  }
  std::optional<long long> factor() {
    if (take('(')) {
      if (++depth_ > kMaxDepth) return std::nullopt;
      const auto value = sum();
      --depth_;
      return value && take(')') ? value : std::nullopt;
    }
    if (take('-')) {
      if (++depth_ > kMaxDepth) return std::nullopt;
      const auto value = factor();
      --depth_;
      return value ? checked(-*value) : std::nullopt;
    }
    skipSpaces();
    const std::size_t start = at_;
    while (at_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_'))
      ++at_;
    const std::string_view word = text_.substr(start, at_ - start);
    if (word.empty()) return std::nullopt;
    if (std::isdigit(static_cast<unsigned char>(word.front()))) {
      long long value = 0;
      const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
      if (error != std::errc() || end != word.data() + word.size()) return std::nullopt;
      return checked(value);
    }
    const auto found = values_.find(std::string(word));
    if (found == values_.end()) return std::nullopt;
    return found->second;
  }

  std::string_view text_;
  const Params& values_;
  std::size_t at_ = 0;
  int depth_ = 0;
};

}  // namespace

std::optional<Dim2> declaredBlock(const std::string& source, const Params& values) {
  for (const std::string_view line : source_text::lines(source)) {
    const std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos || line.substr(start, 10) != "TS_LAUNCH(") continue;
    // The first two arguments: up to the commas outside parentheses.
    std::vector<std::string_view> arguments;
    const std::string_view text = line;
    int depth = 0;
    std::size_t begin = start + 10;
    for (std::size_t i = begin; i < text.size() && arguments.size() < 2; ++i) {
      if (text[i] == '(') ++depth;
      if (text[i] == ')' && depth-- == 0) break;
      if (text[i] == ',' && depth == 0) {
        arguments.push_back(text.substr(begin, i - begin));
        begin = i + 1;
      }
    }
    if (arguments.size() < 2) return std::nullopt;
    const auto x = LaunchExpression(arguments[0], values).evaluate();
    const auto y = LaunchExpression(arguments[1], values).evaluate();
    if (!x || !y || *x < 1 || *y < 1) return std::nullopt;
    return Dim2{int(*x), int(*y)};
  }
  return std::nullopt;
}

namespace {

// A line of the source that declares something (TS_PARAM(...), TS_TYPES(...)): its number
// (1-based) and its arguments, split at the commas and trimmed.
struct Declaration {
  int line = 0;
  std::vector<std::string> fields;
};

// The text between `keyword(` and the first ')' where a line starts with the keyword (after
// spaces; spaces may stand before its parenthesis); nullopt elsewhere.
std::optional<std::string_view> declared(std::string_view line, std::string_view keyword) {
  using source_text::isSpace;
  std::size_t at = 0;
  while (at < line.size() && isSpace(line[at])) ++at;
  if (line.substr(at, keyword.size()) != keyword) return std::nullopt;
  at += keyword.size();
  while (at < line.size() && isSpace(line[at])) ++at;
  if (at == line.size() || line[at] != '(') return std::nullopt;
  const std::size_t close = line.find(')', at + 1);
  if (close == std::string_view::npos) return std::nullopt;
  return line.substr(at + 1, close - at - 1);
}

std::vector<Declaration> declarations(const std::string& source, std::string_view keyword) {
  std::vector<Declaration> found;
  int number = 0;
  for (const std::string_view line : source_text::lines(source)) {
    ++number;
    const std::optional<std::string_view> arguments = declared(line, keyword);
    if (!arguments) continue;
    Declaration& declaration = found.emplace_back(Declaration{number, {}});
    // Split at the commas as std::getline would: an empty last item is no item.
    for (std::size_t begin = 0; begin < arguments->size();) {
      const std::size_t comma = std::min(arguments->find(',', begin), arguments->size());
      std::string_view item = arguments->substr(begin, comma - begin);
      while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
      while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
      declaration.fields.emplace_back(item);
      begin = comma + 1;
    }
  }
  return found;
}

bool isIdentifier(std::string_view text) {
  return !text.empty() && !source_text::isDigit(text.front()) &&
         std::all_of(text.begin(), text.end(), source_text::isWordChar);
}

}  // namespace

std::vector<ParamSpec> declaredParams(const std::string& source,
                                      std::vector<CompileDiagnostic>* problems) {
  std::vector<ParamSpec> params;
  for (const auto& [number, fields] : declarations(source, "TS_PARAM")) {
    if (fields.size() < 2 || !isIdentifier(fields[0])) {
      problem(problems, number, "TS_PARAM takes a name, a default and the allowed values");
      continue;
    }
    ParamSpec spec{fields[0], "a parameter of this kernel", 0, {}, ""};
    bool valid = true;
    for (std::size_t f = 1; f < fields.size(); ++f) {
      const std::optional<int> value = source_text::integer(fields[f]);
      if (!value) {
        problem(problems, number,
                "TS_PARAM " + spec.name + ": '" + fields[f] + "' is not a whole number");
        valid = false;
        break;
      }
      if (f == 1)
        spec.defaultValue = *value;
      else
        spec.allowed.push_back(*value);
    }
    if (!valid) continue;
    if (spec.allowed.empty()) spec.allowed.push_back(spec.defaultValue);
    std::sort(spec.allowed.begin(), spec.allowed.end());
    spec.allowed.erase(std::unique(spec.allowed.begin(), spec.allowed.end()), spec.allowed.end());
    if (!std::binary_search(spec.allowed.begin(), spec.allowed.end(), spec.defaultValue)) {
      problem(problems, number,
              "TS_PARAM " + spec.name + ": the default " + std::to_string(spec.defaultValue) +
                  " is not one of the allowed values");
      continue;
    }
    if (std::any_of(params.begin(), params.end(),
                    [&](const ParamSpec& p) { return p.name == spec.name; })) {
      problem(problems, number, "TS_PARAM " + spec.name + " is declared twice");
      continue;
    }
    spec.refusal = "is not one of the values its TS_PARAM allows";
    params.push_back(std::move(spec));
  }
  return params;
}

std::vector<ElementType> declaredTypes(const std::string& source,
                                       std::vector<CompileDiagnostic>* problems) {
  std::vector<ElementType> types;
  bool declared = false;
  for (const auto& [number, fields] : declarations(source, "TS_TYPES")) {
    if (declared) {
      problem(problems, number, "TS_TYPES is declared twice");
      continue;
    }
    declared = true;
    if (fields.empty() || (fields.size() == 1 && fields[0].empty())) {
      problem(problems, number, "TS_TYPES lists no element type");
      continue;
    }
    for (const std::string& field : fields) {
      const std::optional<ElementType> type = parseElementType(field);
      if (!type) {
        problem(problems, number,
                "TS_TYPES: '" + field +
                    "' is not an element type (fp32, tf32, fp16, bf16, e4m3 or e5m2)");
        types.clear();
        break;
      }
      if (std::find(types.begin(), types.end(), *type) == types.end()) types.push_back(*type);
    }
  }
  // None declared (or a refused line): fp32.
  if (types.empty()) types.push_back(ElementType::F32);
  return types;
}

}  // namespace tilescope
