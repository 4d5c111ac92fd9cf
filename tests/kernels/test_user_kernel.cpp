// SPDX-License-Identifier: GPL-3.0-or-later
// User kernels compiled with NVRTC: parameters read from the source, errors and warnings at the
// user's lines and columns, resources from ptxas, every template compiling for sm_75 and sm_90.
// No GPU is needed; without NVRTC the compile tests skip and the refusal is checked instead.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tilescope/error.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope {
namespace {

class UserKernelCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto why = userKernelCompilerUnavailable()) GTEST_SKIP() << *why;
  }
};

const std::string& templateOf(const std::string& kernel) {
  if (const UserKernelTemplate* t = userKernelTemplate(kernel)) return t->source;
  throw std::runtime_error("no template of " + kernel);
}

std::string describe(const CompileResult& result) {
  std::string text = result.log;
  for (const CompileDiagnostic& d : result.diagnostics)
    text += "\n[" + std::to_string(d.line) + ":" + std::to_string(d.column) + "] " + d.message;
  return text;
}

TEST(UserKernelParams, DeclarationsAreReadAndMistakesNamedAtTheirLines) {
  std::vector<CompileDiagnostic> problems;
  const std::vector<ParamSpec> params = declaredParams(
      "// TS_PARAM(COMMENTED, 1) is not at the start of a line\n"
      "TS_PARAM(TILE, 16, 32, 8, 16)\n"
      "  TS_PARAM( PAD , 0, 0, 1 )\n"
      "TS_PARAM(BAD, 3, 1, 2)\n"
      "TS_PARAM(WORD, x)\n"
      "TS_PARAM(TILE, 8)\n"
      "TS_PARAM(ALONE, 4)\n",
      &problems);
  ASSERT_EQ(params.size(), 3u);
  EXPECT_EQ(params[0].name, "TILE");
  EXPECT_EQ(params[0].defaultValue, 16);
  EXPECT_EQ(params[0].allowed, (std::vector<int>{8, 16, 32}));
  EXPECT_EQ(params[1].name, "PAD");
  EXPECT_EQ(params[1].allowed, (std::vector<int>{0, 1}));
  EXPECT_EQ(params[2].name, "ALONE");
  EXPECT_EQ(params[2].allowed, (std::vector<int>{4}));
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0].line, 4);
  EXPECT_NE(problems[0].message.find("default 3 is not one of the allowed"), std::string::npos);
  EXPECT_EQ(problems[1].line, 5);
  EXPECT_NE(problems[1].message.find("'x' is not a whole number"), std::string::npos);
  EXPECT_EQ(problems[2].line, 6);
  EXPECT_NE(problems[2].message.find("declared twice"), std::string::npos);
}

