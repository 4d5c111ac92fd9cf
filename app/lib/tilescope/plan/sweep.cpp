// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/plan/sweep.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "tilescope/error.hpp"
#include "tilescope/quote.hpp"

namespace tilescope::plan {

namespace {

[[noreturn]] void refuse(const std::string& message) {
  throw Error(ErrorKind::InvalidArgument, message);
}

bool isDimensionKey(const std::string& key) {
  return key == "size" || key == "m" || key == "n" || key == "k";
}

bool isParameterName(const std::string& name) {
  return std::any_of(catalogue().begin(), catalogue().end(),
                     [&](const KernelInfo& k) { return k.param(name) != nullptr; });
}

// Keeps empty parts, so "8,,16" and "8," show up as empty values.
std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(separator, begin);
    parts.push_back(text.substr(begin, end == std::string::npos ? end : end - begin));
    if (end == std::string::npos) return parts;
    begin = end + 1;
  }
}

std::string axisText(const SweepAxis& axis) {
  std::string text = axis.key + "=";
  for (std::size_t i = 0; i < axis.values.size(); ++i) text += (i == 0 ? "" : ",") + axis.values[i];
  return text;
}

// A size value: S (M = N = K) or MxNxK.
void applySize(const std::string& text, const std::string& what, Dimensions& dims) {
  const std::vector<std::string> parts = split(text, 'x');
  if (parts.size() == 1) {
    dims.m = dims.n = dims.k = parseDimension(text, what);
  } else if (parts.size() == 3) {
    dims = {parseDimension(parts[0], what), parseDimension(parts[1], what),
            parseDimension(parts[2], what)};
  } else {
    refuse(what + ": '" + text + "' is neither S nor MxNxK");
  }
}

// Sets what one value of a size or m, n, k axis says.
void applyDimension(const SweepAxis& axis, const std::string& text, Dimensions& dims) {
  const std::string what = "--sweep " + axis.key;
  if (axis.key == "size") {
    applySize(text, what, dims);
  } else {
    (axis.key == "m" ? dims.m : axis.key == "n" ? dims.n : dims.k) = parseDimension(text, what);
  }
}

[[noreturn]] void refuseUnknownKey(const std::string& key) {
  refuse("--sweep: unknown key '" + key +
         "' (sweep kernel, size, m, n, k or a kernel parameter such as tile)");
}

// A name TS_PARAM could declare: a user kernel's parameters are known only once the plan knows
// its kernels, so planRuns refuses a name no planned kernel has.
bool mayNameAParameter(const std::string& key) {
  const auto wordCharacter = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  return !key.empty() && !std::isdigit(static_cast<unsigned char>(key.front())) &&
         std::all_of(key.begin(), key.end(), wordCharacter);
}

void checkAxis(const SweepAxis& axis) {
  if (axis.key != "kernel" && !isDimensionKey(axis.key) && !mayNameAParameter(axis.key))
    refuseUnknownKey(axis.key);
  const auto empty = [](const std::string& value) { return value.empty(); };
  if (axis.values.empty() || std::any_of(axis.values.begin(), axis.values.end(), empty))
    refuse("--sweep " + axis.key + ": empty value in '" + axisText(axis) + "'");
  if (std::find(axis.values.begin(), axis.values.end(), "all") != axis.values.end()) {
    if (!axis.all()) refuse("--sweep " + axis.key + ": 'all' stands alone");
    if (isDimensionKey(axis.key))
      refuse("--sweep " + axis.key + "=all: 'all' applies to kernel and parameter sweeps only");
    return;
  }
  // Every value parses now, even one a kernel without the parameter would never read.
  for (const std::string& value : axis.values) {
    if (axis.key == "kernel") {
      // Throws for an unknown id; a user kernel's id is checked with its source (plannedKernels).
      if (!isUserKernelId(value)) kernelInfo(value);
    } else if (isDimensionKey(axis.key)) {
      Dimensions unused;
      applyDimension(axis, value, unused);
    } else {
      parseParameterValue(value, "--sweep " + axis.key);
    }
  }
}

