// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/catalogue.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>
#include <type_traits>

#include "core/registry.hpp"
#include "tilescope/error.hpp"
#include "tilescope/quote.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope {

namespace {

std::string knownIds() {
  std::string ids;
  for (const KernelInfo& k : catalogue()) ids += (ids.empty() ? "" : ", ") + k.id;
  return ids;
}

}  // namespace

const ParamSpec* KernelInfo::param(const std::string& name) const {
  for (const ParamSpec& p : params)
    if (p.name == name) return &p;
  return nullptr;
}

const std::vector<KernelInfo>& catalogue() {
  static const std::vector<KernelInfo> list = [] {
    std::vector<KernelInfo> infos;
    for (const KernelRegistration& registration : registeredKernels())
      infos.push_back(registration.info);
    return infos;
  }();
  return list;
}

const KernelInfo* findKernel(const std::string& id) {
  for (const KernelInfo& k : catalogue())
    if (k.id == id) return &k;
  return nullptr;
}

const KernelInfo& kernelInfo(const std::string& id) {
  if (const KernelInfo* k = findKernel(id)) return *k;
  throw Error(ErrorKind::InvalidArgument,
              "unknown kernel " + quoteValue(id) + " (known kernels: " + knownIds() + ")");
}

namespace {
constexpr std::string_view kUserPrefix = "user:";
}  // namespace

std::string userKernelId(const std::string& name) {
  return std::string(kUserPrefix) + name;
}

bool isUserKernelId(const std::string& id) {
  return id.rfind(kUserPrefix, 0) == 0;
}

std::string userKernelName(const std::string& id) {
  return isUserKernelId(id) ? id.substr(kUserPrefix.size()) : id;
}

std::optional<std::string> userKernelNameProblem(const std::string& name) {
  constexpr std::size_t kLongest = 64;
  if (name.empty()) return "a kernel needs a name";
  if (name.size() > kLongest)
    return "the name " + quoteValue(name) + " is longer than " + std::to_string(kLongest) +
           " characters";
  const auto allowed = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  };
  if (!std::all_of(name.begin(), name.end(), allowed))
    return "the name " + quoteValue(name) +
           " may hold only letters, digits, '_', '-' and '.' (it names results and files)";
  return std::nullopt;
}

KernelInfo userKernelInfo(const std::string& name, const std::string& source) {
  if (auto why = userKernelNameProblem(name)) throw Error(ErrorKind::InvalidArgument, *why);
  std::vector<CompileDiagnostic> problems = overlongLines(source);
  std::vector<ParamSpec> params;
  std::vector<ElementType> types;
  if (problems.empty()) {
    params = declaredParams(source, &problems);
    types = declaredTypes(source, &problems);
  }
  if (!problems.empty())
    throw Error(ErrorKind::InvalidArgument, name + ".cu line " +
                                                std::to_string(problems.front().line) + ": " +
                                                problems.front().message);
  return {.id = userKernelId(name),
          .displayName = name,
          .seed = "your own kernel (Kernel Editor)",
          .teaching =
              "Your kernel, compiled with NVRTC for the GPU that runs it (on the cpu backend by "
              "the host's C++ compiler, its threads run as CUDA's would), timed and verified "
              "like every catalogue kernel.",
          .params = std::move(params),
          .backends = {"cpu", "cuda"},
          .hasMapping = false,
          .types = std::move(types)};
}

const KernelInfo& kernelInfo(const KernelConfig& config) {
  if (!config.source) return kernelInfo(config.kernel);
  if (!isUserKernelId(config.kernel))
    throw Error(ErrorKind::InvalidArgument,
                "kernel " + quoteValue(config.kernel) +
                    " carries source code, which only a user kernel (\"user:NAME\") does");
  // Made once per distinct source and kept, so the reference outlives the call like a
  // catalogue entry's; a session compiles a few dozen versions at most.
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, std::unique_ptr<const KernelInfo>> made;
  const std::lock_guard lock(mutex);
  const std::pair<std::string, std::string> key{config.kernel, *config.source};
  if (const auto found = made.find(key); found != made.end()) return *found->second;
  // Kept only once made: a refused source (a server may be sent many) leaves nothing behind.
  auto info = std::make_unique<const KernelInfo>(
      userKernelInfo(userKernelName(config.kernel), *config.source));
  return *made.emplace(key, std::move(info)).first->second;
}

std::optional<std::string> refusal(const KernelConfig& config) {
  if (isUserKernelId(config.kernel) && !config.source)
    return quoteValue(config.kernel) +
           " is a kernel of the Kernel Editor, and the request does not carry its source";
  const KernelInfo* info = nullptr;
  if (config.source) {
    try {
      info = &kernelInfo(config);
    } catch (const Error& e) {
      return e.what();
    }
  } else {
    info = findKernel(config.kernel);
  }
  if (!info)
    return "unknown kernel " + quoteValue(config.kernel) + " (known kernels: " + knownIds() + ")";
  for (const auto& [name, value] : config.params) {
    const ParamSpec* spec = info->param(name);
    if (!spec) {
      if (info->params.empty()) return "kernel '" + info->id + "' takes no parameters";
      std::string names;
      for (const ParamSpec& p : info->params) names += (names.empty() ? "" : ", ") + p.name;
      return "kernel '" + info->id + "' has no parameter " + quoteValue(name) + " (it takes " +
             names + ")";
    }
    if (!std::binary_search(spec->allowed.begin(), spec->allowed.end(), value)) {
      return info->id + ": " + name + " = " + std::to_string(value) +
             " is refused: " + spec->refusal;
    }
  }
  if (info->check) {
    Params all = config.params;
    for (const ParamSpec& p : info->params) all.try_emplace(p.name, p.defaultValue);
    if (auto why = info->check(all))
      return info->id + ": " + formatParams({info->id, all}) + " is refused: " + *why;
  }
  return std::nullopt;
}