TEST(UserKernelEntry, ItsParametersComeFromTheSourceAndItRunsOnCudaOnly) {
  const KernelInfo info = userKernelInfo("mine", templateOf("shared-tiled"));
  EXPECT_EQ(info.id, "user:mine");
  EXPECT_EQ(info.displayName, "mine");
  EXPECT_TRUE(isUserKernelId(info.id));
  EXPECT_EQ(info.backends, (std::vector<std::string>{"cpu", "cuda"}));
  EXPECT_EQ(info.types, std::vector<ElementType>{ElementType::F32});
  EXPECT_FALSE(info.hasMapping);
  ASSERT_EQ(info.params.size(), 2u);
  EXPECT_EQ(info.params[0].name, "TILE");
  EXPECT_EQ(info.params[0].defaultValue, 16);
  EXPECT_EQ(info.params[0].allowed, (std::vector<int>{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(info.params[1].name, "PAD");
  EXPECT_EQ(info.params[1].allowed, (std::vector<int>{0, 1}));
}

// TS_TYPES lists the element types, its first the default; tensor-mma's template takes its
// catalogue kernel's three, and a type it does not list is refused by the run and the compiler.
TEST(UserKernelEntry, ItsTypesComeFromTheSource) {
  const KernelInfo tensor = userKernelInfo("mine", templateOf("tensor-mma"));
  EXPECT_EQ(tensor.types, kernelInfo("tensor-mma").types);
  EXPECT_EQ(declaredTypes("TS_TYPES( bf16 ,fp32, bf16)\n"),
            (std::vector<ElementType>{ElementType::BF16, ElementType::F32}));
  // The FP8 types, as the catalogue's tensor-fp8 takes them.
  EXPECT_EQ(declaredTypes("TS_TYPES(e5m2, e4m3)\n"),
            (std::vector<ElementType>{ElementType::E5M2, ElementType::E4M3}));
  EXPECT_EQ(userKernelInfo("mine", templateOf("tensor-fp8")).types,
            (std::vector<ElementType>{ElementType::E4M3, ElementType::E5M2}));
  EXPECT_TRUE(elementRefusal(tensor, ElementType::F32));
  EXPECT_FALSE(elementRefusal(tensor, ElementType::BF16));
  std::vector<CompileDiagnostic> problems;
  EXPECT_EQ(declaredTypes("// mine\nTS_TYPES(fp16, int8)\nTS_TYPES(fp16)\n", &problems),
            std::vector<ElementType>{ElementType::F32});
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].line, 2);
  EXPECT_EQ(problems[0].message,
            "TS_TYPES: 'int8' is not an element type (fp32, tf32, fp16, bf16, e4m3 or e5m2)");
  EXPECT_EQ(problems[1].line, 3);
  EXPECT_EQ(problems[1].message, "TS_TYPES is declared twice");
  problems.clear();
  EXPECT_EQ(declaredTypes("TS_TYPES( )\n", &problems), std::vector<ElementType>{ElementType::F32});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].message, "TS_TYPES lists no element type");
  EXPECT_THROW(userKernelInfo("mine", "TS_TYPES(fp64)\n"), Error);
  const CompileResult refused =
      compileUserKernel({"mine", templateOf("tensor-mma")}, {"sm_90", {}, ElementType::F32});
  EXPECT_FALSE(refused.ok);
  ASSERT_FALSE(refused.diagnostics.empty());
  EXPECT_EQ(refused.diagnostics.back().message,
            "the kernel multiplies fp16, bf16, tf32, not fp32 (TS_TYPES lists the types it takes)");
}

TEST(UserKernelEntry, AConfigurationResolvesAndIsRefusedLikeACatalogueOne) {
  const std::string source = templateOf("shared-tiled");
  const KernelConfig mine{userKernelId("mine"), {{"TILE", 8}}, source};
  EXPECT_EQ(resolve(mine).params(), (Params{{"TILE", 8}, {"PAD", 0}}));
  EXPECT_EQ(resolve(mine).config().source, source);
  EXPECT_EQ(&kernelInfo(mine), &kernelInfo(KernelConfig{"user:mine", {}, source}));
  EXPECT_EQ(formatParams(resolve(mine)), "TILE=8,PAD=0");

  EXPECT_EQ(refusal({"user:mine", {{"TILE", 3}}, source}),
            "user:mine: TILE = 3 is refused: is not one of the values its TS_PARAM allows");
  EXPECT_EQ(refusal({"user:mine", {{"WIDTH", 3}}, source}),
            "kernel 'user:mine' has no parameter 'WIDTH' (it takes TILE, PAD)");
  EXPECT_EQ(refusal({"user:mine", {}}),
            "'user:mine' is a kernel of the Kernel Editor, and the request does not carry "
            "its source");
  EXPECT_EQ(refusal({"naive", {}, source}),
            "kernel 'naive' carries source code, which only a user kernel (\"user:NAME\") does");
  EXPECT_EQ(refusal({"user:my kernel", {}, source}),
            "the name 'my kernel' may hold only letters, digits, '_', '-' and '.' (it names "
            "results and files)");
  EXPECT_EQ(refusal({"user:mine", {}, "TS_PARAM(TILE, 5, 1, 2)\n"}),
            "mine.cu line 1: TS_PARAM TILE: the default 5 is not one of the allowed values");
}

TEST(UserKernelEntry, EveryConfigurationCarriesTheSource) {
  const std::string source = templateOf("shared-tiled");
  const std::vector<KernelConfig> configs =
      validConfigurations(userKernelInfo("mine", source), source);
  ASSERT_EQ(configs.size(), 12u);  // TILE: 6 values, PAD: 2
  EXPECT_EQ(configs.front(), (KernelConfig{"user:mine", {{"TILE", 1}, {"PAD", 0}}, source}));
  EXPECT_EQ(configs.back(), (KernelConfig{"user:mine", {{"TILE", 32}, {"PAD", 1}}, source}));
}

