#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tilescope/error.hpp"

namespace tilescope::plan {

namespace {

[[noreturn]] void cannotWrite(const std::string& what, const std::string& path,
                              const std::string& reason) {
  throw Error(ErrorKind::InvalidArgument, "cannot write " + what + " '" + path + "': " + reason);
}

}  // namespace

OutputFile::OutputFile(std::string path, std::string what)
    : path_(std::move(path)), what_(std::move(what)) {
  if (path_.empty()) cannotWrite(what_, path_, "the path is empty");
  struct stat existing {};
  if (::stat(path_.c_str(), &existing) == 0) {
    if (S_ISDIR(existing.st_mode)) cannotWrite(what_, path_, "it is a directory");
    // rename() would replace a read-only file; honour its protection instead.
    if (::access(path_.c_str(), W_OK) != 0) cannotWrite(what_, path_, std::strerror(errno));
  }
  temporaryPath_ = path_ + ".tmp-" + std::to_string(::getpid());
  // O_EXCL: never write through a file or link that is already there. The mode follows umask.
  descriptor_ = ::open(temporaryPath_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (descriptor_ < 0) cannotWrite(what_, path_, std::strerror(errno));
}

OutputFile::~OutputFile() {
  if (descriptor_ >= 0) {
    ::close(descriptor_);
    ::unlink(temporaryPath_.c_str());
  }
}

void OutputFile::commit(const std::string& content) {
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t written = ::write(descriptor_, data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) cannotWrite(what_, path_, std::strerror(errno));
    data += written;
    left -= std::size_t(written);
  }
  const bool synced = ::fsync(descriptor_) == 0;
  const int syncError = errno;
  const bool closed = ::close(descriptor_) == 0;
  descriptor_ = -1;
  if (!synced || !closed) {
    const std::string reason = std::strerror(synced ? errno : syncError);
    ::unlink(temporaryPath_.c_str());
    cannotWrite(what_, path_, reason);
  }
  if (::rename(temporaryPath_.c_str(), path_.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temporaryPath_.c_str());
    cannotWrite(what_, path_, reason);
  }
}

}  // namespace tilescope::plan
