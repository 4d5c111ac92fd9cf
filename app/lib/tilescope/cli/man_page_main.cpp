// SPDX-License-Identifier: GPL-3.0-or-later
// Writes a program's man page from the option table, at build time:
// tilescope-man-page {tilescope|tilescope-bench} VERSION OUTPUT.1
#include <cstdio>
#include <fstream>
#include <string_view>

#include "tilescope/cli/man_page.hpp"

int main(int argc, char** argv) {
  using namespace tilescope::cli;
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s {tilescope|tilescope-bench} VERSION OUTPUT.1\n", argv[0]);
    return 2;
  }
  const std::string_view name = argv[1];
  if (name != programSpec(Program::App).name && name != programSpec(Program::Bench).name) {
    std::fprintf(stderr, "%s: unknown program '%s'\n", argv[0], argv[1]);
    return 2;
  }
  const Program program = name == programSpec(Program::App).name ? Program::App : Program::Bench;
  std::ofstream out(argv[3], std::ios::binary | std::ios::trunc);
  out << manPage(program, argv[2]);
  out.close();
  if (!out) {
    std::fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[3]);
    return 1;
  }
  return 0;
}