TEST(UserKernelEntry, HasNoMappingToDraw) {
  try {
    Mapping({"user:mine", {}, templateOf("naive")}, {64, 64, 64});
    ADD_FAILURE() << "a user kernel got a Mapping";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Unsupported);
    EXPECT_EQ(std::string(error.what()), "'mine' is your own kernel: it has no Mapping to draw");
  }
}

// What a trace holds bounds what is traced: an owner per element of C, each load's row in 29 bits.
TEST(UserKernelEntry, ATraceIsRefusedWhereItCouldNotHoldTheLaunch) {
  const KernelConfig mine{"user:mine", {}, templateOf("naive")};
  EXPECT_EQ(traceRefusal({mine, {1024, 1024, 4096}}), std::nullopt);
  EXPECT_EQ(traceRefusal({{"naive", {{"tile", 16}}}, {64, 64, 64}}),
            "only your own kernels are traced: a catalogue kernel's pictures come from its "
            "Mapping");
  EXPECT_EQ(traceRefusal({mine, {1024, 1025, 64}}),
            "a trace records who stores each element of C: 1024 x 1025 is more than 1048576 "
            "elements (1024 x 1024); trace a smaller size");
  EXPECT_EQ(traceRefusal({mine, {1, 1, kMaxTracedK}}), std::nullopt);
  EXPECT_EQ(traceRefusal({mine, {1, 1, kMaxTracedK + 1}}),
            "a trace records each load's row of B in 29 bits: K = 536870912 is more than "
            "536870911; trace a smaller K");
}

// "New from..." starts from any catalogue kernel but the closed library, in the types it takes.
TEST(UserKernelTemplates, EveryCatalogueKernelButTheLibraryHasOne) {
  for (const KernelInfo& info : catalogue()) {
    const UserKernelTemplate* from = userKernelTemplate(info.id);
    EXPECT_EQ(from != nullptr, info.hasMapping) << info.id;
    if (from) {
      EXPECT_EQ(declaredTypes(from->source), info.types) << info.id;
    }
  }
}

