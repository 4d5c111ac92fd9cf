#include "plan.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>

#include "tilescope/error.hpp"

namespace tilescope::bench {

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

std::int64_t parseDimension(const std::string& text, const std::string& what) {
  const std::int64_t value = parseInteger(text, what);
  if (value < 1 || value > kMaxDimension) {
    refuse(what + " = " + text + " is out of range: sizes must be 1.." +
           std::to_string(kMaxDimension));
  }
  return value;
}

int parseParameterValue(const std::string& text, const std::string& what) {
  const std::int64_t value = parseInteger(text, what);
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
    refuse(what + " = " + text + " is out of range");
  return int(value);
}

// One axis of a sweep, as typed: --sweep KEY=V1,V2,... or --sweep KEY=all.
struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
  bool all = false;  // every value each kernel allows (kernel and parameter axes only)
};

SweepAxis parseSweep(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    refuse("--sweep '" + text + "': expected KEY=V1,V2,... such as tile=8,16,32 or size=256,512");
  SweepAxis axis{text.substr(0, eq), {}, false};
  if (axis.key != "kernel" && !isDimensionKey(axis.key) && !isParameterName(axis.key)) {
    refuse("--sweep: unknown key '" + axis.key +
           "' (sweep kernel, size, m, n, k or a kernel parameter such as tile)");
  }
  std::stringstream list(text.substr(eq + 1));
  for (std::string value; std::getline(list, value, ',');) {
    if (value.empty()) refuse("--sweep " + axis.key + ": empty value in '" + text + "'");
    axis.values.push_back(value);
  }
  if (axis.values.empty() || text.back() == ',')
    refuse("--sweep " + axis.key + ": empty value in '" + text + "'");
  if (std::find(axis.values.begin(), axis.values.end(), "all") != axis.values.end()) {
    if (axis.values.size() != 1) refuse("--sweep " + axis.key + ": 'all' stands alone");
    if (isDimensionKey(axis.key))
      refuse("--sweep " + axis.key + "=all: 'all' applies to kernel and parameter sweeps only");
    axis.all = true;
  }
  return axis;
}

struct Dimensions {
  std::optional<std::int64_t> m, n, k;
};

[[noreturn]] void refuseMissingSize(const Dimensions& dims) {
  std::string missing;
  for (const auto& [name, value] : {std::pair{"--m", dims.m}, {"--n", dims.n}, {"--k", dims.k}})
    if (!value) missing += std::string(missing.empty() ? "" : ", ") + name;
  refuse("no problem size: give --size S, or --m, --n and --k (missing " + missing + ")");
}

// --size, --m, --n and --k as given (a sweep may set the rest).
Dimensions fixedDimensions(const PlanInput& input) {
  Dimensions dims;
  if (input.size) dims.m = dims.n = dims.k = parseDimension(*input.size, "--size");
  if (input.m) dims.m = parseDimension(*input.m, "--m");
  if (input.n) dims.n = parseDimension(*input.n, "--n");
  if (input.k) dims.k = parseDimension(*input.k, "--k");
  return dims;
}

// Walks the sweep axes for one kernel, depth first, and appends a validated run per leaf.
class Expander {
 public:
  Expander(const std::vector<SweepAxis>& axes, const Backend& backend, const RunRequest& base,
           std::vector<RunRequest>& runs)
      : axes_(axes), backend_(backend), base_(base), runs_(runs) {}

  void expand(const KernelInfo& kernel, std::size_t axis, Params params, Dimensions dims) {
    if (axis == axes_.size()) return addRun(kernel, params, dims);
    const SweepAxis& sweep = axes_[axis];
    if (sweep.all) {
      const ParamSpec* spec = kernel.param(sweep.key);
      // A kernel without this parameter runs once, at its only configuration.
      if (!spec) return expand(kernel, axis + 1, params, dims);
      for (int value : spec->allowed) {
        params[sweep.key] = value;
        expand(kernel, axis + 1, params, dims);
      }
      return;
    }
    for (const std::string& text : sweep.values) {
      const std::string what = "--sweep " + sweep.key;
      if (sweep.key == "size") {
        dims.m = dims.n = dims.k = parseDimension(text, what);
      } else if (sweep.key == "m") {
        dims.m = parseDimension(text, what);
      } else if (sweep.key == "n") {
        dims.n = parseDimension(text, what);
      } else if (sweep.key == "k") {
        dims.k = parseDimension(text, what);
      } else {
        params[sweep.key] = parseParameterValue(text, what);
      }
      expand(kernel, axis + 1, params, dims);
    }
  }

 private:
  void addRun(const KernelInfo& kernel, const Params& params, const Dimensions& dims) {
    if (!dims.m || !dims.n || !dims.k) refuseMissingSize(dims);
    RunRequest run = base_;
    run.kernel = resolve(KernelConfig{kernel.id, params});
    run.shape = Shape{*dims.m, *dims.n, *dims.k};
    if (const auto why = backend_.refusal(run.kernel, run.shape)) {
      throw Error(ErrorKind::Unsupported,
                  "cannot run " + describe(run) + " on " + backend_.id() + ": " + *why);
    }
    runs_.push_back(std::move(run));
  }

