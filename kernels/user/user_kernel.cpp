// SPDX-License-Identifier: GPL-3.0-or-later
// Compiling a user kernel with NVRTC, loaded at run time, and reading the compiler's messages
// back onto the user's lines.
#include "tilescope/user_kernel.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "tilescope/occupancy.hpp"

#ifdef TILESCOPE_HAVE_NVRTC_HEADER
#include <nvrtc.h>
#endif

namespace tilescope {
namespace {

void problem(std::vector<CompileDiagnostic>* problems, int line, std::string message) {
  if (problems) problems->push_back({line, 0, true, std::move(message)});
}

std::optional<int> integer(const std::string& text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

#ifdef TILESCOPE_HAVE_NVRTC_HEADER

// The NVRTC functions used, from libnvrtc.so.13.
struct Nvrtc {
  decltype(&nvrtcCreateProgram) createProgram = nullptr;
  decltype(&nvrtcDestroyProgram) destroyProgram = nullptr;
  decltype(&nvrtcCompileProgram) compileProgram = nullptr;
  decltype(&nvrtcGetProgramLogSize) getProgramLogSize = nullptr;
  decltype(&nvrtcGetProgramLog) getProgramLog = nullptr;
  decltype(&nvrtcGetCUBINSize) getCubinSize = nullptr;
  decltype(&nvrtcGetCUBIN) getCubin = nullptr;
  decltype(&nvrtcGetErrorString) getErrorString = nullptr;
  std::optional<std::string> missing;
};

Nvrtc loadNvrtc() {
  Nvrtc api;
  void* library = nullptr;
  for (const char* name : {"libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.13"})
    if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  if (!library) {
    api.missing =
        "compiling a kernel needs NVIDIA's NVRTC (libnvrtc.so.13, from the CUDA Toolkit or the "
        "cuda-nvrtc-13-0 package), which this machine lacks";
    return api;
  }
  const auto find = [&](auto& function, const char* name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(library, name));
    if (!function && !api.missing) api.missing = std::string("this machine's NVRTC lacks ") + name;
  };
  find(api.createProgram, "nvrtcCreateProgram");
  find(api.destroyProgram, "nvrtcDestroyProgram");
  find(api.compileProgram, "nvrtcCompileProgram");
  find(api.getProgramLogSize, "nvrtcGetProgramLogSize");
  find(api.getProgramLog, "nvrtcGetProgramLog");
  find(api.getCubinSize, "nvrtcGetCUBINSize");
  find(api.getCubin, "nvrtcGetCUBIN");
  find(api.getErrorString, "nvrtcGetErrorString");
  return api;
}

const Nvrtc& nvrtc() {
  static const Nvrtc loaded = loadNvrtc();
  return loaded;
}

// NVRTC's messages: "name.cu(12): error: ...", the offending line echoed after two spaces, then
// a caret under the column.
void readDiagnostics(const std::string& log, const std::string& file, CompileResult& result) {
  static const std::regex message(
      R"(^(.*)\((\d+)\): (catastrophic error|error|warning)[^:]*: (.*)$)");
  std::vector<std::string> lines;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch match;
    if (!std::regex_match(lines[i], match, message)) continue;
    CompileDiagnostic d;
    d.error = match[3] != "warning";
    d.message = match[4];
    // A message about the API header belongs to the whole program, not to a line of the user's.
    if (match[1] == file) d.line = integer(match[2]).value_or(0);
    if (d.line > 0 && i + 2 < lines.size()) {
      const std::size_t caret = lines[i + 2].find('^');
      if (caret != std::string::npos && caret >= 2 && lines[i + 2].find_first_not_of(' ') == caret)
        d.column = int(caret) - 1;
    }
    result.diagnostics.push_back(std::move(d));
  }
}

// ptxas -v, per entry function: "Compiling entry function 'ts_kernel'", then "N bytes stack
// frame", then "Used R registers, ... S bytes smem".
std::optional<KernelResources> readResources(const std::string& log) {
  static const std::regex entry(R"(Compiling entry function '(\w+)')");
  static const std::regex stack(R"((\d+) bytes stack frame)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex shared(R"((\d+) bytes smem)");
  std::istringstream in(log);
  std::string function;
  std::optional<KernelResources> kernel;
  for (std::string line; std::getline(in, line);) {
    std::smatch match;
    if (std::regex_search(line, match, entry)) function = match[1];
    if (function != "ts_kernel") continue;
    if (!kernel) kernel.emplace();
    if (std::regex_search(line, match, stack))
      kernel->localBytesPerThread = integer(match[1]).value_or(0);
    if (std::regex_search(line, match, used))
      kernel->registersPerThread = integer(match[1]).value_or(0);
    if (std::regex_search(line, match, shared))
      kernel->sharedBytesPerBlock = integer(match[1]).value_or(0);
  }
  return kernel;
}

// Whether the cubin holds entry point `name`: its symbol, NUL-terminated in the string table.
bool defines(const std::string& image, const std::string& name) {
  return image.find(std::string(1, '\0') + name + '\0') != std::string::npos ||
         image.find(".text." + name + '\0') != std::string::npos;
}

#endif  // TILESCOPE_HAVE_NVRTC_HEADER

}  // namespace

std::string userKernelArchitecture(int capability) {
  return "sm_" + std::to_string(capability) + (capability == 90 ? "a" : "");
}

std::optional<std::string> userKernelCompilerUnavailable() {
#ifdef TILESCOPE_HAVE_NVRTC_HEADER
  return nvrtc().missing;
#else
  return "this build of TileScope was made without the CUDA Toolkit, so it cannot compile "
         "kernels (NVRTC)";
#endif
}

namespace {

// Integer arithmetic (+ - * / %, parentheses, numbers, parameter names) over `text`; nullopt for
// anything else, a division by zero or a value past int.
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
      const auto value = sum();
      return value && take(')') ? value : std::nullopt;
    }
    if (take('-')) {
      const auto value = factor();
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
};

}  // namespace