std::string contentOf(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The templates and the API are their files in the source tree, embedded as they are: every
// kernels/families/<id>/template.cu is its kernel's template, in catalogue order, and the API
// holds every ts/ part behind a #line naming it.
TEST(UserKernelTemplates, AreTheirFilesAndTheApiHoldsEveryPart) {
  const std::filesystem::path source = TILESCOPE_SOURCE_DIR;
  std::size_t templates = 0;
  for (const auto& folder : std::filesystem::directory_iterator(source / "kernels/families")) {
    const std::filesystem::path file = folder.path() / "template.cu";
    if (!std::filesystem::exists(file)) continue;
    ++templates;
    std::string kernel = folder.path().filename().string();
    std::replace(kernel.begin(), kernel.end(), '_', '-');
    const UserKernelTemplate* embedded = userKernelTemplate(kernel);
    ASSERT_NE(embedded, nullptr) << file;
    EXPECT_EQ(embedded->source, contentOf(file)) << file;
  }
  EXPECT_EQ(templates, userKernelTemplates().size());
  std::vector<std::string> inCatalogueOrder;
  for (const KernelInfo& info : catalogue())
    if (userKernelTemplate(info.id)) inCatalogueOrder.push_back(info.id);
  std::vector<std::string> listed;
  for (const UserKernelTemplate& t : userKernelTemplates()) listed.push_back(t.kernel);
  EXPECT_EQ(listed, inCatalogueOrder);

  std::size_t parts = 0;
  for (const auto& part : std::filesystem::directory_iterator(source / "kernels/user/api/ts")) {
    ++parts;
    const std::string name = "ts/" + part.path().filename().string();
    EXPECT_NE(userApiHeader().find("#line 1 \"" + name + "\"\n" + contentOf(part.path())),
              std::string::npos)
        << name;
  }
  EXPECT_GT(parts, 0u);
}

// The refusals prepareCompile makes of a source's preprocessing that reads a file: (line,
// column) and the start of each message.
std::vector<std::pair<int, std::string>> fileReadRefusals(const std::string& source) {
  std::vector<std::pair<int, std::string>> found;
  const CompileOptions options{"sm_90", {}, declaredTypes(source).front()};
  for (const CompileDiagnostic& d : prepareCompile({"mine", source}, options).diagnostics)
    found.emplace_back(d.line, d.message.substr(0, d.message.find(' ')));
  return found;
}

using Refusals = std::vector<std::pair<int, std::string>>;

TEST(UserKernelFileReads, EveryDirectiveThatReadsAFileIsRefusedAtItsLine) {
  EXPECT_EQ(fileReadRefusals("#include \"/etc/passwd\"\n"), (Refusals{{1, "#include"}}));
  EXPECT_EQ(fileReadRefusals("int x;\n  #  include <cstdio>\n"), (Refusals{{2, "#include"}}));
  EXPECT_EQ(fileReadRefusals("#include_next <x>\n#import \"y\"\n#embed \"z\"\n"),
            (Refusals{{1, "#include_next"}, {2, "#import"}, {3, "#embed"}}));
  // Spelled with a digraph, a comment, line splices (with and without spaces after the
  // backslash), and CR line ends.
  EXPECT_EQ(fileReadRefusals("%:include \"a\"\n"), (Refusals{{1, "#include"}}));
  EXPECT_EQ(fileReadRefusals("/* x */ # /* y\n */ include \"a\"\n"), (Refusals{{1, "#include"}}));
  EXPECT_EQ(fileReadRefusals("int a;\n#\\\ninclude \"a\"\n"), (Refusals{{2, "#include"}}));
  EXPECT_EQ(fileReadRefusals("#inc\\\nlude \"a\"\n"), (Refusals{{1, "#include"}}));
  EXPECT_EQ(fileReadRefusals("#\\  \ninclude \"a\"\n"), (Refusals{{1, "#include"}}));
  EXPECT_EQ(fileReadRefusals("int a; // \\  \n#include \"a\"\n"), (Refusals{{2, "#include"}}))
      << "a compiler that does not splice at a backslash and spaces sees a directive";
  EXPECT_EQ(fileReadRefusals("int a;\r#include \"a\"\r\n"), (Refusals{{1, "#include"}}));
  // A NUL or a byte-order mark before the '#', which compilers skip as a space.
  EXPECT_EQ(fileReadRefusals(std::string("\0#include \"a\"\n", 14)), (Refusals{{1, "#include"}}));
  EXPECT_EQ(fileReadRefusals("\xEF\xBB\xBF#include \"a\"\n"), (Refusals{{1, "#include"}}));
  // Asked about in an #if, run from _Pragma, named by a pragma or a #line.
  EXPECT_EQ(fileReadRefusals("#if __has_include(\"/etc/passwd\")\n#endif\n"),
            (Refusals{{1, "__has_include"}}));
  EXPECT_EQ(fileReadRefusals("#if defined(__has_include_next)\n#endif\n"),
            (Refusals{{1, "__has_include_next"}}));
  EXPECT_EQ(fileReadRefusals("_Pragma(\"GCC dependency \\\"/etc/passwd\\\"\")\n"),
            (Refusals{{1, "_Pragma"}}));
  EXPECT_EQ(fileReadRefusals("#pragma GCC dependency \"/etc/passwd\"\n"),
            (Refusals{{1, "#pragma"}}));
  EXPECT_EQ(fileReadRefusals("#pragma clang module import x\n"), (Refusals{{1, "#pragma"}}));
  EXPECT_EQ(fileReadRefusals("#line 1 \"/etc/passwd\"\n# 7 \"/etc/shadow\"\n"),
            (Refusals{{1, "#line"}, {2, "#line"}}));
  // Token pasting could spell any of them.
  EXPECT_EQ(fileReadRefusals("#define CAT(a, b) a ## b\n#define P(a, b) a %:%: b\n"),
            (Refusals{{1, "##"}, {2, "##"}}));
  // The column is the '#'.
  const CompileResult at = prepareCompile({"mine", "int a;\n   #include <x>\n"}, {});
  ASSERT_EQ(at.diagnostics.size(), 1u);
  EXPECT_EQ(at.diagnostics[0].column, 4);
  EXPECT_TRUE(at.diagnostics[0].error);
}

TEST(UserKernelFileReads, CommentsLiteralsAndOtherDirectivesAreLeftAlone) {
  EXPECT_EQ(fileReadRefusals("// #include <x>\n/* #include <y>\n#include <z> */\n"), Refusals{});
  EXPECT_EQ(fileReadRefusals("const char* s = \"#include <x> __has_include _Pragma ##\";\n"),
            Refusals{});
  EXPECT_EQ(fileReadRefusals("auto r = R\"x(\n#include <x>\n)\" )x\";\nchar c = '#';\n"),
            Refusals{});
  EXPECT_EQ(fileReadRefusals("int n = 1'000'000; int x = n # 2;\nint include;\n"), Refusals{});
  EXPECT_EQ(fileReadRefusals("#define TWICE(x) (2 * (x))\n#if TILE > 8\n#pragma unroll\n"
                             "#pragma unroll 4\n#pragma GCC unroll 8\n#pragma once\n#else\n"
                             "#undef TWICE\n#endif\n#error stop\n"),
            Refusals{});
  // An unterminated literal ends at its quote: what follows on its line is read.
  EXPECT_EQ(fileReadRefusals("#if 0 ' __has_include(<x>)\n#endif\n"),
            (Refusals{{1, "__has_include"}}));
  for (const UserKernelTemplate& t : userKernelTemplates())
    EXPECT_EQ(fileReadRefusals(t.source), Refusals{}) << t.kernel;
}

TEST(UserKernelParams, WithoutNvrtcACompileSaysWhy) {
  const auto why = userKernelCompilerUnavailable();
  if (!why) GTEST_SKIP() << "NVRTC is here: UserKernelCompile covers compiling";
  const CompileResult result = compileUserKernel({"naive", templateOf("naive")}, {});
  EXPECT_FALSE(result.ok);
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].message, *why);
  EXPECT_EQ(result.params.size(), 1u);  // the parameters are read all the same
}

