#include "tuned_store.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "output_file.hpp"
#include "tilescope/error.hpp"

namespace tilescope::plan {

namespace {

constexpr int kFormatVersion = 1;

bool sameKey(const TunedEntry& a, const TunedEntry& b) {
  return a.backend == b.backend && a.device == b.device && a.kernel == b.kernel &&
         a.element == b.element;
}

// The type of an entry from before types were remembered: the kernel's default (what its runs
// took then), fp32 for a kernel this build does not know.
ElementType defaultElement(const std::string& kernel) {
  const KernelInfo* info = findKernel(kernel);
  return info ? info->types.front() : ElementType::F32;
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

std::string TunedStore::defaultPath() {
  const std::string configHome = environment("XDG_CONFIG_HOME");
  if (!configHome.empty()) return configHome + "/tilescope/tuned.json";
  const std::string home = environment("HOME");
  if (!home.empty()) return home + "/.config/tilescope/tuned.json";
  return "";
}

TunedStore::TunedStore(std::string path) : path_(std::move(path)) {
  std::ifstream in(path_);
  if (!in) return;  // nothing remembered yet
  const auto fail = [&](const std::string& problem) {
    throw Error(ErrorKind::InvalidArgument, "the remembered parameters in '" + path_ +
                                                "' cannot be read: " + problem +
                                                " (delete the file to start afresh)");
  };
  try {
    const nlohmann::json document = nlohmann::json::parse(in);
    if (document.at("format_version").get<int>() > kFormatVersion)
      fail("it was written by a newer TileScope");
    for (const nlohmann::json& item : document.at("entries")) {
      TunedEntry entry;
      entry.backend = item.at("backend").get<std::string>();
      entry.device = item.at("device").get<std::string>();
      entry.kernel = item.at("kernel").get<std::string>();
      for (const auto& [name, value] : item.at("params").items())
        entry.params[name] = value.get<int>();
      entry.shape = {item.at("m").get<std::int64_t>(), item.at("n").get<std::int64_t>(),
                     item.at("k").get<std::int64_t>()};
      entry.gflops = item.at("gflops").get<double>();
      if (const auto element = item.find("element"); element != item.end()) {
        const std::optional<ElementType> type = parseElementType(element->get<std::string>());
        if (!type) fail("'" + element->get<std::string>() + "' is not an element type");
        entry.element = *type;
      } else {
        entry.element = defaultElement(entry.kernel);
      }
      entries_.push_back(std::move(entry));
    }
  } catch (const nlohmann::json::exception& error) {
    fail(error.what());
  }
}

std::optional<TunedEntry> TunedStore::find(const std::string& backend, const std::string& device,
                                           const std::string& kernel, ElementType element) const {
  for (const TunedEntry& entry : entries_)
    if (sameKey(entry, {backend, device, kernel, {}, {}, 0, element})) return entry;
  return std::nullopt;
}

void TunedStore::remember(const TunedEntry& entry) {
  for (TunedEntry& existing : entries_) {
    if (sameKey(existing, entry)) {
      existing = entry;
      return;
    }
  }
  entries_.push_back(entry);
}

void TunedStore::save() const {
  if (path_.empty())
    throw Error(ErrorKind::InvalidArgument,
                "nowhere to remember the parameters: neither XDG_CONFIG_HOME nor HOME is set");
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path_).parent_path(), error);
  if (error)
    throw Error(ErrorKind::InvalidArgument,
                "cannot create the directory of '" + path_ + "': " + error.message());
  nlohmann::json entries = nlohmann::json::array();
  for (const TunedEntry& entry : entries_) {
    entries.push_back({{"backend", entry.backend},
                       {"device", entry.device},
                       {"kernel", entry.kernel},
                       {"params", entry.params},
                       {"m", entry.shape.m},
                       {"n", entry.shape.n},
                       {"k", entry.shape.k},
                       {"gflops", entry.gflops},
                       {"element", toString(entry.element)}});
  }
  const nlohmann::json document = {{"format_version", kFormatVersion}, {"entries", entries}};
  OutputFile file(path_, "the remembered parameters");
  file.commit(document.dump(2) + '\n');
}

}  // namespace tilescope::plan
