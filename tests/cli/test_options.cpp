// SPDX-License-Identifier: GPL-3.0-or-later
// The option table both command lines are built from: tilescope-bench's CLI11 parser takes each
// of its options under the table's name and help, the deprecated spellings mean their options,
// --backend KIND@SERVER finds the app's servers, and the generated man pages list every option.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "command_line.hpp"
#include "tilescope/cli/options.hpp"
#include "tilescope/error.hpp"
#include "tilescope/remote/server_list.hpp"

namespace {

using namespace tilescope;
using cli::Program;

// A value each option takes, where "1" would not do.
std::vector<std::string> argumentsFor(const cli::OptionSpec& option) {
  static const std::map<std::string_view, std::vector<std::string>> kValues = {
      {"format", {"json"}},
      {"fill", {"integer"}},
      {"type", {"fp16"}},
      {"trace", {"trace.json", "--kernel-file", "mine.cu"}},
      {"trace-block", {"1,2", "--trace", "trace.json", "--kernel-file", "mine.cu"}},
  };
  std::vector<std::string> arguments = {"--" + std::string(option.name)};
  if (option.isFlag()) return arguments;
  const auto found = kValues.find(option.name);
  const std::vector<std::string> value =
      found == kValues.end() ? std::vector<std::string>{"1"} : found->second;
  arguments.insert(arguments.end(), value.begin(), value.end());
  return arguments;
}

// Parses `arguments` as tilescope-bench does; the parsed options in `cl`.
void parseBench(CLI::App& app, bench::CommandLine& cl, std::vector<std::string> arguments) {
  bench::declareOptions(app, cl);
  // CLI11 takes the arguments last first.
  std::reverse(arguments.begin(), arguments.end());
  app.parse(arguments);
}

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// An option's name as the man page sets it in bold, its hyphens escaped.
std::string manName(std::string_view name) {
  std::string escaped = "\\fB\\-\\-";
  for (const char c : name) escaped += c == '-' ? std::string("\\-") : std::string(1, c);
  return escaped + "\\fR";
}

TEST(OptionTable, NamesOneOptionPerProgramAndNoAliasTwice) {
  for (const Program program : {Program::App, Program::Bench}) {
    std::set<std::string_view> names;
    for (const cli::OptionSpec* option : cli::optionsOf(program)) {
      EXPECT_TRUE(names.insert(option->name).second) << option->name;
      for (const cli::DeprecatedAlias& alias : option->aliases)
        EXPECT_TRUE(names.insert(alias.name).second) << alias.name;
      EXPECT_FALSE(option->help.empty()) << option->name;
      EXPECT_EQ(option->help.back(), '.') << option->name;
    }
  }
}

TEST(OptionTable, SharedMeasurementOptionsHaveOneSpelling) {
  for (const char* name :
       {"budget-ms", "ceilings", "backend", "device", "kernel", "tile", "param", "type", "size",
        "m", "n", "k", "sweep", "reps", "no-verify", "counters", "kernel-file"}) {
    const cli::OptionSpec& app = cli::option(name, Program::App);
    EXPECT_EQ(&app, &cli::option(name, Program::Bench)) << name;
  }
  EXPECT_EQ(cli::option("budget-ms", Program::Bench).unit, "milliseconds");
  EXPECT_THROW(cli::option("quit", Program::Bench), std::logic_error);
}

TEST(BenchOptions, AcceptEveryOptionOfTheTableWithItsHelp) {
  for (const cli::OptionSpec* option : cli::optionsOf(Program::Bench)) {
    SCOPED_TRACE(option->name);
    CLI::App app;
    bench::CommandLine cl;
    try {
      parseBench(app, cl, argumentsFor(*option));
    } catch (const CLI::ParseError& error) {
      // --help and --version stop the parse with exit status 0.
      EXPECT_EQ(error.get_exit_code(), 0) << error.what();
    }
    const CLI::Option* parsed = app.get_option("--" + std::string(option->name));
    EXPECT_EQ(parsed->count(), 1u);
    EXPECT_EQ(parsed->get_description(), option->help);
    if (!option->shortName.empty()) {
      EXPECT_TRUE(parsed->check_sname(std::string(option->shortName)));
    }
  }
  CLI::App app;
  bench::CommandLine cl;
  EXPECT_THROW(parseBench(app, cl, {"--quit"}), CLI::ExtrasError) << "an option of the app only";
}

TEST(BenchOptions, DeprecatedSpellingsMeanTheirOptionsWithANote) {
  const auto parsed = [](std::vector<std::string> arguments, std::vector<std::string>* notes) {
    CLI::App app;
    bench::CommandLine cl;
    parseBench(app, cl, std::move(arguments));
    *notes = bench::applyDeprecatedSpellings(app, cl);
    return cl;
  };
  std::vector<std::string> notes;
  const bench::CommandLine seconds = parsed({"--budget", "2"}, &notes);
  EXPECT_EQ(seconds.budgetMs, "2000");
  EXPECT_EQ(notes, std::vector<std::string>{"--budget is now --budget-ms (milliseconds)"});
  const bench::CommandLine milliseconds = parsed({"--budget-ms", "2000"}, &notes);
  EXPECT_EQ(milliseconds.budgetMs, seconds.budgetMs);
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(parsed({"--budget", "0.25"}, &notes).budgetMs, "250");

  const bench::CommandLine measured = parsed({"--measure-ceilings"}, &notes);
  EXPECT_TRUE(measured.ceilings);
  EXPECT_EQ(notes, std::vector<std::string>{"--measure-ceilings is now --ceilings"});

  try {
    parsed({"--budget", "inf"}, &notes);
    FAIL() << "an infinite budget";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("--budget = 'inf' is out of range"), std::string::npos)
        << error.what();
  }
  CLI::App app;
  bench::CommandLine cl;
  EXPECT_THROW(parseBench(app, cl, {"--budget", "2", "--budget-ms", "2000"}), CLI::ExcludesError);
}

