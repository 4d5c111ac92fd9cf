// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Settings of the whole test process that a test changes for a while and gives back when it ends,
// an assertion that ends it early included: an environment variable, the address-space limit.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

namespace tilescope::test {

// `name` set to a value until the end of the scope, then back to what it was (or unset).
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    set(value);
  }
  ~ScopedVariable() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

  void set(const std::string& value) const { ::setenv(name_, value.c_str(), 1); }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// RLIMIT_AS lowered to the address space the process maps now and `roomBytes` more, until the end
// of the scope. lowered(): whether it could be.
class ScopedAddressSpaceRoom {
 public:
  explicit ScopedAddressSpaceRoom(std::uint64_t roomBytes) {
    std::uint64_t pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    if (pages == 0 || ::getrlimit(RLIMIT_AS, &before_) != 0) return;
    rlimit limit = before_;
    limit.rlim_cur = pages * std::uint64_t(::getpagesize()) + roomBytes;
    lowered_ = ::setrlimit(RLIMIT_AS, &limit) == 0;
  }
  ~ScopedAddressSpaceRoom() {
    if (lowered_) ::setrlimit(RLIMIT_AS, &before_);
  }
  ScopedAddressSpaceRoom(const ScopedAddressSpaceRoom&) = delete;
  ScopedAddressSpaceRoom& operator=(const ScopedAddressSpaceRoom&) = delete;

  bool lowered() const { return lowered_; }

 private:
  rlimit before_{};
  bool lowered_ = false;
};

}  // namespace tilescope::test
