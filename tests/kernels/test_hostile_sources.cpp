// SPDX-License-Identifier: GPL-3.0-or-later
// Hostile user kernels (issue #37): lines tens of kilobytes long, parentheses nested 60,000 deep,
// compiler logs quoting them, and sources that try to make a compiler read a file. Each is read
// in one pass and refused with a message that names its line, or works; none may crash (these
// tests run under the asan preset too).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "tilescope/catalogue.hpp"
#include "tilescope/error.hpp"
#include "tilescope/host_kernel.hpp"
#include "tilescope/user_kernel.hpp"
#include "user/compiler_logs.hpp"

namespace tilescope {
namespace {

std::string repeated(const std::string& text, std::size_t times) {
  std::string out;
  out.reserve(text.size() * times);
  for (std::size_t i = 0; i < times; ++i) out += text;
  return out;
}

// `line` padded with spaces to `length` characters.
std::string padded(std::string line, std::size_t length) {
  line.resize(length, ' ');
  return line;
}

const std::string kLimit = "; the limit is 4,096: split it into shorter lines";

std::string messageOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(HostileSource, ADeclarationLineTensOfKilobytesLongIsReadThenRefusedWithItsLength) {
  // 20,000 allowed values of TILE and 10,000 element types, each line 61,440 characters long.
  const std::string params = padded("TS_PARAM(TILE, 1, 1" + repeated(", 2", 20000) + ")", 61440);
  const std::string types = padded("TS_TYPES(fp32" + repeated(", fp16", 10000) + ")", 61440);
  const std::string source = "// mine\n" + params + "\n" + types + "\nTS_KERNEL {}\n";
  // Read in one pass, as any line is.
  std::vector<CompileDiagnostic> problems;
  const std::vector<ParamSpec> declared = declaredParams(source, &problems);
  ASSERT_EQ(declared.size(), 1u);
  EXPECT_EQ(declared[0].allowed, (std::vector<int>{1, 2}));
  EXPECT_EQ(declaredTypes(source, &problems),
            (std::vector<ElementType>{ElementType::F32, ElementType::F16}));
  EXPECT_TRUE(problems.empty());
  // Refused at their lines before anything else reads them.
  const std::vector<CompileDiagnostic> overlong = overlongLines(source);
  ASSERT_EQ(overlong.size(), 2u);
  EXPECT_EQ(overlong[0].line, 2);
  EXPECT_EQ(overlong[1].line, 3);
  EXPECT_EQ(overlong[0].message, "the line is 61,440 characters long" + kLimit);
  EXPECT_EQ(prepareCompile({"mine", source}, {}).diagnostics, overlong);
  EXPECT_EQ(messageOf([&] { userKernelInfo("mine", source); }),
            "mine.cu line 2: the line is 61,440 characters long" + kLimit);
  // A run, a sweep, an autotune or a trace asks refusal() first.
  EXPECT_EQ(refusal(KernelConfig{"user:mine", {}, source}),
            "mine.cu line 2: the line is 61,440 characters long" + kLimit);
  // The limit itself is allowed.
  EXPECT_TRUE(overlongLines(padded("int a;", kMaxUserSourceLineLength) + "\n").empty());
  EXPECT_EQ(overlongLines(padded("int a;", kMaxUserSourceLineLength + 1)).size(), 1u);
}

TEST(HostileSource, ADeclarationInACommentTensOfKilobytesLongIsNoDeclaration) {
  const std::string values = repeated(", 1", 20000);
  const std::string source = "// TS_PARAM(X, 1" + values + ")\n/* TS_TYPES(fp16" +
                             repeated(", fp16", 10000) + ") */\n/*\n TS_PARAM(Y, 1" + values +
                             "\n*/\n";
  std::vector<CompileDiagnostic> problems;
  EXPECT_TRUE(declaredParams(source, &problems).empty());
  EXPECT_EQ(declaredTypes(source, &problems), std::vector<ElementType>{ElementType::F32});
  EXPECT_TRUE(problems.empty());
  const std::vector<CompileDiagnostic> overlong = overlongLines(source);
  ASSERT_EQ(overlong.size(), 3u);
  EXPECT_EQ(overlong[2].line, 4);
}

TEST(HostileSource, ALaunchOfSixtyThousandParenthesesNeitherOverflowsNorCounts) {
  const std::string deep = "/*\nTS_LAUNCH(" + repeated("(", 60000) + "\n*/\n";
  EXPECT_FALSE(declaredBlock(deep, {}));
  const std::vector<CompileDiagnostic> overlong = prepareCompile({"mine", deep}, {}).diagnostics;
  ASSERT_EQ(overlong.size(), 1u);
  EXPECT_EQ(overlong[0].line, 2);
  EXPECT_EQ(overlong[0].message, "the line is 60,010 characters long" + kLimit);
  // Within the line limit, nesting past 64 levels is no block; 64 levels still are.
  const auto nested = [](int depth, const std::string& sign = "") {
    return "TS_LAUNCH(" + repeated(sign + "(", std::size_t(depth)) + "8" +
           repeated(")", std::size_t(depth)) + ", 4, 1, 1, 0)\n";
  };
  EXPECT_FALSE(declaredBlock(nested(2000), {}));
  EXPECT_FALSE(declaredBlock(nested(65), {}));
  ASSERT_TRUE(declaredBlock(nested(64), {}));
  EXPECT_EQ(declaredBlock(nested(64), {})->x, 8);
  EXPECT_EQ(declaredBlock(nested(64), {})->y, 4);
  EXPECT_FALSE(declaredBlock("TS_LAUNCH(" + repeated("-", 2000) + "8, 4, 1, 1, 0)\n", {}));
  EXPECT_EQ(declaredBlock("TS_LAUNCH(" + repeated("-", 64) + "8, 4, 1, 1, 0)\n", {})->x, 8);
}

// A log that quotes a 61,440-character identifier, and lines made to make a matcher backtrack.
TEST(HostileSource, CompilerLogsWithLinesTensOfKilobytesLongAreReadInOnePass) {
  const std::string name = repeated("a", 61440);
  const std::string nvrtc =
      "mine.cu(3): error: identifier \"" + name + "\" is undefined\n  int x = " + name +
      ";\n          ^\n\n" + repeated("(", 60000) + "\n" + repeated("(1): error", 6000) + "\n" +
      repeated("x(1): warning", 5000) + "\nmine.cu(" + repeated("9", 60000) + "): error: too far\n";
  const std::vector<CompileDiagnostic> read = nvrtcDiagnostics(nvrtc, "mine.cu");
  ASSERT_EQ(read.size(), 4u);
  EXPECT_EQ(read[0].line, 3);
  EXPECT_EQ(read[0].column, 9);
  EXPECT_EQ(read[0].message, "identifier \"" + name + "\" is undefined");
  // "(1): error(1): error...": a message of no file of the user's, as a regular expression reads
  // it too.
  EXPECT_EQ(read[1].line, 0);
  EXPECT_EQ(read[1].message, repeated("(1): error", 5999).substr(5));
  EXPECT_FALSE(read[2].error);
  EXPECT_EQ(read[3].line, 0);  // a line number past int: the whole program's
  EXPECT_EQ(read[3].message, "too far");

  const std::string host = "mine.cu:3:9: error: '" + name + "' was not declared\n" +
                           repeated("a:1", 20000) + "\n" + repeated(":1:1: error", 5000) + "\n" +
                           "mine.cu:" + repeated("7", 30000) + ":1: error: far\n";
  const std::vector<CompileDiagnostic> hostRead = hostCompilerDiagnostics(host, "mine.cu");
  ASSERT_EQ(hostRead.size(), 2u);
  EXPECT_EQ(hostRead[0].line, 3);
  EXPECT_EQ(hostRead[0].column, 9);
  EXPECT_EQ(hostRead[1].line, 0);
}

// The CPU backend's reading of __shared__ declarations, one pass per line.
TEST(HostileSource, SharedDeclarationsAreRewrittenForTheCpuInOnePass) {
  std::vector<CompileDiagnostic> problems;
  EXPECT_EQ(withHostSharedMemory("  __shared__ float a[16][17];\n"
                                 "__shared__ __align__(16) unsigned int b [4] [2] ; // b\n"
                                 "__shared__ ts::Element alignas(8) c;\n"
                                 "extern __shared__ float d[];\n",
                                 &problems),
            "  using ts_shared_a = float[16][17]; decltype(auto) a = "
            "ts::host::shared<ts_shared_a, alignof(ts_shared_a)>(0, \"a\");\n"
            "using ts_shared_b = unsigned int[4] [2] ; decltype(auto) b = "
            "ts::host::shared<ts_shared_b, 16>(1, \"b\"); // b\n"
            "using ts_shared_c = ts::Element; decltype(auto) c = ts::host::shared<ts_shared_c, "
            "8>(2, \"c\");\n"
            "using ts_shared_d = float; decltype(auto) d = ts::host::dynamicShared<float, "
            "alignof(ts_shared_d)>(\"d\");\n");
  EXPECT_TRUE(problems.empty());
  // Two variables, no name, an unsized extern, and 60,000 characters of words or brackets.
  const std::string source =
      "__shared__ float a, b;\n__shared__ float;\nextern __shared__ float "
      "e[4];\n__shared__ " +
      repeated("float ", 10000) + "\n__shared__ float x" + repeated("[1]", 20000) +
      "\n// __shared__ float y, z;\n";
  problems.clear();
  const std::string kept = withHostSharedMemory(source, &problems);
  EXPECT_EQ(kept, source);
  ASSERT_EQ(problems.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(problems[std::size_t(i)].line, i + 1);
  EXPECT_EQ(problems[2].message, "extern __shared__ declares an array of no size");
}

class HostileCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto why = userKernelCompilerUnavailable()) GTEST_SKIP() << *why;
  }
  const std::string kernel_ = "TS_LAUNCH(32, 1, 1, 1, 0)\nTS_KERNEL {\n";
};