TEST_F(UserKernelCompile, EveryTemplateCompilesForSm75Sm90AndSm90aInEachOfItsTypes) {
  ASSERT_GE(userKernelTemplates().size(), 3u);
  for (const UserKernelTemplate& t : userKernelTemplates())
    for (const ElementType type : declaredTypes(t.source))
      for (const char* arch : {"sm_75", "sm_90", "sm_90a"}) {
        const CompileResult result = compileUserKernel({t.kernel, t.source}, {arch, {}, type});
        SCOPED_TRACE(t.kernel + " " + arch + " " + toString(type));
        EXPECT_TRUE(result.ok) << describe(result);
        EXPECT_FALSE(result.image.empty()) << t.kernel;
        // The staged templates say how deep their k-step is; the others leave it at one k.
        EXPECT_EQ(result.declaresKStep, t.source.find("\nTS_KSTEP(") != std::string::npos)
            << t.kernel;
        // tensor-tma's template has the copy engine fill its stages.
        EXPECT_EQ(result.declaresTensorMaps,
                  t.source.find("\nTS_TENSOR_MAPS(") != std::string::npos)
            << t.kernel;
        // tensor-persistent's works through tiles, in clusters.
        EXPECT_EQ(result.declaresCluster, t.source.find("\nTS_CLUSTER(") != std::string::npos)
            << t.kernel;
        EXPECT_EQ(result.declaresPersistent, t.source.find("\nTS_PERSISTENT(") != std::string::npos)
            << t.kernel;
        EXPECT_TRUE(std::none_of(result.diagnostics.begin(), result.diagnostics.end(),
                                 [](const CompileDiagnostic& d) { return !d.error; }))
            << t.kernel << ": a template compiles without warnings: " << describe(result);
        ASSERT_TRUE(result.resources) << t.kernel << ": " << describe(result);
        EXPECT_GT(result.resources->registersPerThread, 0) << t.kernel;
        // Read from the image, they are what ptxas -v said, where its log says it.
        if (result.log.find("Compiling entry function 'ts_kernel'") != std::string::npos) {
          EXPECT_NE(result.log.find("Used " + std::to_string(result.resources->registersPerThread) +
                                    " registers"),
                    std::string::npos)
              << describe(result);
          EXPECT_NE(result.log.find(std::to_string(result.resources->localBytesPerThread) +
                                    " bytes stack frame"),
                    std::string::npos)
              << describe(result);
          const std::int64_t shared = result.resources->sharedBytesPerBlock;
          EXPECT_EQ(result.log.find(std::to_string(shared) + " bytes smem") != std::string::npos,
                    shared > 0)
              << describe(result);
        }
        // Every template's block needs no size: its theoretical occupancy is known.
        EXPECT_GT(result.resources->threadsPerBlock, 0) << t.kernel;
        EXPECT_GT(result.resources->blocksPerSM, 0) << t.kernel;
        EXPECT_GT(result.resources->occupancy, 0) << t.kernel;
      }
}

