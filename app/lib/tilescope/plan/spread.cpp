// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/plan/spread.hpp"

#include <algorithm>
#include <limits>
#include <mutex>
#include <thread>

#include "tilescope/error.hpp"
#include "tilescope/plan/sweep.hpp"

namespace tilescope::plan {

std::vector<RunOutcome> runSpread(const std::vector<Backend*>& backends,
                                  const std::vector<int>& devices,
                                  const std::vector<RunRequest>& runs, bool keepGoing,
                                  const SpreadProgress& progress, const std::atomic<bool>* cancel,
                                  const RecoverFn& recover) {
  if (backends.empty() || backends.size() != devices.size())
    throw Error(ErrorKind::InvalidArgument, "runSpread needs one backend per device");
  std::vector<RunOutcome> outcomes(runs.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  const auto work = [&](std::size_t slot) {
    Backend& backend = *backends[slot];
    const int device = devices[slot];
    for (;;) {
      if (stop || (cancel && cancel->load())) return;
      const std::size_t index = next++;
      if (index >= runs.size()) return;
      RunRequest request = runs[index];
      request.device = device;
      RunOutcome& outcome = outcomes[index];
      outcome.device = device;
      const ProgressFn report = [&](double fraction, const std::string& stage) {
        if (progress) progress(index, device, fraction, stage);
      };
      for (int retries = 0;; ++retries) {
        try {
          outcome.result = backend.run(request, report, cancel);
        } catch (const Error& error) {
          if (error.kind() == ErrorKind::Cancelled) return;
          const Recovery recovery = recover ? recover(backend, error, retries) : Recovery{};
          if (recovery.retry) continue;
          outcome.failure = error.what() + recovery.note;
        } catch (const std::exception& error) {
          outcome.failure = error.what();
        }
        break;
      }
      if (outcome.failure && !keepGoing) stop = true;
    }
  };
  if (backends.size() == 1) {
    work(0);
  } else {
    std::vector<std::thread> threads;
    for (std::size_t slot = 0; slot < backends.size(); ++slot) threads.emplace_back(work, slot);
    for (std::thread& thread : threads) thread.join();
  }
  return outcomes;
}

std::vector<int> parseDevices(const std::string& text, std::size_t count) {
  std::vector<int> devices;
  if (text == "all") {
    for (std::size_t device = 0; device < count; ++device) devices.push_back(int(device));
    return devices;
  }
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string part = text.substr(at, comma - at);
    const auto device = int(parseIntegerIn(part, "--devices", 0, std::numeric_limits<int>::max()));
    if (std::size_t(device) >= count)
      throw Error(ErrorKind::InvalidArgument, "--devices " + text + ": there is no device " + part +
                                                  " (the backend has " + std::to_string(count) +
                                                  ", numbered from 0)");
    if (std::find(devices.begin(), devices.end(), device) != devices.end())
      throw Error(ErrorKind::InvalidArgument,
                  "--devices " + text + ": device " + part + " is named twice");
    devices.push_back(device);
    at = comma + 1;
  }
  return devices;
}

}  // namespace tilescope::plan