  const std::vector<SweepAxis>& axes_;
  const Backend& backend_;
  const RunRequest& base_;
  std::vector<RunRequest>& runs_;
};

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
  if (ec == std::errc::result_out_of_range) refuse(what + " = " + text + " is out of range");
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    refuse(what + ": '" + text + "' is not a whole number");
  return value;
}

double parsePositiveNumber(const std::string& text, const std::string& what) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    refuse(what + ": '" + text + "' is not a number");
  if (!std::isfinite(value) || value <= 0) refuse(what + " = " + text + " must be above 0");
  return value;
}

Shape problemShape(const PlanInput& input) {
  const Dimensions dims = fixedDimensions(input);
  if (!dims.m || !dims.n || !dims.k) refuseMissingSize(dims);
  return {*dims.m, *dims.n, *dims.k};
}

Plan buildPlan(const PlanInput& input, const Backend& backend) {
  std::vector<SweepAxis> axes;
  std::optional<SweepAxis> kernelAxis;
  for (const std::string& text : input.sweeps) {
    SweepAxis axis = parseSweep(text);
    const auto sameKey = [&](const SweepAxis& other) { return other.key == axis.key; };
    if ((kernelAxis && axis.key == "kernel") || std::any_of(axes.begin(), axes.end(), sameKey))
      refuse("--sweep " + axis.key + " is given twice: list every value in one --sweep");
    if (axis.key == "kernel") {
      kernelAxis = std::move(axis);
    } else {
      axes.push_back(std::move(axis));
    }
  }
  const auto swept = [&](const std::string& key) {
    return std::any_of(axes.begin(), axes.end(), [&](const SweepAxis& a) { return a.key == key; });
  };

  // Fixed options and sweeps must not both set the same thing.
  if (swept("size") && (swept("m") || swept("n") || swept("k")))
    refuse("--sweep size conflicts with --sweep m, n or k: sweep one or the other");
  if (input.kernel && kernelAxis)
    refuse("--kernel conflicts with --sweep kernel: give one of them");
  if (input.tile && swept("tile")) refuse("--tile conflicts with --sweep tile: give one of them");
  if (input.size && (swept("size") || swept("m") || swept("n") || swept("k")))
    refuse("--size conflicts with a size sweep: give one of them");
  const std::pair<const char*, const std::optional<std::string>*> fixedDims[] = {
      {"m", &input.m}, {"n", &input.n}, {"k", &input.k}};
  for (const auto& [key, value] : fixedDims) {
    if (*value && (swept(key) || swept("size")))
      refuse(std::string("--") + key + " conflicts with --sweep " + (swept(key) ? key : "size") +
             ": give one of them");
  }

  Params baseParams;
  if (input.params) {
    baseParams = parseParams(*input.params);
    for (const auto& [name, value] : baseParams)
      if (swept(name)) refuse("--param " + name + " conflicts with --sweep " + name);
  }
  if (input.tile) baseParams["tile"] = parseParameterValue(*input.tile, "--tile");

  const Dimensions baseDims = fixedDimensions(input);

  std::vector<const KernelInfo*> kernels;
  if (kernelAxis && kernelAxis->all) {
    for (const KernelInfo& k : catalogue()) {
      if (std::find(k.backends.begin(), k.backends.end(), backend.id()) != k.backends.end())
        kernels.push_back(&k);
    }
  } else if (kernelAxis) {
    for (const std::string& id : kernelAxis->values) kernels.push_back(&kernelInfo(id));
  } else if (input.kernel) {
    kernels.push_back(&kernelInfo(*input.kernel));
  } else {
    refuse("no kernel: give --kernel ID or --sweep kernel=ID,... (see --list)");
  }

  Plan plan;
  Expander expander(axes, backend, input.base, plan.runs);
  for (const KernelInfo* kernel : kernels) {
    if (input.tile && !kernel->param("tile")) {
      refuse("--tile: kernel '" + kernel->id + "' has no tile parameter" +
             (kernel->params.empty() ? " (it takes no parameters)" : " (use --param)"));
    }
    const bool sweepsItsParameter = std::any_of(
        axes.begin(), axes.end(), [&](const SweepAxis& a) { return kernel->param(a.key); });
    const auto remembered = input.remembered.find(kernel->id);
    if (!input.tile && !input.params && !sweepsItsParameter &&
        remembered != input.remembered.end()) {
      plan.usedRemembered.push_back(kernel->id);
      expander.expand(*kernel, 0, remembered->second, baseDims);
    } else {
      expander.expand(*kernel, 0, baseParams, baseDims);
    }
  }
  return plan;
}

}  // namespace tilescope::bench
