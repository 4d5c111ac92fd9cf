// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The options of both command lines, `tilescope` and `tilescope-bench`, as plain data: each
// program's parser (QCommandLineParser, CLI11) and its man page are built from this one table,
// so an option has the same name, unit and help text wherever it is taken. No Qt, no CLI11.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::cli {

enum class Program { App, Bench };

// Which programs take an option: a set of Program bits.
enum Programs : unsigned { kApp = 1u << 0, kBench = 1u << 1, kBoth = kApp | kBench };

// An old spelling that still works: it prints deprecationNote() on stderr and means the option,
// its value multiplied by `scale` (--budget 2 is --budget-ms 2000).
struct DeprecatedAlias {
  std::string_view name;       // without dashes
  std::string_view valueName;  // "SECONDS"; empty for a flag
  std::string_view unit;       // of its value, where it differs from the option's
  double scale = 1;
};

struct OptionSpec {
  std::string_view name;       // without dashes: "budget-ms"
  std::string_view shortName;  // "o" for -o, or empty
  std::string_view valueName;  // "MS"; empty for a flag
  std::string_view unit;       // of the value, where it has one: "milliseconds"
  std::string_view help;       // one line, ending in a full stop
  unsigned programs = kBoth;
  std::vector<DeprecatedAlias> aliases = {};

  bool takes(Program program) const;
  bool isFlag() const { return valueName.empty(); }
};

// Text of a program's --help and man page beyond its options.
struct ProgramSpec {
  std::string_view name;     // "tilescope-bench"
  std::string_view summary;  // the man page's NAME line
  std::vector<std::string_view> synopsis;
  std::string_view description;  // a paragraph
  // Topics with a title each ("Sweeps"), in --help under the options and in the man page under
  // DESCRIPTION.
  std::vector<std::pair<std::string_view, std::string_view>> topics;
  // A command and what it does.
  std::vector<std::pair<std::string_view, std::string_view>> examples;
  std::vector<std::string_view> seeAlso;
};

// Every option, in the order --help and the man pages list them.
std::span<const OptionSpec> allOptions();
// The options `program` takes, in table order.
std::vector<const OptionSpec*> optionsOf(Program program);
// The option `program` takes under `name`; throws std::logic_error when the table has none (a
// parser asking for an option the table lacks is a programming error).
const OptionSpec& option(std::string_view name, Program program);

const ProgramSpec& programSpec(Program program);

// "--budget is now --budget-ms (milliseconds)".
std::string deprecationNote(const OptionSpec& option, const DeprecatedAlias& alias);
// "--budget-ms MS" or "-o, --output FILE".
std::string usageOf(const OptionSpec& option);
// The topics and the examples as --help prints them under the options.
std::string helpFooter(Program program);

}  // namespace tilescope::cli