TEST_F(HostileCompile, ALongLineWithAnUndefinedIdentifierOrASyntaxErrorIsNamedAtItsLine) {
  // Past the limit: refused before NVRTC sees it.
  for (const std::string& line :
       {"  int x = " + repeated("a", 61440) + ";", "  int y = " + repeated("(", 61440) + ";"}) {
    const CompileResult refused = compileUserKernel({"mine", kernel_ + line + "\n}\n"}, {});
    EXPECT_FALSE(refused.ok);
    ASSERT_EQ(refused.diagnostics.size(), 1u);
    EXPECT_EQ(refused.diagnostics[0].line, 3);
    EXPECT_EQ(refused.diagnostics[0].message.substr(0, 12), "the line is ");
    EXPECT_TRUE(refused.log.empty());
  }
  // Within it: NVRTC's messages, quoting the line, are read back onto it.
  const std::string name = repeated("b", 4000);
  const CompileResult undefined =
      compileUserKernel({"mine", kernel_ + "  int x = " + name + ";\n}\n"}, {});
  EXPECT_FALSE(undefined.ok);
  ASSERT_FALSE(undefined.diagnostics.empty()) << undefined.log;
  EXPECT_EQ(undefined.diagnostics[0].line, 3);
  EXPECT_NE(undefined.diagnostics[0].message.find(name), std::string::npos);
  const CompileResult syntax =
      compileUserKernel({"mine", kernel_ + "  int y = " + repeated("(", 4000) + ";\n}\n"}, {});
  EXPECT_FALSE(syntax.ok);
  ASSERT_FALSE(syntax.diagnostics.empty()) << syntax.log;
  EXPECT_TRUE(syntax.diagnostics[0].error);
}

