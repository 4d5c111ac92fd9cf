// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/io/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "tilescope/error.hpp"
#include "tilescope/quote.hpp"

namespace tilescope::io {
namespace {

// What a path is, when it is not a regular file, in the words of a message.
std::string kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device (such as /dev/null), not a file";
  if (S_ISBLK(mode)) return "a block device, not a file";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe), not a file";
  if (S_ISSOCK(mode)) return "a socket, not a file";
  return "not a regular file";
}

// What the user can do about an errno, or "".
std::string adviceFor(int error) {
  switch (error) {
    case ENOSPC:
    case EDQUOT:
      return "free some space or choose another disk";
    case EACCES:
    case EPERM:
    case EROFS:
      return "choose a folder you can write to";
    case ENAMETOOLONG:
      return "choose a shorter name";
    case ENOENT:
    case ENOTDIR:
      return "create the folder first or choose another";
    case EFBIG:
      return "the file is larger than this process may write (see ulimit -f)";
    default:
      return "";
  }
}

std::string withAdvice(const std::string& reason, const std::string& advice) {
  return advice.empty() ? reason : reason + "; " + advice;
}

std::string folderOf(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

int closeKeepingErrno(int descriptor) {
  const int saved = errno;
  const int result = ::close(descriptor);
  errno = saved;
  return result;
}

// Makes `path` durable in its folder; best effort, as not every file system syncs a folder.
void syncFolder(const std::string& path) {
  const int folder = ::open(folderOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder < 0) return;
  ::fsync(folder);
  ::close(folder);
}

std::atomic<unsigned> temporaryCounter{0};

}  // namespace

FileWriter::FileWriter(std::string path, std::string what)
    : path_(std::move(path)), what_(std::move(what)) {
  // A trial temporary file now, so an unwritable folder is found before any work; the real one
  // is made when the content is ready, so an interrupted process leaves none behind.
  openTemporary();
  ::close(descriptor_);
  descriptor_ = -1;
  ::unlink(temporaryPath_.c_str());
  temporaryPath_.clear();
}

