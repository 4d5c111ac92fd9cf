// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The best parameters --autotune found, remembered per backend, device, kernel, element type and
// size in a small JSON file, so later runs of that kernel on that device use them when the user
// gives none. The type is part of the key because one kernel's best tiles differ between types
// (tensor-mma in fp16 moves half the bytes of tf32 per element), and the size because they differ
// between sizes too (prefetched's best 4096^3 tile fills only part of the GPU at 1024^3).
#include <optional>
#include <string>
#include <vector>

#include "tilescope/catalogue.hpp"
#include "tilescope/problem.hpp"

namespace tilescope::plan {

struct TunedEntry {
  std::string backend, device, kernel;
  Params params;
  Shape shape;        // the size it was tuned at
  double gflops = 0;  // what it reached there
  ElementType element = ElementType::F32;
};

class TunedStore {
 public:
  // $XDG_CONFIG_HOME/tilescope/tuned.json, or ~/.config/tilescope/tuned.json without it; empty
  // when neither variable is set.
  static std::string defaultPath();

  // Reads `path` when it exists (a regular file of at most 1 MiB); throws
  // tilescope::Error(InvalidArgument) naming the file and the problem when it cannot be read or
  // parsed. An entry with a bad field is left out and named in warnings(). Entries written before
  // element types were remembered have none: they count as the kernel's default type.
  explicit TunedStore(std::string path);

  const std::string& path() const { return path_; }
  // One line per entry left out when reading, naming the file and the field's JSON path.
  const std::vector<std::string>& warnings() const { return warnings_; }
  // The entry of the backend, device, kernel and type tuned nearest `shape`: the one whose
  // M * N * K is closest to the shape's as a ratio (a 1024^3 run takes a 1024^3 entry over a
  // 4096^3 one, a 2048^3 run the nearer of the two, the larger on a tie); nullopt when none.
  std::optional<TunedEntry> find(const std::string& backend, const std::string& device,
                                 const std::string& kernel, ElementType element,
                                 const Shape& shape) const;
  // Adds the entry, replacing one for the same backend, device, kernel, type and size.
  void remember(const TunedEntry& entry);
  // Writes the file atomically, creating its directory; throws tilescope::Error.
  void save() const;

 private:
  std::string path_;
  std::vector<TunedEntry> entries_;
  std::vector<std::string> warnings_;
};

}  // namespace tilescope::plan