// Walks the non-kernel axes for one kernel, depth first, and appends a resolved run per leaf.
void expand(const std::vector<const SweepAxis*>& axes, std::size_t axis, RunRequest run,
            Dimensions dims, std::vector<RunRequest>& runs) {
  if (axis == axes.size()) {
    // Checks the user's values as the plan is made (a bad one fails before any run) and names
    // every parameter in the plan's listing; the backend takes it as it is.
    run.kernel = resolve(run.kernel);
    run.shape = completeShape(dims);
    runs.push_back(std::move(run));
    return;
  }
  const SweepAxis& sweep = *axes[axis];
  if (isDimensionKey(sweep.key)) {
    for (const std::string& value : sweep.values) {
      applyDimension(sweep, value, dims);
      expand(axes, axis + 1, run, dims, runs);
    }
    return;
  }
  const ParamSpec* spec = kernelInfo(run.kernel).param(sweep.key);
  // A kernel without this parameter runs once, at its only configuration.
  if (!spec) return expand(axes, axis + 1, run, dims, runs);
  if (sweep.all()) {
    for (int value : spec->allowed) {
      run.kernel.params[sweep.key] = value;
      expand(axes, axis + 1, run, dims, runs);
    }
    return;
  }
  for (const std::string& value : sweep.values) {
    run.kernel.params[sweep.key] = parseParameterValue(value, "--sweep " + sweep.key);
    expand(axes, axis + 1, run, dims, runs);
  }
}

// How many runs the axes make for `kernels`, counted without building them; saturates rather
// than overflows.
std::uint64_t countRuns(const std::vector<const KernelInfo*>& kernels,
                        const std::vector<const SweepAxis*>& axes) {
  constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();
  const auto times = [](std::uint64_t a, std::uint64_t b) {
    return b != 0 && a > kSaturated / b ? kSaturated : a * b;
  };
  std::uint64_t total = 0;
  for (const KernelInfo* kernel : kernels) {
    std::uint64_t runs = 1;
    for (const SweepAxis* axis : axes) {
      const ParamSpec* spec = isDimensionKey(axis->key) ? nullptr : kernel->param(axis->key);
      if (isDimensionKey(axis->key) || (spec && !axis->all()))
        runs = times(runs, axis->values.size());
      else if (spec)
        runs = times(runs, spec->allowed.size());
    }
    total = runs > kSaturated - total ? kSaturated : total + runs;
  }
  return total;
}

}  // namespace

std::string describe(const RunRequest& run) {
  const std::string params = formatParams(run.kernel);
  return run.kernel.kernel + (params.empty() ? "" : " " + params) + " " +
         std::to_string(run.shape.m) + "x" + std::to_string(run.shape.n) + "x" +
         std::to_string(run.shape.k);
}

std::int64_t parseInteger(const std::string& text, const std::string& what) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range)
    refuse(what + " = " + quoteValue(text) + " is out of range");
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    refuse(what + ": " + quoteValue(text) + " is not a whole number");
  return value;
}

std::int64_t parseIntegerIn(const std::string& text, const std::string& what, std::int64_t minimum,
                            std::int64_t maximum) {
  const std::int64_t value = parseInteger(text, what);
  if (value < minimum || value > maximum) {
    refuse(what + " = " + text + " is out of range: a whole number from " +
           std::to_string(minimum) + " to " + std::to_string(maximum));
  }
  return value;
}

std::int64_t parseDimension(const std::string& text, const std::string& what) {
  const std::int64_t value = parseInteger(text, what);
  if (value < 1 || value > kMaxDimension) {
    refuse(what + " = " + text + " is out of range: sizes must be 1.." +
           std::to_string(kMaxDimension));
  }
  return value;
}

int parseParameterValue(const std::string& text, const std::string& what) {
  return int(
      parseIntegerIn(text, what, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

Params parseParamsOption(const std::string& text, const std::string& what) {
  if (text.empty())
    refuse(what + ": no parameters given: expected NAME=VALUE,..., e.g. BM=128,TM=8");
  try {
    return parseParams(text);
  } catch (const Error& error) {
    refuse(what + ": " + error.what());
  }
}

double parsePositiveNumber(const std::string& text, const std::string& what) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    refuse(what + ": " + quoteValue(text) + " is not a number");
  // from_chars reads "inf" and "nan": neither is a budget.
  if (!std::isfinite(value) || value <= 0)
    refuse(what + " = " + quoteValue(text) + " is out of range: a finite number above 0");
  return value;
}

Shape completeShape(const Dimensions& dims) {
  if (dims.m && dims.n && dims.k) return {*dims.m, *dims.n, *dims.k};
  std::string missing;
  for (const auto& [name, value] : {std::pair{"--m", dims.m}, {"--n", dims.n}, {"--k", dims.k}})
    if (!value) missing += std::string(missing.empty() ? "" : ", ") + name;
  refuse("no problem size: give --size S, or --m, --n and --k (missing " + missing + ")");
}

Sweep::Sweep(std::vector<SweepAxis> axes) {
  for (SweepAxis& axis : axes) {
    checkAxis(axis);
    if (find(axis.key))
      refuse("--sweep " + axis.key + " is given twice: list every value in one --sweep");
    axes_.push_back(std::move(axis));
  }
  if (find("size") && (find("m") || find("n") || find("k")))
    refuse("--sweep size conflicts with --sweep m, n or k: sweep one or the other");
}

Sweep Sweep::parse(const std::vector<std::string>& texts) {
  std::vector<SweepAxis> axes;
  for (const std::string& text : texts) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0) {
      refuse("--sweep '" + text + "': expected KEY=V1,V2,... such as tile=8,16,32 or size=256,512");
    }
    axes.push_back({text.substr(0, eq), split(text.substr(eq + 1), ',')});
  }
  return Sweep(std::move(axes));
}

