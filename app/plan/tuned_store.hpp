#pragma once
// The best parameters --autotune found, remembered per backend, device and kernel in a small
// JSON file, so later runs of that kernel on that device use them when the user gives none.
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
};

class TunedStore {
 public:
  // $XDG_CONFIG_HOME/tilescope/tuned.json, or ~/.config/tilescope/tuned.json without it; empty
  // when neither variable is set.
  static std::string defaultPath();

  // Reads `path` when it exists; throws tilescope::Error(InvalidArgument) naming the file and
  // the problem when it cannot be read or parsed.
  explicit TunedStore(std::string path);

  const std::string& path() const { return path_; }
  std::optional<TunedEntry> find(const std::string& backend, const std::string& device,
                                 const std::string& kernel) const;
  // Adds the entry, replacing one for the same backend, device and kernel.
  void remember(const TunedEntry& entry);
  // Writes the file atomically, creating its directory; throws tilescope::Error.
  void save() const;

 private:
  std::string path_;
  std::vector<TunedEntry> entries_;
};

}  // namespace tilescope::plan