void FileWriter::checkTarget() {
  if (path_.empty()) fail("the file name is empty; give one");
  struct stat link {};
  if (::lstat(path_.c_str(), &link) == 0) {
    struct stat target {};
    if (S_ISLNK(link.st_mode)) {
      // /dev/stdout and the like pass through /proc/self/fd: renaming over the file they resolve
      // to would not reach the descriptor they stand for.
      char hop[PATH_MAX];
      const ssize_t length = ::readlink(path_.c_str(), hop, sizeof hop - 1);
      const std::string firstHop(hop, length > 0 ? std::size_t(length) : 0);
      for (const std::string& special : {path_, firstHop}) {
        if (special.rfind("/proc/", 0) == 0 || special.rfind("/dev/", 0) == 0)
          fail("it is a link to a special file (" + quoteValue(firstHop) + "); choose a file name");
      }
      // Replace the file the link names, not the link.
      char* resolved = ::realpath(path_.c_str(), nullptr);
      if (!resolved) fail("it is a symbolic link to a file that does not exist");
      path_ = resolved;
      std::free(resolved);
    }
    if (::stat(path_.c_str(), &target) != 0) failWithErrno(errno);
    if (!S_ISREG(target.st_mode)) fail("it is " + kindOf(target.st_mode) + "; choose a file name");
    // rename() would replace a read-only file, even as root; honour its protection instead.
    if ((target.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || ::access(path_.c_str(), W_OK) != 0)
      fail("the file is read-only; make it writable or choose another name");
  } else if (errno != ENOENT) {
    failWithErrno(errno);
  }
}

void FileWriter::openTemporary() {
  // The target may have changed since the constructor looked (a device put in its place).
  checkTarget();
  for (int attempt = 0; descriptor_ < 0; ++attempt) {
    temporaryPath_ = path_ + ".tmp-" + std::to_string(::getpid()) + "-" +
                     std::to_string(temporaryCounter.fetch_add(1));
    // O_EXCL: never write through a file or link that is already there. The mode follows umask.
    descriptor_ = ::open(temporaryPath_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (descriptor_ >= 0) break;
    if (errno != EEXIST || attempt == 100) {
      const int error = errno;
      temporaryPath_.clear();
      if (error == ENOENT) fail("the folder " + quoteValue(folderOf(path_)) + " does not exist");
      if (error == EACCES || error == EROFS || error == EPERM) {
        fail(std::string("cannot create a file in the folder ") + quoteValue(folderOf(path_)) +
             " (" + std::strerror(error) + "); " + adviceFor(error));
      }
      failWithErrno(error);
    }
  }
  // The new file keeps the permissions of the one it replaces.
  struct stat existing {};
  if (::stat(path_.c_str(), &existing) == 0) ::fchmod(descriptor_, existing.st_mode & 07777);
}

FileWriter::~FileWriter() {
  if (descriptor_ >= 0) ::close(descriptor_);
  if (!committed_ && !temporaryPath_.empty()) ::unlink(temporaryPath_.c_str());
}

void FileWriter::fail(const std::string& reason) const {
  const std::string what = what_.empty() ? "" : what_ + " ";
  throw Error(ErrorKind::InvalidArgument,
              "cannot write " + what + quoteValue(path_) + ": " + reason);
}

void FileWriter::failWithErrno(int error) const {
  fail(withAdvice(std::strerror(error), adviceFor(error)));
}

void FileWriter::commit(std::string_view content) {
  openTemporary();
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t written = ::write(descriptor_, data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) failWithErrno(errno);
    data += written;
    left -= std::size_t(written);
  }
  syncCloseAndRename();
}

void FileWriter::commitWrittenBy(const std::function<bool(const std::string&)>& write,
                                 const std::string& writer) {
  // The writer opens the file by name; keep no descriptor of our own while it does.
  openTemporary();
  ::close(descriptor_);
  descriptor_ = -1;
  if (!write(temporaryPath_)) {
    // Such writers say only that they failed: name the likely reason where it can be seen.
    struct statvfs space {};
    if (::statvfs(folderOf(path_).c_str(), &space) == 0 && space.f_bavail == 0)
      failWithErrno(ENOSPC);
    fail(writer + " could not write the file");
  }
  descriptor_ = ::open(temporaryPath_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (descriptor_ < 0) failWithErrno(errno);
  struct stat written {};
  if (::fstat(descriptor_, &written) != 0) failWithErrno(errno);
  if (!S_ISREG(written.st_mode) || written.st_size == 0)
    fail(writer + " reported success but wrote nothing");
  syncCloseAndRename();
}

void FileWriter::syncCloseAndRename() {
  const bool synced = ::fsync(descriptor_) == 0;
  const int syncError = errno;
  const bool closed = closeKeepingErrno(descriptor_) == 0;
  descriptor_ = -1;
  if (!synced) failWithErrno(syncError);
  if (!closed) failWithErrno(errno);
  if (::rename(temporaryPath_.c_str(), path_.c_str()) != 0) failWithErrno(errno);
  committed_ = true;
  syncFolder(path_);
}

void writeFile(const std::string& path, std::string_view content, const std::string& what) {
  FileWriter(path, what).commit(content);
}

std::optional<std::string> readFile(const std::string& path, std::size_t maxBytes,
                                    const std::string& what, bool missingIsEmpty) {
  const auto fail = [&](const std::string& reason) {
    throw Error(ErrorKind::InvalidArgument, "cannot read " + (what.empty() ? "" : what + " ") +
                                                quoteValue(path) + ": " + reason);
  };
  const auto tooLarge = [&] {
    fail("it is larger than " + std::to_string(maxBytes >> 20) + " MiB, the limit for " + what);
  };
  if (path.empty()) fail("the file name is empty; give one");
  // A FIFO or a device is refused before it is opened, and again after (it may have been
  // swapped in between); O_NONBLOCK keeps even that open from waiting for a writer.
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT && missingIsEmpty) return std::nullopt;
    fail(std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) fail("it is " + kindOf(info.st_mode) + "; choose a file");
  const int descriptor = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (descriptor < 0) fail(std::strerror(errno));
  struct Closer {
    int descriptor;
    ~Closer() { ::close(descriptor); }
  } closer{descriptor};
  if (::fstat(descriptor, &info) != 0) fail(std::strerror(errno));
  if (!S_ISREG(info.st_mode)) fail("it is " + kindOf(info.st_mode) + "; choose a file");
  if (std::size_t(info.st_size) > maxBytes) tooLarge();

  std::string content;
  content.resize(std::size_t(info.st_size));
  std::size_t used = 0;
  while (true) {
    // The size may change while reading; never read more than the limit allows.
    if (used == content.size()) {
      if (content.size() > maxBytes) tooLarge();
      content.resize(std::min(maxBytes + 1, std::max<std::size_t>(4096, content.size() * 2)));
    }
    const ssize_t got = ::read(descriptor, content.data() + used, content.size() - used);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail(std::strerror(errno));
    if (got == 0) break;
    used += std::size_t(got);
  }
  if (used > maxBytes) tooLarge();
  content.resize(used);
  return content;
}

nlohmann::json parseJson(std::string_view text, const std::string& what) {
  const auto fail = [&](const std::string& reason) {
    throw Error(ErrorKind::InvalidArgument, what + " is not valid JSON: " + reason);
  };
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) fail("it is empty");
  // Depth first, outside strings, so a hostile document cannot exhaust memory or the stack.
  int depth = 0;
  bool inString = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        fail("it nests deeper than " + std::to_string(kMaxJsonDepth) + " levels (byte " +
             std::to_string(i + 1) + ")");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& error) {
    // nlohmann's text starts "[json.exception.parse_error.101] parse error at line 1, ...".
    std::string reason = error.what();
    if (const auto colon = reason.find(": "); colon != std::string::npos)
      reason = reason.substr(colon + 2);
    fail(reason + " (byte " + std::to_string(error.byte) + ")");
  } catch (const nlohmann::json::exception& error) {
    // Found by the fuzz target: a number such as 1e999 is out_of_range, not a parse_error.
    std::string reason = error.what();
    if (const auto bracket = reason.find("] "); bracket != std::string::npos)
      reason = reason.substr(bracket + 2);
    fail(reason);
  }
  return {};
}

}  // namespace tilescope::io