const SweepAxis* Sweep::find(const std::string& key) const {
  const auto found = std::find_if(axes_.begin(), axes_.end(),
                                  [&](const SweepAxis& axis) { return axis.key == key; });
  return found == axes_.end() ? nullptr : &*found;
}

bool Sweep::sweepsParameterOf(const KernelInfo& kernel) const {
  return std::any_of(axes_.begin(), axes_.end(),
                     [&](const SweepAxis& axis) { return kernel.param(axis.key) != nullptr; });
}

std::vector<const KernelInfo*> plannedKernels(const Sweep& sweep, const KernelConfig& base,
                                              const std::string& backend, ElementType element) {
  // The base kernel may be a user kernel, whose entry its source makes.
  const auto infoOf = [&](const std::string& id) {
    return &kernelInfo(id == base.kernel ? KernelConfig{id, {}, base.source}
                                         : KernelConfig{id, {}});
  };
  const SweepAxis* kernelAxis = sweep.find("kernel");
  std::vector<const KernelInfo*> kernels;
  if (!kernelAxis) {
    kernels = {infoOf(base.kernel)};
  } else if (kernelAxis->all()) {
    for (const KernelInfo& info : catalogue()) {
      if (implements(info, backend) && !elementRefusal(info, element)) kernels.push_back(&info);
    }
  } else {
    for (const std::string& id : kernelAxis->values) kernels.push_back(infoOf(id));
  }
  // A listed kernel that does not multiply the type is refused before anything runs.
  for (const KernelInfo* info : kernels)
    if (auto why = elementRefusal(*info, element)) refuse(*why);
  return kernels;
}

std::vector<RunRequest> planRuns(const Sweep& sweep, const Start& start) {
  const std::vector<const KernelInfo*> kernels =
      plannedKernels(sweep, start.base.kernel, start.backend, start.base.element);
  std::vector<const SweepAxis*> axes;
  for (const SweepAxis& axis : sweep.axes()) {
    if (axis.key == "kernel") continue;
    const auto hasIt = [&](const KernelInfo* kernel) { return kernel->param(axis.key); };
    // Listed values of a parameter that none of the kernels has would be silently dropped; a
    // name no kernel anywhere has is an unknown key (checkAxis let it through for TS_PARAM).
    if (!isDimensionKey(axis.key) && !kernels.empty() &&
        std::none_of(kernels.begin(), kernels.end(), hasIt)) {
      if (!isParameterName(axis.key)) refuseUnknownKey(axis.key);
      if (!axis.all())
        refuse("--sweep " + axis.key + ": " + *refusal({kernels.front()->id, {{axis.key, 0}}}));
    }
    axes.push_back(&axis);
  }
  if (const std::uint64_t count = countRuns(kernels, axes); count > kMaxRuns) {
    refuse("--sweep: the sweep has " + std::to_string(count) + " runs, more than the " +
           std::to_string(kMaxRuns) + " one plan may hold; sweep fewer values or split it");
  }

  std::vector<RunRequest> runs;
  for (const KernelInfo* kernel : kernels) {
    RunRequest run = start.base;
    run.kernel = {
        kernel->id, {}, isUserKernelId(kernel->id) ? start.base.kernel.source : std::nullopt};
    if (const auto given = start.kernelParams.find(kernel->id); given != start.kernelParams.end()) {
      run.kernel.params = given->second;
    } else {
      for (const auto& [name, value] : start.base.kernel.params)
        if (kernel->param(name)) run.kernel.params[name] = value;
    }
    expand(axes, 0, run, start.dims, runs);
  }
  return runs;
}

}  // namespace tilescope::plan