// tensor-fp8's template in both FP8 types for Hopper (sm_90a): the wgmma k32 instructions, the
// copy engine and clusters, with the registers its consumers need and nothing spilled.
TEST_F(UserKernelCompile, TheFp8TemplateCompilesForSm90aInBothTypes) {
  const std::string& source = templateOf("tensor-fp8");
  for (const ElementType type : {ElementType::E4M3, ElementType::E5M2})
    for (const bool trace : {false, true}) {
      SCOPED_TRACE(std::string(toString(type)) + (trace ? " traced" : ""));
      const CompileResult result =
          compileUserKernel({"tensor-fp8", source}, {"sm_90a", {}, type, trace});
      ASSERT_TRUE(result.ok) << describe(result);
      EXPECT_EQ(result.values.at("BK"), 128);
      EXPECT_TRUE(result.declaresTensorMaps);
      EXPECT_TRUE(result.declaresCluster);
      EXPECT_TRUE(result.declaresPersistent);
      ASSERT_TRUE(result.resources);
      EXPECT_EQ(result.resources->threadsPerBlock, 384);
      if (!trace) {
        EXPECT_EQ(result.resources->localBytesPerThread, 0) << describe(result);
      }
    }
  // A 16-bit type is not one it takes.
  EXPECT_FALSE(compileUserKernel({"tensor-fp8", source}, {"sm_90a", {}, ElementType::BF16}).ok);
}

// What the API gives a variant of each type: ts::Element's size and whether B is K-major.
TEST_F(UserKernelCompile, EachTypeCompilesItsElementAndBsLayout) {
  const auto source = [](int bytes, int kMajor) {
    return "TS_TYPES(fp32, tf32, fp16, bf16, e4m3, e5m2)\nTS_LAUNCH(32, 1, 1, 1, 0)\n"
           "static_assert(sizeof(ts::Element) == " +
           std::to_string(bytes) + " && TS_ELEMENT_BYTES == " + std::to_string(bytes) +
           " && TS_B_K_MAJOR == " + std::to_string(kMajor) +
           ", \"the type's layout\");\n"
           "TS_KERNEL { ts::storeC(p, 0, 0, ts::toFloat(ts::loadB(p, 0, 0))); }\n";
  };
  for (const ElementType type : kElementTypes) {
    const int bytes = storageBytes(type), kMajor = storesBKMajor(type) ? 1 : 0;
    EXPECT_TRUE(compileUserKernel({"types", source(bytes, kMajor)}, {"sm_90", {}, type}).ok)
        << toString(type);
    const CompileResult wrong =
        compileUserKernel({"types", source(bytes, 1 - kMajor)}, {"sm_90", {}, type});
    EXPECT_FALSE(wrong.ok) << toString(type);
  }
}

TEST(UserKernelLaunch, TheDeclaredBlockIsEvaluatedFromTheParameters) {
  EXPECT_EQ(declaredBlock(templateOf("naive"), {{"TILE", 16}})->x, 16);
  EXPECT_EQ(declaredBlock(templateOf("naive"), {{"TILE", 8}})->y, 8);
  EXPECT_EQ(declaredBlock(templateOf("register-tiled"), {{"TILE", 4}})->x, 16);
  // BM / TM * (BN / TN) = 64 / 8 * (128 / 4) = 256 threads in a row.
  const auto ladder =
      declaredBlock(templateOf("blocktile-2d"), {{"BM", 64}, {"BN", 128}, {"TM", 8}, {"TN", 4}});
  ASSERT_TRUE(ladder);
  EXPECT_EQ(ladder->x, 256);
  EXPECT_EQ(ladder->y, 1);
  EXPECT_EQ(declaredBlock("  TS_LAUNCH((2 + 3) * 4 - 7 % 4, -(-2), 1, 1, 0)\n", {})->x, 17);
  EXPECT_EQ(declaredBlock("  TS_LAUNCH((2 + 3) * 4 - 7 % 4, -(-2), 1, 1, 0)\n", {})->y, 2);
  // What only the GPU knows, or what is no block, gives nothing.
  EXPECT_FALSE(declaredBlock("TS_LAUNCH(M, 1, 1, 1, 0)\n", {}));
  EXPECT_FALSE(declaredBlock("TS_LAUNCH(TILE, 1, 1, 1, 0)\n", {}));
  EXPECT_FALSE(declaredBlock("TS_LAUNCH(32 / (X - X), 1, 1, 1, 0)\n", {{"X", 4}}));
  EXPECT_FALSE(declaredBlock("TS_LAUNCH(0, 1, 1, 1, 0)\n", {}));
  EXPECT_FALSE(declaredBlock("TS_LAUNCH(65536 * 65536, 1, 1, 1, 0)\n", {}));
  EXPECT_FALSE(declaredBlock("TS_LAUNCH(32)\n", {}));
  EXPECT_FALSE(declaredBlock("TS_KERNEL {}\n", {}));
}