std::optional<std::string> elementRefusal(const KernelInfo& kernel, ElementType type) {
  if (std::find(kernel.types.begin(), kernel.types.end(), type) != kernel.types.end())
    return std::nullopt;
  std::string others;
  for (const KernelInfo& info : catalogue())
    if (std::find(info.types.begin(), info.types.end(), type) != info.types.end())
      others += (others.empty() ? "" : ", ") + info.id;
  std::string own;
  for (const ElementType t : kernel.types)
    own += (own.empty() ? "" : ", ") + std::string(toString(t));
  return "'" + kernel.id + "' multiplies " + own + " only; " + toString(type) +
         " is multiplied by " + (others.empty() ? "no kernel" : others);
}

std::string implementationOf(const std::string& backendId) {
  return backendId.substr(0, backendId.find('@'));
}

bool implements(const KernelInfo& kernel, const std::string& backendId) {
  const std::string id = implementationOf(backendId);
  return std::find(kernel.backends.begin(), kernel.backends.end(), id) != kernel.backends.end();
}

std::optional<std::string> workLimitRefusal(const KernelInfo& kernel, const std::string& backendId,
                                            const Shape& shape) {
  const auto bound = kernel.maxWork.find(implementationOf(backendId));
  const double work = double(shape.m) * double(shape.n) * double(shape.k);
  if (bound == kernel.maxWork.end() || bound->second <= 0 || work <= bound->second)
    return std::nullopt;
  return kernel.id + " is limited to M*N*K <= " + std::to_string(std::int64_t(bound->second)) +
         " on the " + backendId + " backend (this shape has " + std::to_string(std::int64_t(work)) +
         "): a launch cannot be interrupted, so a run this long must be asked for explicitly";
}

ResolvedKernel resolve(const KernelConfig& config) {
  if (auto reason = refusal(config)) throw Error(ErrorKind::InvalidArgument, *reason);
  const KernelInfo& info = kernelInfo(config);
  KernelConfig resolved = config;
  for (const ParamSpec& p : info.params) resolved.params.try_emplace(p.name, p.defaultValue);
  return {std::move(resolved), info};
}

std::vector<KernelConfig> validConfigurations(const KernelInfo& info,
                                              const std::optional<std::string>& source) {
  std::vector<KernelConfig> configs;
  for (const ParamSpec& spec : info.params)
    if (spec.allowed.empty()) return configs;
  // An odometer over the parameters in catalogue order: the last one turns fastest.
  std::vector<std::size_t> at(info.params.size(), 0);
  KernelConfig config{info.id, {}, source};
  while (true) {
    for (std::size_t p = 0; p < at.size(); ++p)
      config.params[info.params[p].name] = info.params[p].allowed[at[p]];
    if (!refusal(config)) configs.push_back(config);
    std::size_t p = at.size();
    while (p > 0 && ++at[p - 1] == info.params[p - 1].allowed.size()) at[--p] = 0;
    if (p == 0) return configs;
  }
}

std::uint64_t configurationCount(const KernelInfo& info) {
  constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t count = 1;
  for (const ParamSpec& spec : info.params) {
    const std::uint64_t values = spec.allowed.size();
    count = values != 0 && count > kSaturated / values ? kSaturated : count * values;
  }
  return count;
}

Params parseParams(const std::string& text) {
  const auto refuse = [](const std::string& problem) {
    throw Error(ErrorKind::InvalidArgument,
                problem + ": expected NAME=VALUE,..., e.g. BM=128,TM=8");
  };
  Params params;
  if (text.empty()) return params;
  // Every item counts, empty ones included: "tile=8," is a mistake, not "tile=8".
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, comma - begin);
    begin = comma + 1;
    if (item.empty()) refuse("empty parameter in " + quoteValue(text));
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    if (eq == std::string::npos || name.empty()) refuse("malformed parameter " + quoteValue(item));
    const std::string valueText = item.substr(eq + 1);
    int value = 0;
    const auto [end, ec] =
        std::from_chars(valueText.data(), valueText.data() + valueText.size(), value);
    if (ec == std::errc::result_out_of_range) {
      throw Error(ErrorKind::InvalidArgument,
                  "parameter " + quoteValue(name) + " = " + quoteValue(valueText) +
                      " is out of range: a parameter is a whole number from -2147483648 to "
                      "2147483647");
    }
    if (ec != std::errc() || end != valueText.data() + valueText.size() || valueText.empty()) {
      throw Error(ErrorKind::InvalidArgument, "parameter " + quoteValue(name) + " = " +
                                                  quoteValue(valueText) + " is not a whole number");
    }
    if (!params.emplace(name, value).second) {
      throw Error(ErrorKind::InvalidArgument, "parameter " + quoteValue(name) + " is given twice");
    }
  }
  return params;
}

std::string formatParams(const KernelConfig& config) {
  std::string text;
  auto append = [&](const std::string& name, int value) {
    text += (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
  };
  Params rest = config.params;
  const KernelInfo* info = findKernel(config.kernel);
  if (config.source && !refusal(config)) info = &kernelInfo(config);
  if (info) {
    for (const ParamSpec& p : info->params) {
      if (auto it = rest.find(p.name); it != rest.end()) {
        append(it->first, it->second);
        rest.erase(it);
      }
    }
  }
  for (const auto& [name, value] : rest) append(name, value);
  return text;
}

}  // namespace tilescope
