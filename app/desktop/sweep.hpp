#pragma once
// Sweeps as data, without Qt, in tilescope-bench's syntax: `tile=1,2,4`, `size=256,512`,
// `m=...`, `kernel=naive,shared-tiled` or `kernel=all`, or any kernel parameter (`BM=64,128`,
// `tile=all`), combined as a cartesian product over one base request.
#include <string>
#include <vector>

#include "tilescope/backend.hpp"

namespace tilescope::app {

struct SweepAxis {
  // "size" (a value is S for M=N=K, or MxNxK), "m", "n", "k", "kernel", or a kernel parameter
  // name such as "tile".
  std::string name;
  // The values as typed; "all" as the only value of a kernel or parameter axis means every
  // kernel, or every value each kernel allows.
  std::vector<std::string> values;
};

// Parses "name=v1,v2,..."; throws Error(InvalidArgument) on malformed text.
SweepAxis parseSweepAxis(const std::string& text);

// Every request of the product of `axes` over `base`: the kernel axis outermost, then the others
// in order, the first outermost. A parameter axis
// leaves a kernel without that parameter as a single run; switching kernels keeps only the
// parameters the new kernel has. Every request comes out resolved. Throws Error(InvalidArgument)
// for an unknown kernel, a refused parameter value or a bad size.
std::vector<RunRequest> expandSweep(const RunRequest& base, const std::vector<SweepAxis>& axes);

}  // namespace tilescope::app