// The shared tiles as ptxas counts them: 2 x 16 x 16 floats, and 2 x 16 x 17 with a pad.
// The tracer's recording compiles into every template (TS_TRACE), for both architectures.
TEST_F(UserKernelCompile, EveryTemplateCompilesForTracing) {
  for (const UserKernelTemplate& t : userKernelTemplates())
    for (const ElementType type : declaredTypes(t.source))
      for (const char* arch : {"sm_75", "sm_90"}) {
        const CompileResult result =
            compileUserKernel({t.kernel, t.source}, {arch, {}, type, /*trace=*/true});
        EXPECT_TRUE(result.ok) << t.kernel << " " << arch << " " << toString(type)
                               << describe(result);
      }
}

// A ladder template refuses the combinations its catalogue kernel refuses, at its own line.
TEST_F(UserKernelCompile, ALadderTemplateNamesTheRuleABadCombinationBreaks) {
  const std::string& source = templateOf("blocktile-1d");
  // 64 * 64 / 4 = 1024 threads, but the 64 x 8 tile of A has only 512 elements to copy.
  const CompileResult result =
      compileUserKernel({"mine", source}, {"sm_90", {{"BM", 64}, {"BN", 64}, {"TM", 4}}});
  EXPECT_FALSE(result.ok);
  const auto error = std::find_if(result.diagnostics.begin(), result.diagnostics.end(),
                                  [](const CompileDiagnostic& d) { return d.error; });
  ASSERT_NE(error, result.diagnostics.end()) << describe(result);
  EXPECT_NE(error->message.find("every thread must copy as many elements of each tile"),
            std::string::npos)
      << error->message;
  const std::size_t assertAt = source.find("static_assert(BM * BK");
  EXPECT_EQ(error->line, 1 + std::count(source.begin(), source.begin() + long(assertAt), '\n'));
  EXPECT_TRUE(compileUserKernel({"mine", source}, {"sm_90", {}}).ok);
}

TEST_F(UserKernelCompile, ParametersAreCompiledInAndShowInTheResources) {
  const std::string& source = templateOf("shared-tiled");
  const CompileResult plain = compileUserKernel({"tiled", source}, {"sm_90", {}});
  ASSERT_TRUE(plain.ok) << describe(plain);
  EXPECT_EQ(plain.values, (Params{{"PAD", 0}, {"TILE", 16}}));
  EXPECT_EQ(plain.resources->sharedBytesPerBlock, 2 * 16 * 16 * 4);
  const CompileResult padded =
      compileUserKernel({"tiled", source}, {"sm_90", {{"PAD", 1}, {"TILE", 8}}});
  ASSERT_TRUE(padded.ok) << describe(padded);
  EXPECT_EQ(padded.resources->sharedBytesPerBlock, 2 * 8 * 9 * 4);

  const CompileResult refused = compileUserKernel({"tiled", source}, {"sm_90", {{"TILE", 12}}});
  EXPECT_FALSE(refused.ok);
  ASSERT_EQ(refused.diagnostics.size(), 1u);
  EXPECT_EQ(refused.diagnostics[0].message,
            "TILE = 12 is not one of the values its TS_PARAM allows");
  const CompileResult unknown = compileUserKernel({"tiled", source}, {"sm_90", {{"BM", 64}}});
  EXPECT_FALSE(unknown.ok);
  EXPECT_EQ(unknown.diagnostics[0].message, "the source declares no parameter BM");
}