std::optional<Dim2> declaredBlock(const std::string& source, const Params& values) {
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line.compare(start, 10, "TS_LAUNCH(") != 0) continue;
    // The first two arguments: up to the commas outside parentheses.
    std::vector<std::string_view> arguments;
    const std::string_view text(line);
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

std::vector<Declaration> declarations(const std::string& source, const std::regex& pattern) {
  std::vector<Declaration> found;
  std::istringstream in(source);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::smatch match;
    if (!std::regex_search(line, match, pattern)) continue;
    Declaration& declaration = found.emplace_back(Declaration{number, {}});
    std::istringstream items(match[1].str());
    for (std::string item; std::getline(items, item, ',');) {
      item.erase(0, item.find_first_not_of(" \t"));
      item.erase(item.find_last_not_of(" \t") + 1);
      declaration.fields.push_back(item);
    }
  }
  return found;
}

}  // namespace

std::vector<ParamSpec> declaredParams(const std::string& source,
                                      std::vector<CompileDiagnostic>* problems) {
  static const std::regex pattern(R"(^\s*TS_PARAM\s*\(([^)]*)\))");
  std::vector<ParamSpec> params;
  for (const auto& [number, fields] : declarations(source, pattern)) {
    static const std::regex name(R"([A-Za-z_]\w*)");
    if (fields.size() < 2 || !std::regex_match(fields[0], name)) {
      problem(problems, number, "TS_PARAM takes a name, a default and the allowed values");
      continue;
    }
    ParamSpec spec{fields[0], "a parameter of this kernel", 0, {}, ""};
    bool valid = true;
    for (std::size_t f = 1; f < fields.size(); ++f) {
      const std::optional<int> value = integer(fields[f]);
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
  static const std::regex pattern(R"(^\s*TS_TYPES\s*\(([^)]*)\))");
  std::vector<ElementType> types;
  bool declared = false;
  for (const auto& [number, fields] : declarations(source, pattern)) {
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
                "TS_TYPES: '" + field + "' is not an element type (fp32, tf32, fp16 or bf16)");
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

namespace {

// Preprocessing that reads a file ---------------------------------------------------------------
//
// A kernel is compiled from its own text and the ts:: API alone: a directive or operator that
// makes the compiler read another file (#include, __has_include, #pragma GCC dependency, a #line
// whose file name the compiler opens to quote in its messages, ...) is refused at its line. The
// source is read as the preprocessor reads it: lines spliced at a backslash, comments a space,
// string and character literals (raw ones too) skipped, '%:' a '#'. Where GCC, Clang and NVRTC
// could read the text differently the reading that finds more is taken: a backslash and newline
// with spaces between (GCC splices them, others may not) is read both ways, and an unterminated
// literal ends at its quote.

// A character of the source after line splicing, with where it stood in the file.
struct Placed {
  char c;
  int line, column;  // 1-based; lines as std::getline counts them (at '\n')
};

// GCC skips a NUL as a space (with a warning): it may stand before a directive's '#'.
bool isHorizontalSpace(char c) {
  return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\0';
}

// Translation phases 1 and 2: "\r\n" and a lone '\r' end a line, a backslash at a line's end
// joins it to the next one. `lenient`: spaces may stand between the backslash and the newline.
std::vector<Placed> spliced(const std::string& source, bool lenient) {
  std::vector<Placed> out;
  out.reserve(source.size());
  int line = 1, column = 1;
  const auto newlineAt = [&](std::size_t j) -> std::size_t {  // its length, 0 if none
    if (j >= source.size()) return 0;
    if (source[j] == '\n') return 1;
    if (source[j] == '\r') return j + 1 < source.size() && source[j + 1] == '\n' ? 2 : 1;
    return 0;
  };
  const auto pass = [&](std::size_t j, std::size_t length) {  // moves the place past a newline
    if (source[j + length - 1] == '\n') {
      ++line;
      column = 1;
    } else {
      column += int(length);
    }
  };
  for (std::size_t i = 0; i < source.size();) {
    if (source[i] == '\\') {
      std::size_t j = i + 1;
      if (lenient)
        while (j < source.size() && isHorizontalSpace(source[j])) ++j;
      if (const std::size_t length = newlineAt(j)) {
        column += int(j - i);
        pass(j, length);
        i = j + length;
        continue;
      }
    }
    if (const std::size_t length = newlineAt(i)) {
      out.push_back({'\n', line, column});
      pass(i, length);
      i += length;
      continue;
    }
    // A byte-order mark is read as a space: where a compiler skips it, a directive may follow.
    if (source.compare(i, 3, "\xEF\xBB\xBF") == 0) {
      out.push_back({' ', line, column});
      column += 3;
      i += 3;
      continue;
    }
    out.push_back({source[i], line, column});
    ++column;
    ++i;
  }
  return out;
}

bool isIdentifierStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}

bool isIdentifierChar(char c) {
  return isIdentifierStart(c) || std::isdigit(static_cast<unsigned char>(c));
}

// The pragmas a kernel may use: none of them reads a file.
bool allowedPragma(const std::string& space, const std::string& name) {
  static const std::set<std::string> plain = {"",
                                              "unroll",
                                              "nounroll",
                                              "once",
                                              "message",
                                              "pack",
                                              "push_macro",
                                              "pop_macro",
                                              "STDC",
                                              "omp",
                                              "nv_diag_suppress",
                                              "nv_diag_warning",
                                              "nv_diag_error",
                                              "nv_diag_default",
                                              "nv_diag_once",
                                              "nv_diagnostic",
                                              "diag_suppress",
                                              "diag_warning",
                                              "diag_error",
                                              "diag_default",
                                              "diag_once"};
  static const std::set<std::string> gcc = {"unroll", "ivdep", "novector", "diagnostic"};
  static const std::set<std::string> clang = {"loop", "diagnostic", "unroll", "nounroll"};
  if (space == "GCC") return gcc.count(name) > 0;
  if (space == "clang") return clang.count(name) > 0;
  return plain.count(space) > 0;
}

class FileReadScanner {
 public:
  FileReadScanner(const std::vector<Placed>& text, std::vector<CompileDiagnostic>& found)
      : text_(text), found_(found) {}

  void scan() {
    bool lineStart = true;  // nothing but spaces and comments since the line began
    while (at_ < text_.size()) {
      const char c = text_[at_].c;
      if (c == '\n') {
        lineStart = true;
        ++at_;
      } else if (isHorizontalSpace(c)) {
        ++at_;
      } else if (skipComment()) {
        // a space: a directive's '#' may still follow
      } else if (const std::size_t hash = hashAt(at_)) {
        if (lineStart)
          directive(at_, hash);
        else if (hashAt(at_ + hash))
          refuse(at_,
                 "## (token pasting) is refused in a kernel: it could spell a directive or "
                 "an operator that reads a file");
        at_ += hash;
        lineStart = false;
      } else {
        token();
        lineStart = false;
      }
    }
  }

 private:
  char peek(std::size_t i) const { return i < text_.size() ? text_[i].c : '\0'; }

  // The length of a '#' or '%:' at `i`, else 0.
  std::size_t hashAt(std::size_t i) const {
    if (peek(i) == '#') return 1;
    return peek(i) == '%' && peek(i + 1) == ':' ? 2 : 0;
  }

  // A comment at at_: skipped (it is a space), true.
  bool skipComment() {
    if (peek(at_) != '/') return false;
    if (peek(at_ + 1) == '/') {
      while (at_ < text_.size() && text_[at_].c != '\n') ++at_;
      return true;
    }
    if (peek(at_ + 1) != '*') return false;
    std::size_t i = at_ + 2;
    while (i < text_.size() && !(text_[i].c == '*' && peek(i + 1) == '/')) ++i;
    at_ = std::min(text_.size(), i + 2);
    return true;
  }

  void skipSpacesAndComments() {
    while (at_ < text_.size()) {
      if (isHorizontalSpace(text_[at_].c))
        ++at_;
      else if (!skipComment())
        return;
    }
  }

  std::string identifierAt(std::size_t i) const {
    std::string name;
    if (!isIdentifierStart(peek(i))) return name;
    while (i < text_.size() && isIdentifierChar(text_[i].c)) name += text_[i++].c;
    return name;
  }

  void refuse(std::size_t i, std::string message) {
    const Placed& place = text_[std::min(i, text_.size() - 1)];
    found_.push_back({place.line, place.column, true, std::move(message)});
  }

  // A directive whose '#' (of `length` characters) is at `hash`: refused where it reads a file.
  // at_ stays at the '#': the rest of the line is read as code (__has_include in an #if, ## in
  // a #define).
  void directive(std::size_t hash, std::size_t length) {
    const std::size_t start = at_;
    at_ = hash + length;
    skipSpacesAndComments();
    const std::string name = identifierAt(at_);
    if (name == "include" || name == "include_next" || name == "import" || name == "embed") {
      refuse(hash, "#" + name +
                       " reads a file, and a kernel is compiled from its own text alone (the ts:: "
                       "API is there already): write what you need into the kernel");
    } else if (name == "line" || std::isdigit(static_cast<unsigned char>(peek(at_)))) {
      refuse(hash,
             "#line is refused in a kernel: the compiler opens the file a #line names to quote "
             "it in its messages");
    } else if (name == "pragma") {
      at_ += name.size();
      skipSpacesAndComments();
      const std::string space = identifierAt(at_);
      at_ += space.size();
      skipSpacesAndComments();
      const std::string sub = identifierAt(at_);
      if (!allowedPragma(space, sub))
        refuse(hash, "#pragma " + space + (space == "GCC" || space == "clang" ? " " + sub : "") +
                         " is refused in a kernel: some pragmas read files; a kernel may use "
                         "#pragma unroll, GCC unroll, ivdep and diagnostic, clang loop and the "
                         "nv_diag pragmas");
    }
    at_ = start;
  }

  // Reads one token at at_ (an identifier, a number, a literal, a punctuator).
  void token() {
    const char c = text_[at_].c;
    if (isIdentifierStart(c)) {
      const std::string name = identifierAt(at_);
      const std::size_t start = at_;
      at_ += name.size();
      if (name == "_Pragma" || name == "__pragma")
        refuse(start, name +
                          " is refused in a kernel: it could run a pragma that reads a file; "
                          "write #pragma on a line of its own");
      else if (name.rfind("__has_include", 0) == 0 || name.rfind("__has_embed", 0) == 0)
        refuse(start, name + " looks for a file, and a kernel is compiled from its own text alone");
      if (peek(at_) == '"' &&
          (name == "R" || name == "u8R" || name == "uR" || name == "UR" || name == "LR"))
        rawString();
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && std::isdigit(static_cast<unsigned char>(peek(at_ + 1))))) {
      // A preprocessing number: digits, letters, '.', digit separators, signed exponents.
      ++at_;
      while (at_ < text_.size()) {
        const char d = text_[at_].c;
        if ((d == '+' || d == '-') && std::strchr("eEpP", text_[at_ - 1].c))
          ++at_;
        else if (d == '\'' && isIdentifierChar(peek(at_ + 1)))
          at_ += 2;
        else if (isIdentifierChar(d) || d == '.')
          ++at_;
        else
          break;
      }
      return;
    }
    if (c == '"' || c == '\'') {
      // To the closing quote on this line; unterminated, the quote alone (the rest is code).
      std::size_t i = at_ + 1;
      while (i < text_.size() && text_[i].c != c && text_[i].c != '\n')
        i += text_[i].c == '\\' && peek(i + 1) != '\n' ? 2 : 1;
      at_ = i < text_.size() && text_[i].c == c ? i + 1 : at_ + 1;
      return;
    }
    ++at_;
  }

  // R"delimiter( ... )delimiter" from its quote at at_; without its end, the quote alone.
  void rawString() {
    std::size_t i = at_ + 1;
    std::string delimiter;
    while (i < text_.size() && delimiter.size() <= 16 &&
           !std::strchr("()\\ \t\f\v\n\"", text_[i].c))
      delimiter += text_[i++].c;
    if (peek(i) != '(') {
      ++at_;
      return;
    }
    const std::string end = ")" + delimiter + "\"";
    for (std::size_t j = i + 1; j + end.size() <= text_.size(); ++j) {
      std::size_t k = 0;
      while (k < end.size() && text_[j + k].c == end[k]) ++k;
      if (k == end.size()) {
        at_ = j + end.size();
        return;
      }
    }
    ++at_;
  }

  const std::vector<Placed>& text_;
  std::vector<CompileDiagnostic>& found_;
  std::size_t at_ = 0;
};

// A diagnostic at each directive or operator of `source` that would read a file.
std::vector<CompileDiagnostic> fileReads(const std::string& source) {
  std::vector<CompileDiagnostic> found;
  for (const bool lenient : {false, true}) {
    std::vector<CompileDiagnostic> reading;
    FileReadScanner(spliced(source, lenient), reading).scan();
    for (CompileDiagnostic& d : reading)
      if (std::none_of(found.begin(), found.end(), [&](const CompileDiagnostic& f) {
            return f.line == d.line && f.message == d.message;
          }))
        found.push_back(std::move(d));
  }
  std::sort(found.begin(), found.end(), [](const CompileDiagnostic& a, const CompileDiagnostic& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  return found;
}

}  // namespace

CompileResult prepareCompile(const UserKernelSource& kernel, const CompileOptions& options) {
  CompileResult result;
  result.arch = options.arch;
  result.diagnostics = fileReads(kernel.source);
  result.params = declaredParams(kernel.source, &result.diagnostics);
  const std::vector<ElementType> types = declaredTypes(kernel.source, &result.diagnostics);
  if (std::find(types.begin(), types.end(), options.element) == types.end()) {
    std::string listed;
    for (const ElementType type : types)
      listed += (listed.empty() ? "" : ", ") + std::string(toString(type));
    result.diagnostics.push_back({0, 0, true,
                                  std::string("the kernel multiplies ") + listed + ", not " +
                                      toString(options.element) +
                                      " (TS_TYPES lists the types it takes)"});
  }
  for (const auto& given : options.params) {
    const std::string& name = given.first;
    const int value = given.second;
    const auto spec = std::find_if(result.params.begin(), result.params.end(),
                                   [&](const ParamSpec& p) { return p.name == name; });
    if (spec == result.params.end())
      result.diagnostics.push_back({0, 0, true, "the source declares no parameter " + name});
    else if (!std::binary_search(spec->allowed.begin(), spec->allowed.end(), value))
      result.diagnostics.push_back(
          {0, 0, true, name + " = " + std::to_string(value) + " " + spec->refusal});
  }
  for (const ParamSpec& spec : result.params) {
    const auto given = options.params.find(spec.name);
    result.values[spec.name] = given == options.params.end() ? spec.defaultValue : given->second;
  }
  return result;
}

CompileResult compileUserKernel(const UserKernelSource& kernel, const CompileOptions& options) {
  CompileResult result = prepareCompile(kernel, options);
  if (!result.diagnostics.empty()) return result;
  if (const std::optional<std::string> why = userKernelCompilerUnavailable()) {
    result.diagnostics.push_back({0, 0, true, *why});
    return result;
  }
#ifdef TILESCOPE_HAVE_NVRTC_HEADER
  const Nvrtc& api = nvrtc();
  const std::string file = (kernel.name.empty() ? std::string("kernel") : kernel.name) + ".cu";
  // The API names its own files (tilescope_api.cuh, ts/...): a message there is TileScope's.
  const std::string text = userApiHeader() + "#line 1 \"" + file + "\"\n" + kernel.source;
  nvrtcProgram program = nullptr;
  if (nvrtcResult created =
          api.createProgram(&program, text.c_str(), file.c_str(), 0, nullptr, nullptr);
      created != NVRTC_SUCCESS) {
    result.diagnostics.push_back({0, 0, true, api.getErrorString(created)});
    return result;
  }
  std::vector<std::string> arguments = {"--gpu-architecture=" + options.arch, "-Xptxas", "-v",
                                        "-lineinfo", "--std=c++17"};
  for (const auto& [name, value] : result.values)
    arguments.push_back("-D" + name + "=" + std::to_string(value));
  if (options.trace) arguments.push_back("-DTS_TRACE");
  // ts::Element: float unless the type says otherwise (tf32 operands are floats too).
  if (options.element == ElementType::TF32) arguments.push_back("-DTS_TF32");
  if (options.element == ElementType::F16) arguments.push_back("-DTS_FP16");
  if (options.element == ElementType::BF16) arguments.push_back("-DTS_BF16");
  std::vector<const char*> argv;
  for (const std::string& argument : arguments) argv.push_back(argument.c_str());
  const nvrtcResult compiled = api.compileProgram(program, int(argv.size()), argv.data());
  std::size_t logSize = 0;
  api.getProgramLogSize(program, &logSize);
  result.log.assign(logSize, '\0');
  if (logSize > 0) api.getProgramLog(program, result.log.data());
  if (!result.log.empty() && result.log.back() == '\0') result.log.pop_back();
  readDiagnostics(result.log, file, result);
  if (compiled == NVRTC_SUCCESS) {
    std::size_t size = 0;
    if (api.getCubinSize(program, &size) == NVRTC_SUCCESS && size > 0) {
      result.image.assign(size, '\0');
      api.getCubin(program, result.image.data());
    }
    // ptxas reports the resources, but not in a process that has initialised CUDA (measured on
    // an H200 with CUDA 13.0: the log is empty there), so the entry points are looked up in the
    // image itself and the resources may be missing.
    result.resources = readResources(result.log);
    if (const auto block = declaredBlock(kernel.source, result.values); block && result.resources) {
      result.resources->threadsPerBlock = block->x * block->y;
      if (auto resident = withTheoreticalOccupancy(options.arch, *result.resources))
        result.resources = resident;
    }
    result.declaresKStep = defines(result.image, "ts_kstep");
    result.declaresTensorMaps = defines(result.image, "ts_tensor_maps");
    result.declaresCluster = defines(result.image, "ts_cluster");
    result.declaresPersistent = defines(result.image, "ts_persistent");
    if (!defines(result.image, "ts_kernel"))
      result.diagnostics.push_back(
          {0, 0, true, "the source has no kernel: write TS_KERNEL { ... }"});
    if (!defines(result.image, "ts_launch"))
      result.diagnostics.push_back(
          {0, 0, true,
           "the source has no launch: write TS_LAUNCH(blockX, blockY, gridX, gridY, sharedBytes)"});
  } else if (std::none_of(result.diagnostics.begin(), result.diagnostics.end(),
                          [](const CompileDiagnostic& d) { return d.error; })) {
    result.diagnostics.push_back({0, 0, true, api.getErrorString(compiled)});
  }
  api.destroyProgram(&program);
  result.ok = compiled == NVRTC_SUCCESS &&
              std::none_of(result.diagnostics.begin(), result.diagnostics.end(),
                           [](const CompileDiagnostic& d) { return d.error; });
  if (!result.ok) result.image.clear();
#endif
  return result;
}

}  // namespace tilescope
