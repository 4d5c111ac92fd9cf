// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/plan/tuned_store.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "tilescope/error.hpp"
#include "tilescope/io/file_io.hpp"
#include "tilescope/io/json_fields.hpp"
#include "tilescope/quote.hpp"

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

TunedEntry entryFromJson(const nlohmann::json& item, const std::string& path) {
  TunedEntry entry;
  entry.backend = io::stringField(item, "backend", path);
  entry.device = io::stringField(item, "device", path);
  entry.kernel = io::stringField(item, "kernel", path);
  const std::string paramsPath = io::memberPath(path, "params");
  const nlohmann::json& params = io::objectAt(io::requiredField(item, "params", path), paramsPath);
  for (const auto& [name, value] : params.items()) {
    entry.params[name] =
        int(io::integerField(params, name.c_str(), paramsPath, std::numeric_limits<int>::min(),
                             std::numeric_limits<int>::max(), "parameter value"));
  }
  entry.shape = {io::sizeField(item, "m", path), io::sizeField(item, "n", path),
                 io::sizeField(item, "k", path)};
  entry.gflops = io::numberField(item, "gflops", path, io::Sign::Positive);
  entry.element = item.contains("element") ? io::elementTypeField(item, "element", path)
                                           : defaultElement(entry.kernel);
  return entry;
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
  if (path_.empty()) return;
  const std::string what = "the remembered parameters";
  const std::optional<std::string> text =
      io::readFile(path_, io::kMaxTunedBytes, what, /*missingIsEmpty=*/true);
  if (!text) return;  // nothing remembered yet
  try {
    const nlohmann::json document = io::parseJson(*text, "it");
    io::versionField(document, "format_version", "", kFormatVersion);
    const nlohmann::json& entries =
        io::arrayAt(io::requiredField(document, "entries", ""), "entries");
    for (std::size_t i = 0; i < entries.size(); ++i) {
      // One bad entry costs only itself.
      try {
        entries_.push_back(entryFromJson(entries[i], io::elementPath("entries", i)));
      } catch (const Error& error) {
        warnings_.push_back(what + " in " + quoteValue(path_) + ": " + error.what() +
                            "; that entry is ignored");
      }
    }
  } catch (const Error& error) {
    throw Error(ErrorKind::InvalidArgument, "cannot read " + what + " " + quoteValue(path_) + ": " +
                                                error.what() +
                                                " (delete the file to start afresh)");
  }
}

std::optional<TunedEntry> TunedStore::find(const std::string& backend, const std::string& device,
                                           const std::string& kernel, ElementType element,
                                           const Shape& shape) const {
  // How many times more work one of the two sizes is than the other (exact for powers of two,
  // so 2048^3 lies as far from 1024^3 as from 4096^3).
  const auto distance = [&](const TunedEntry& entry) {
    const double tuned = entry.shape.flops(), wanted = shape.flops();
    return std::max(tuned, wanted) / std::min(tuned, wanted);
  };
  const TunedEntry* nearest = nullptr;
  for (const TunedEntry& entry : entries_) {
    if (!sameKey(entry, {backend, device, kernel, {}, {}, 0, element})) continue;
    if (!nearest || distance(entry) < distance(*nearest) ||
        (distance(entry) == distance(*nearest) && entry.shape.flops() > nearest->shape.flops()))
      nearest = &entry;
  }
  return nearest ? std::optional<TunedEntry>(*nearest) : std::nullopt;
}

void TunedStore::remember(const TunedEntry& entry) {
  for (TunedEntry& existing : entries_) {
    if (sameKey(existing, entry) && existing.shape == entry.shape) {
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
  io::writeFile(path_, document.dump(2) + '\n', "the remembered parameters");
}

}  // namespace tilescope::plan