// A file with a word in it that no message may ever quote.
struct SecretFile {
  SecretFile() { std::ofstream(path) << "int tilescope_secret_word_4711 = 1;\n"; }
  ~SecretFile() { std::filesystem::remove(path); }
  const std::filesystem::path folder = std::filesystem::temp_directory_path();
  const std::string path =
      (folder / ("tilescope-secret-" + std::to_string(getpid()) + ".h")).string();
};

// Every way of naming it: absolute, relative with ../, in angle brackets, and through the name.
std::vector<UserKernelSource> sourcesReading(const SecretFile& secret) {
  const std::string file = std::filesystem::path(secret.path).filename().string();
  const std::string kernel = "TS_LAUNCH(32, 1, 1, 1, 0)\nTS_KERNEL {}\n";
  std::string up;
  const std::filesystem::path here = std::filesystem::current_path().relative_path();
  for (auto part = here.begin(); part != here.end(); ++part) up += "../";
  return {{"mine", "#include \"" + secret.path + "\"\n" + kernel},
          {"mine", "#include <" + secret.path + ">\n" + kernel},
          {"mine", "#include \"" + up + secret.folder.relative_path().string() + "/" + file +
                       "\"\n" + kernel},
          {"mine", "#if __has_include(\"" + secret.path + "\")\n#endif\n" + kernel},
          {"mine", "#line 1 \"" + secret.path + "\"\n" + kernel},
          {"mine\"\n#include \"" + secret.path + "\"\n#line 1 \"x", kernel}};
}

void expectRefusedUnread(const CompileResult& result, const std::string& what) {
  EXPECT_FALSE(result.ok) << what;
  ASSERT_FALSE(result.diagnostics.empty()) << what;
  EXPECT_EQ(result.log.find("tilescope_secret_word"), std::string::npos) << what;
  for (const CompileDiagnostic& d : result.diagnostics)
    EXPECT_EQ(d.message.find("tilescope_secret_word"), std::string::npos) << what;
}

TEST_F(HostileCompile, NvrtcNeverReadsAFileTheSourceNames) {
  const SecretFile secret;
  for (const UserKernelSource& source : sourcesReading(secret))
    expectRefusedUnread(compileUserKernel(source, {}), source.name + "\n" + source.source);
}

TEST(HostileSource, TheHostCompilerNeverReadsAFileTheSourceNames) {
  if (const auto why = hostCompilerUnavailable()) GTEST_SKIP() << *why;
  const SecretFile secret;
  for (const UserKernelSource& source : sourcesReading(secret)) {
    const CompileResult built = buildUserKernelForHost(source, {.arch = "host"});
    expectRefusedUnread(built, source.name + "\n" + source.source);
    EXPECT_TRUE(built.log.empty()) << "the compiler never ran";
  }
}

}  // namespace
}  // namespace tilescope
