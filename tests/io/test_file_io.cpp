// SPDX-License-Identifier: GPL-3.0-or-later
// The one writer and reader (issue #12): only regular files or new paths, never a device, a
// directory or a FIFO; read-only files refused; a failed write leaves the old file and no
// temporary behind and says why; reads never block and stop at a size limit.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tilescope/error.hpp"
#include "tilescope/io/file_io.hpp"

namespace tilescope::io {
namespace {

namespace fs = std::filesystem;

class FileIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::path(::testing::TempDir()) /
                 (std::string("tilescope-io-") +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(directory_);
    fs::create_directories(directory_);
  }
  void TearDown() override {
    ::umount2(directory_.c_str(), MNT_DETACH);  // where a test mounted a small tmpfs
    fs::remove_all(directory_);
  }

  std::string file(const std::string& name) const { return (directory_ / name).string(); }
  void put(const std::string& name, const std::string& text) const {
    std::ofstream(file(name)) << text;
  }
  std::string contentOf(const std::string& name) const {
    std::ifstream in(file(name));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // Only the names given: no temporary file left beside them.
  std::vector<std::string> names() const {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(directory_))
      found.push_back(entry.path().filename().string());
    std::sort(found.begin(), found.end());
    return found;
  }

  fs::path directory_;
};

template <typename Action>
std::string refusal(Action action) {
  try {
    action();
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    return error.what();
  }
  ADD_FAILURE() << "nothing was refused";
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(FileIoTest, WritesANewFileAndReplacesAnOldOneKeepingItsPermissions) {
  writeFile(file("out.csv"), "first\n", "--output");
  EXPECT_EQ(contentOf("out.csv"), "first\n");
  ASSERT_EQ(::chmod(file("out.csv").c_str(), 0640), 0);
  writeFile(file("out.csv"), "second\n", "--output");
  EXPECT_EQ(contentOf("out.csv"), "second\n");
  EXPECT_EQ(fs::status(file("out.csv")).permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(names(), std::vector<std::string>{"out.csv"});
}

TEST_F(FileIoTest, RefusesADeviceNodeAndLeavesIt) {
  // Our own /dev/null twin: a test must never risk replacing a real device node.
  const std::string node = file("null-device");
  if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot make a device node here: " << std::strerror(errno);
  const std::string message = refusal([&] { writeFile(node, "rows\n", "--output"); });
  EXPECT_TRUE(contains(message, "cannot write --output '" + node + "': it is a character device"))
      << message;
  EXPECT_TRUE(fs::is_character_file(node));
  EXPECT_EQ(names(), std::vector<std::string>{"null-device"});
}

TEST_F(FileIoTest, RefusesTheFullDeviceWithoutTouchingIt) {
  // Safe only because the writer refuses a device before it creates anything.
  const std::string message = refusal([] { FileWriter("/dev/full", "--output"); });
  EXPECT_TRUE(contains(message, "it is a character device")) << message;
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

// /proc/self/status is read-only; the old message blamed a missing file (the temporary one).
TEST_F(FileIoTest, RefusesAReadOnlySystemFileSayingSo) {
  const std::string message = refusal([] { FileWriter("/proc/self/status", "--output"); });
  EXPECT_TRUE(contains(message, "the file is read-only")) << message;
}

TEST_F(FileIoTest, RefusesADirectoryAndAFifo) {
  fs::create_directory(file("folder"));
  EXPECT_TRUE(contains(refusal([&] { writeFile(file("folder"), "x", "the session"); }),
                       "it is a directory"));
  ASSERT_EQ(::mkfifo(file("pipe").c_str(), 0644), 0);
  EXPECT_TRUE(
      contains(refusal([&] { writeFile(file("pipe"), "x", "the session"); }), "it is a FIFO"));
  EXPECT_EQ(names(), (std::vector<std::string>{"folder", "pipe"}));
}

TEST_F(FileIoTest, RefusesAReadOnlyFileEvenAsRoot) {
  put("kept.png", "old");
  ASSERT_EQ(::chmod(file("kept.png").c_str(), 0444), 0);
  const std::string message = refusal([&] { writeFile(file("kept.png"), "new", "the chart"); });
  EXPECT_TRUE(contains(message, "the file is read-only")) << message;
  EXPECT_EQ(contentOf("kept.png"), "old");
  // The same for writers that take a file name.
  EXPECT_TRUE(contains(refusal([&] {
                         FileWriter(file("kept.png"), "the chart")
                             .commitWrittenBy([](const std::string&) { return true; }, "PNG");
                       }),
                       "read-only"));
  EXPECT_EQ(contentOf("kept.png"), "old");
  EXPECT_EQ(names(), std::vector<std::string>{"kept.png"});
}

TEST_F(FileIoTest, AFullFileSystemLeavesTheOldFileAndNoTemporary) {
  if (::mount("tmpfs", directory_.c_str(), "tmpfs", 0, "size=64k") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here: " << std::strerror(errno);
  put("results.csv", "the old results\n");
  const std::string big(1 << 20, 'x');
  const std::string message = refusal([&] { writeFile(file("results.csv"), big, "--export-csv"); });
  EXPECT_TRUE(contains(message, "No space left on device; free some space")) << message;
  EXPECT_EQ(contentOf("results.csv"), "the old results\n");
  EXPECT_EQ(names(), std::vector<std::string>{"results.csv"});
}

// Where no tmpfs can be mounted, a file size limit makes the write fail the same way.
TEST_F(FileIoTest, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  put("session.json", "the old session\n");
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = before;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string message =
      refusal([&] { writeFile(file("session.json"), std::string(10454, 'x'), "the session"); });
  ::setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, oldHandler);
  EXPECT_TRUE(contains(message, "File too large")) << message;
  EXPECT_EQ(contentOf("session.json"), "the old session\n");
  EXPECT_EQ(names(), std::vector<std::string>{"session.json"});
}

TEST_F(FileIoTest, SaysWhichFolderIsMissingAndWhenANameIsTooLong) {
  const std::string missing = file("no-such-folder") + "/out.csv";
  EXPECT_TRUE(contains(refusal([&] { writeFile(missing, "x", "--output"); }),
                       "the folder '" + file("no-such-folder") + "' does not exist"));
  const std::string longName = file(std::string(300, 'n') + ".png");
  const std::string message = refusal([&] { writeFile(longName, "x", "the chart"); });
  EXPECT_TRUE(contains(message, "File name too long; choose a shorter name")) << message;
  EXPECT_TRUE(contains(message, "characters)")) << "the name is quoted short: " << message;
}

TEST_F(FileIoTest, AWriterThatFailsOrWritesNothingReplacesNothing) {
  put("chart.pdf", "old");
  const auto failing = [&](bool reported, const std::string& content) {
    return refusal([&] {
      FileWriter(file("chart.pdf"), "the chart")
          .commitWrittenBy(
              [&](const std::string& temporary) {
                std::ofstream(temporary) << content;
                return reported;
              },
              "the PDF exporter");
    });
  };
  EXPECT_TRUE(contains(failing(false, "half"), "the PDF exporter could not write the file"));
  EXPECT_TRUE(contains(failing(true, ""), "reported success but wrote nothing"));
  EXPECT_EQ(contentOf("chart.pdf"), "old");
  EXPECT_EQ(names(), std::vector<std::string>{"chart.pdf"});

  FileWriter(file("chart.pdf"), "the chart")
      .commitWrittenBy(
          [](const std::string& temporary) { return bool(std::ofstream(temporary) << "new"); },
          "the PDF exporter");
  EXPECT_EQ(contentOf("chart.pdf"), "new");
}

TEST_F(FileIoTest, WritingThroughALinkReplacesItsTargetAndKeepsTheLink) {
  put("target.json", "old");
  fs::create_symlink(file("target.json"), file("link.json"));
  writeFile(file("link.json"), "new", "the session");
  EXPECT_TRUE(fs::is_symlink(file("link.json")));
  EXPECT_EQ(contentOf("target.json"), "new");
}

TEST_F(FileIoTest, ReadsAFileAndRefusesDevicesFifosAndDirectoriesAtOnce) {
  put("session.json", "{}");
  EXPECT_EQ(readFile(file("session.json"), kMaxSessionBytes, "the session"), "{}");
  EXPECT_TRUE(contains(refusal([] { readFile("/dev/zero", kMaxSessionBytes, "the session"); }),
                       "cannot read the session '/dev/zero': it is a character device"));
  // A FIFO with no writer would block an ordinary open forever.
  ASSERT_EQ(::mkfifo(file("pipe").c_str(), 0644), 0);
  EXPECT_TRUE(contains(refusal([&] { readFile(file("pipe"), kMaxTunedBytes, "tuned.json"); }),
                       "it is a FIFO"));
  EXPECT_TRUE(contains(refusal([&] { readFile(directory_.string(), kMaxTunedBytes, "x"); }),
                       "it is a directory"));
}

TEST_F(FileIoTest, ReadingStopsAtTheSizeLimit) {
  put("big.json", std::string(kMaxTunedBytes + 1, ' '));
  EXPECT_TRUE(contains(refusal([&] { readFile(file("big.json"), kMaxTunedBytes, "tuned.json"); }),
                       "it is larger than 1 MiB, the limit for tuned.json"));
  put("exact.json", std::string(kMaxTunedBytes, ' '));
  EXPECT_EQ(readFile(file("exact.json"), kMaxTunedBytes, "tuned.json")->size(), kMaxTunedBytes);
}

TEST_F(FileIoTest, AMissingFileIsEmptyOnlyWhenAllowed) {
  EXPECT_EQ(readFile(file("none.json"), kMaxTunedBytes, "tuned.json", true), std::nullopt);
  EXPECT_TRUE(contains(refusal([&] { readFile(file("none.json"), kMaxTunedBytes, "x"); }),
                       "No such file or directory"));
}

TEST(ParseJson, RefusesDeepNestingAndEmptyTextAndSaysWhere) {
  const std::string deep =
      std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  EXPECT_TRUE(contains(refusal([&] { parseJson(deep, "the session"); }),
                       "the session is not valid JSON: it nests deeper than 64 levels"));
  const std::string fine = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_NO_THROW(parseJson(fine, "the session"));
  // Brackets inside strings do not nest.
  EXPECT_NO_THROW(parseJson("{\"a\": \"" + std::string(1000, '[') + "\\\"\"}", "x"));
  EXPECT_TRUE(contains(refusal([] { parseJson("  \n", "tuned.json"); }), "it is empty"));
  const std::string broken = refusal([] { parseJson("{ not json", "tuned.json"); });
  EXPECT_TRUE(contains(broken, "tuned.json is not valid JSON: ")) << broken;
  EXPECT_FALSE(contains(broken, "[json.exception")) << broken;
  // Found by the fuzz target: out of double's range is another nlohmann exception.
  const std::string huge = refusal([] { parseJson("{\"m\": 1e999}", "the session"); });
  EXPECT_TRUE(contains(huge, "the session is not valid JSON: number overflow")) << huge;
}

}  // namespace
}  // namespace tilescope::io
