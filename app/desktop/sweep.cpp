#include "sweep.hpp"

#include <algorithm>
#include <charconv>

#include "tilescope/catalogue.hpp"
#include "tilescope/error.hpp"

namespace tilescope::app {
namespace {

std::vector<std::string> splitList(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(separator, begin);
    parts.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) return parts;
    begin = end + 1;
  }
}

std::int64_t parsePositive(const std::string& text, const std::string& what) {
  std::int64_t value = 0;
  const char* last = text.data() + text.size();
  const auto [end, status] = std::from_chars(text.data(), last, value);
  if (status != std::errc() || end != last || value < 1) {
    throw Error(ErrorKind::InvalidArgument,
                what + " '" + text + "' is not a whole number of at least 1");
  }
  return value;
}

Shape parseSize(const std::string& text) {
  const std::vector<std::string> dims = splitList(text, 'x');
  Shape shape;
  if (dims.size() == 1) {
    shape.m = shape.n = shape.k = parsePositive(dims[0], "size");
  } else if (dims.size() == 3) {
    shape = {parsePositive(dims[0], "M"), parsePositive(dims[1], "N"), parsePositive(dims[2], "K")};
  } else {
    throw Error(ErrorKind::InvalidArgument, "size '" + text + "' is neither S nor MxNxK");
  }
  validateShape(shape);
  return shape;
}

bool isShapeAxis(const std::string& name) {
  return name == "size" || name == "m" || name == "n" || name == "k";
}

// Keeps the parameters `kernel` has, so a tile chosen for one kernel does not break another.
KernelConfig switchKernel(const KernelConfig& from, const std::string& kernel) {
  const KernelInfo& info = kernelInfo(kernel);
  KernelConfig to{kernel, {}};
  for (const auto& [name, value] : from.params) {
    if (info.param(name)) to.params[name] = value;
  }
  return to;
}

void expandAxis(const RunRequest& current, const std::vector<SweepAxis>& axes, std::size_t axis,
                std::vector<RunRequest>& out) {
  if (axis == axes.size()) {
    RunRequest resolved = current;
    resolved.kernel = resolve(current.kernel);
    out.push_back(resolved);
    return;
  }
  const SweepAxis& sweep = axes[axis];
  const bool all = sweep.values == std::vector<std::string>{"all"};
  if (isShapeAxis(sweep.name)) {
    for (const std::string& value : sweep.values) {
      RunRequest next = current;
      if (sweep.name == "size") {
        next.shape = parseSize(value);
      } else {
        const std::int64_t dimension = parsePositive(value, sweep.name);
        (sweep.name == "m"   ? next.shape.m
         : sweep.name == "n" ? next.shape.n
                             : next.shape.k) = dimension;
        validateShape(next.shape);
      }
      expandAxis(next, axes, axis + 1, out);
    }
  } else if (sweep.name == "kernel") {
    std::vector<std::string> kernels = sweep.values;
    if (all) {
      kernels.clear();
      for (const KernelInfo& info : catalogue()) kernels.push_back(info.id);
    }
    for (const std::string& value : kernels) {
      RunRequest next = current;
      next.kernel = switchKernel(current.kernel, value);
      expandAxis(next, axes, axis + 1, out);
    }
  } else {
    const ParamSpec* spec = kernelInfo(current.kernel.kernel).param(sweep.name);
    if (!spec) {
      expandAxis(current, axes, axis + 1, out);
      return;
    }
    std::vector<int> values;
    if (all) {
      values = spec->allowed;
    } else {
      for (const std::string& value : sweep.values) {
        values.push_back(int(parsePositive(value, sweep.name)));
      }
    }
    for (int value : values) {
      RunRequest next = current;
      next.kernel.params[sweep.name] = value;
      expandAxis(next, axes, axis + 1, out);
    }
  }
}

}  // namespace

SweepAxis parseSweepAxis(const std::string& text) {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
    throw Error(ErrorKind::InvalidArgument,
                "sweep '" + text + "' is not NAME=V1,V2,... (e.g. tile=8,16,32 or size=256,512)");
  }
  SweepAxis axis{text.substr(0, equals), splitList(text.substr(equals + 1), ',')};
  for (const std::string& value : axis.values) {
    if (value.empty()) {
      throw Error(ErrorKind::InvalidArgument, "sweep '" + text + "' has an empty value");
    }
    if (value == "all" && axis.values.size() > 1) {
      throw Error(ErrorKind::InvalidArgument, "sweep '" + text + "': 'all' stands alone");
    }
  }
  if (axis.values == std::vector<std::string>{"all"} && isShapeAxis(axis.name)) {
    throw Error(ErrorKind::InvalidArgument,
                "sweep '" + text + "': 'all' applies to kernel and parameter sweeps only");
  }
  return axis;
}

std::vector<RunRequest> expandSweep(const RunRequest& base, const std::vector<SweepAxis>& axes) {
  // Names are checked up front so a parameter no kernel has is an error, not a silent no-op.
  for (const SweepAxis& sweep : axes) {
    if (isShapeAxis(sweep.name) || sweep.name == "kernel") continue;
    bool known = false;
    for (const KernelInfo& info : catalogue()) known = known || info.param(sweep.name);
    if (!known) {
      throw Error(ErrorKind::InvalidArgument,
                  "cannot sweep '" + sweep.name +
                      "': it is not kernel, size, m, n, k or a kernel parameter");
    }
  }
  // The kernel is the outermost loop, as in tilescope-bench, so each kernel's runs stay together.
  std::vector<SweepAxis> ordered = axes;
  std::stable_partition(ordered.begin(), ordered.end(),
                        [](const SweepAxis& sweep) { return sweep.name == "kernel"; });
  std::vector<RunRequest> requests;
  expandAxis(base, ordered, 0, requests);
  return requests;
}

}  // namespace tilescope::app