TEST_F(UserKernelCompile, ErrorsAndWarningsSitAtTheUsersLinesAndColumns) {
  const std::string source =
      "TS_LAUNCH(32, 1, 1, 1, 0)\n"          // 1
      "TS_KERNEL {\n"                        // 2
      "  int unused;\n"                      // 3
      "  float x = ;\n"                      // 4
      "  ts::storeC(p, 0, 0, undefined);\n"  // 5
      "}\n";
  const CompileResult result = compileUserKernel({"broken", source}, {});
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.image.empty());
  const auto at = [&](int line, bool error) {
    return std::find_if(
        result.diagnostics.begin(), result.diagnostics.end(),
        [&](const CompileDiagnostic& d) { return d.line == line && d.error == error; });
  };
  const auto warning = at(3, false);
  ASSERT_NE(warning, result.diagnostics.end()) << describe(result);
  EXPECT_NE(warning->message.find("\"unused\""), std::string::npos);
  EXPECT_EQ(warning->column, 7);  // under `unused`
  const auto expression = at(4, true);
  ASSERT_NE(expression, result.diagnostics.end()) << describe(result);
  EXPECT_EQ(expression->message, "expected an expression");
  EXPECT_EQ(expression->column, 13);  // under the `;`
  const auto undefined = at(5, true);
  ASSERT_NE(undefined, result.diagnostics.end()) << describe(result);
  EXPECT_NE(undefined->message.find("\"undefined\" is undefined"), std::string::npos);
  EXPECT_EQ(undefined->column, 23);
  // Nothing is blamed on the API header put in front.
  EXPECT_TRUE(std::none_of(result.diagnostics.begin(), result.diagnostics.end(),
                           [](const CompileDiagnostic& d) { return d.line == 0; }))
      << describe(result);
}

// A message inside the API names its ts/ part and that part's line, and no line of the user's.
TEST_F(UserKernelCompile, AMessageInTheApiNamesItsPartAndLine) {
  const std::string source =
      "TS_LAUNCH(32, 1, 1, 1, 0)\n"
      "TS_KERNEL {\n"
      "  __shared__ double tile[32];\n"
      "  ts::storeC(p, 0, 0, ts::readShared(p, ts::TileA, tile[0]));\n"  // 8 bytes: refused
      "}\n";
  const CompileResult result = compileUserKernel({"wide", source}, {});
  EXPECT_FALSE(result.ok);
  const std::string part = contentOf(TILESCOPE_SOURCE_DIR "/kernels/user/api/ts/shared.cuh");
  const std::size_t assertAt = part.find("static_assert(sizeof(Word) <= 4, \"one element");
  ASSERT_NE(assertAt, std::string::npos);
  const std::string at =
      "ts/shared.cuh(" +
      std::to_string(1 + std::count(part.begin(), part.begin() + long(assertAt), '\n')) +
      "): error";
  EXPECT_NE(result.log.find(at), std::string::npos) << at << " in " << result.log;
  EXPECT_TRUE(std::any_of(result.diagnostics.begin(), result.diagnostics.end(),
                          [](const CompileDiagnostic& d) {
                            return d.error && d.line == 0 &&
                                   d.message.find("at most 4 bytes") != std::string::npos;
                          }))
      << describe(result);
}

TEST_F(UserKernelCompile, ASourceWithoutItsKernelOrLaunchSaysWhatIsMissing) {
  const CompileResult noKernel = compileUserKernel({"k", "TS_LAUNCH(1, 1, 1, 1, 0)\n"}, {});
  EXPECT_FALSE(noKernel.ok);
  ASSERT_FALSE(noKernel.diagnostics.empty()) << describe(noKernel);
  EXPECT_EQ(noKernel.diagnostics.back().message,
            "the source has no kernel: write TS_KERNEL { ... }");
  const CompileResult noLaunch = compileUserKernel({"k", "TS_KERNEL {}\n"}, {});
  EXPECT_FALSE(noLaunch.ok);
  ASSERT_FALSE(noLaunch.diagnostics.empty()) << describe(noLaunch);
  EXPECT_NE(noLaunch.diagnostics.back().message.find("no launch"), std::string::npos);
}

}  // namespace
}  // namespace tilescope
