// SPDX-License-Identifier: GPL-3.0-or-later
// Refusing preprocessing that reads a file (file_reads.hpp).
#include "user/file_reads.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <tuple>

namespace tilescope {

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

}  // namespace

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

}  // namespace tilescope
