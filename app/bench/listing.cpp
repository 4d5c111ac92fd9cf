// SPDX-License-Identifier: GPL-3.0-or-later
#include "listing.hpp"

#include <cstdint>
#include <ostream>
#include <string>

#include "tilescope/backend.hpp"

namespace tilescope::bench {

namespace {

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

// "1..32" for a run of consecutive values, otherwise every value: "1,2,4,8".
std::string formatAllowed(const std::vector<int>& allowed) {
  if (allowed.empty()) return "none";
  if (allowed.size() > 2 && allowed.back() - allowed.front() + 1 == int(allowed.size()))
    return std::to_string(allowed.front()) + ".." + std::to_string(allowed.back());
  std::vector<std::string> values;
  for (int v : allowed) values.push_back(std::to_string(v));
  return join(values, ",");
}

void writeKernel(std::ostream& out, const KernelInfo& kernel) {
  const std::string indent(4, ' ');
  out << "  " << kernel.id << ": " << kernel.displayName << "\n"
      << indent << "seed: " << kernel.seed << '\n'
      << indent << "backends: " << join(kernel.backends, ", ") << '\n';
  std::vector<std::string> types;
  for (const ElementType type : kernel.types) types.push_back(toString(type));
  out << indent << "types (--type): " << join(types, ", ") << '\n';
  if (kernel.params.empty()) out << indent << "parameters: none\n";
  for (const ParamSpec& p : kernel.params) {
    out << indent << "parameter " << p.name << " = " << formatAllowed(p.allowed) << " (default "
        << p.defaultValue << "): " << p.description << '\n';
  }
  if (!kernel.constraints.empty()) {
    out << indent << "constraints: " << kernel.constraints << '\n'
        << indent << "valid configurations: " << validConfigurations(kernel).size() << '\n';
  }
  for (const auto& [backend, work] : kernel.maxWork) {
    if (work > 0)
      out << indent << "largest M*N*K on " << backend << ": " << std::int64_t(work) << '\n';
  }
}

void writeBackend(std::ostream& out, const std::string& id) {
  const auto backend = makeBackend(id);
  if (const auto why = backend->unavailableReason()) {
    out << "  " << id << ": unavailable: " << *why << '\n';
    return;
  }
  out << "  " << id << ":\n";
  for (const DeviceInfo& device : backend->devices()) {
    out << "    device " << device.index << ": " << device.name << '\n';
    for (const auto& [name, value] : device.facts) out << "      " << name << ": " << value << '\n';
  }
}

}  // namespace

void writeListing(std::ostream& out) {
  out << "Kernels (--kernel ID):\n";
  for (const KernelInfo& kernel : catalogue()) writeKernel(out, kernel);
  out << "Backends (--backend ID):\n";
  for (const std::string& id : backendIds()) writeBackend(out, id);
}

}  // namespace tilescope::bench
