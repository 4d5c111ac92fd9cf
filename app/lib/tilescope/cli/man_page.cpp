// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/cli/man_page.hpp"

#include <cctype>

namespace tilescope::cli {
namespace {

// Text as roff prints it: backslashes and hyphens escaped (a hyphen in an option must stay a
// plain ASCII minus to be copied into a shell), no line starting as a request.
std::string roff(std::string_view text) {
  std::string escaped;
  for (const char c : text) {
    if (c == '\\')
      escaped += "\\e";
    else if (c == '-')
      escaped += "\\-";
    else
      escaped += c;
  }
  if (!escaped.empty() && (escaped.front() == '.' || escaped.front() == '\''))
    escaped.insert(0, "\\&");
  return escaped;
}

std::string upper(std::string_view text) {
  std::string result(text);
  for (char& c : result) c = char(std::toupper(static_cast<unsigned char>(c)));
  return result;
}

std::string optionItem(const OptionSpec& spec) {
  std::string item = ".TP\n";
  if (!spec.shortName.empty()) item += "\\fB\\-" + roff(spec.shortName) + "\\fR, ";
  item += "\\fB\\-\\-" + roff(spec.name) + "\\fR";
  if (!spec.isFlag()) item += " \\fI" + roff(spec.valueName) + "\\fR";
  item.append("\n").append(roff(spec.help)).append("\n");
  for (const DeprecatedAlias& alias : spec.aliases) {
    item += "The old spelling \\fB\\-\\-" + roff(alias.name) + "\\fR";
    if (!alias.valueName.empty()) item += " \\fI" + roff(alias.valueName) + "\\fR";
    if (!alias.unit.empty()) item += " (in " + roff(alias.unit) + ")";
    item += " still works and says so on stderr.\n";
  }
  return item;
}

}  // namespace

std::string manPage(Program program, std::string_view version) {
  const ProgramSpec& spec = programSpec(program);
  std::string page = ".TH " + upper(roff(spec.name)) + " 1 \"\" \"TileScope " + roff(version) +
                     "\" \"User Commands\"\n";
  // No hyphenation and a ragged right edge: names and commands stay whole, as they are typed.
  page += ".nh\n.ad l\n";
  page += ".SH NAME\n" + roff(spec.name) + " \\- " + roff(spec.summary) + "\n";
  page += ".SH SYNOPSIS\n";
  for (std::size_t i = 0; i < spec.synopsis.size(); ++i) {
    const std::string_view line = spec.synopsis[i];
    const std::size_t space = line.find(' ');
    page += (i ? ".br\n" : "") + std::string("\\fB") + roff(line.substr(0, space)) + "\\fR";
    if (space != std::string_view::npos) page += roff(line.substr(space));
    page += "\n";
  }
  page += ".SH DESCRIPTION\n" + roff(spec.description) + "\n";
  for (const auto& [title, text] : spec.topics)
    page += ".SS " + roff(title) + "\n" + roff(text) + "\n";
  page += ".SH OPTIONS\n";
  for (const OptionSpec* option : optionsOf(program)) page += optionItem(*option);
  page += ".SH EXAMPLES\n";
  for (const auto& [command, what] : spec.examples)
    page += ".TP\n\\fB" + roff(command) + "\\fR\n" + roff(what) + "\n";
  page += ".SH SEE ALSO\n";
  for (std::size_t i = 0; i < spec.seeAlso.size(); ++i) {
    const std::string_view reference = spec.seeAlso[i];
    const std::size_t paren = reference.find('(');
    page += ".BR " + roff(reference.substr(0, paren)) + " " + std::string(reference.substr(paren)) +
            (i + 1 < spec.seeAlso.size() ? " ," : "") + "\n";
  }
  return page;
}

}  // namespace tilescope::cli