TEST(ServerBackend, NamesAConfiguredServerRunningTheGivenBackend) {
  const std::vector<remote::ServerAddress> configured = {
      {"gpu1", "ssh gpu1 tilescope-bench --serve", "cuda"},
      {"gpu2", "ssh gpu2 tilescope-bench --serve", "cuda"}};
  EXPECT_FALSE(remote::serverBackend("cuda", configured));
  const std::optional<remote::ServerAddress> cpu = remote::serverBackend("cpu@gpu2", configured);
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->name, "gpu2");
  EXPECT_EQ(cpu->command, "ssh gpu2 tilescope-bench --serve");
  EXPECT_EQ(cpu->backend, "cpu");
  EXPECT_EQ(remote::backendIdOf(*cpu), "cpu@gpu2");
  EXPECT_EQ(remote::serverBackend("cuda@gpu1", configured)->backend, "cuda");
}

TEST(ServerBackend, RefusesAnUnknownServerNamingIt) {
  const auto messageOf = [](const std::string& backend,
                            const std::vector<remote::ServerAddress>& configured) {
    try {
      remote::serverBackend(backend, configured);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(messageOf("cuda@nosuchserver", {{"gpu1", "ssh gpu1 tilescope-bench --serve", "cuda"}}),
            "--backend 'cuda@nosuchserver': no run server named 'nosuchserver' (configured: "
            "gpu1; add one in tilescope: Backend > GPU Server...)");
  EXPECT_NE(messageOf("cuda@nosuchserver", {}).find("none is configured"), std::string::npos);
  EXPECT_NE(messageOf("tpu@gpu1", {}).find("the backend before '@' is cpu or cuda"),
            std::string::npos);
}

TEST(ServerBackend, ReadsTheServersTheAppKeeps) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "tilescope-cli-test-settings.json").string();
  std::ofstream(path) << R"({"lastChoices": {}, "servers": [
      {"name": "gpu1", "command": "ssh gpu1 tilescope-bench --serve", "backend": "cuda"},
      {"name": "", "command": "left out: no name"},
      {"name": 5, "command": "left out: a number for a name"},
      {"name": "odd", "command": ["ssh"]},
      7,
      {"name": "box", "command": "ssh box tilescope-bench --serve"}]})";
  const remote::ConfiguredServers configured = remote::readConfiguredServers(path);
  std::filesystem::remove(path);
  const std::vector<remote::ServerAddress>& servers = configured.servers;
  ASSERT_EQ(servers.size(), 2u);
  EXPECT_EQ(servers[0].name, "gpu1");
  EXPECT_EQ(servers[1].name, "box");
  EXPECT_EQ(servers[1].backend, "cuda") << "the app's default";
  // Each entry left out is said, with the file, the entry and why.
  const std::vector<std::string> expected = {
      "servers[1]: the server has no name", "servers[2].name: 5 is not a string",
      "servers[3].command: [\"ssh\"] is not a string", "servers[4]: 7 is not a JSON object"};
  ASSERT_EQ(configured.problems.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NE(configured.problems[i].find(path), std::string::npos) << configured.problems[i];
    EXPECT_NE(configured.problems[i].find(expected[i] + "; that server is left out"),
              std::string::npos)
        << configured.problems[i];
  }
  EXPECT_TRUE(remote::readConfiguredServers(path).servers.empty()) << "no file, no servers";
}

void expectManPageListsEveryOption(Program program) {
  const std::string name(cli::programSpec(program).name);
  const std::string page = readText(TILESCOPE_MAN_DIR "/" + name + ".1");
  ASSERT_FALSE(page.empty()) << name << ".1 was not generated";
  for (const char* section : {".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS",
                              ".SH EXAMPLES", ".SH SEE ALSO"})
    EXPECT_NE(page.find(section), std::string::npos) << name << ": " << section;
  for (const cli::OptionSpec& option : cli::allOptions()) {
    // The item's first line: the names and the value's name (the two --autotune differ there).
    std::string item = ".TP\n";
    if (!option.shortName.empty()) item += "\\fB\\-" + std::string(option.shortName) + "\\fR, ";
    item += manName(option.name);
    if (!option.isFlag()) item += " \\fI" + std::string(option.valueName) + "\\fR";
    const bool listed = page.find(item + "\n") != std::string::npos;
    EXPECT_EQ(listed, option.takes(program)) << name << ": " << item;
    for (const cli::DeprecatedAlias& alias : option.aliases)
      if (option.takes(program)) {
        EXPECT_NE(page.find(manName(alias.name)), std::string::npos) << name << ": " << alias.name;
      }
  }
}

TEST(ManPages, BenchPageListsEveryOptionOfTheBench) {
  expectManPageListsEveryOption(Program::Bench);
}

#ifdef TILESCOPE_APP_MAN_PAGE
TEST(ManPages, AppPageListsEveryOptionOfTheApp) {
  expectManPageListsEveryOption(Program::App);
}
#endif

}  // namespace
