// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the JSON (report.cpp) and the CSV and table (report_tables.cpp) halves of the report share.
#include <string>
#include <utility>

#include "tilescope/backend.hpp"
#include "tilescope/error.hpp"

namespace tilescope::report {

[[noreturn]] inline void fail(const std::string& message) {
  throw Error(ErrorKind::InvalidArgument, message);
}

// The counters' JSON names, in the order they are written and read.
inline constexpr std::pair<const char*, double HardwareCounters::*> kCounterFields[] = {
    {"dram_read_bytes", &HardwareCounters::dramReadBytes},
    {"dram_write_bytes", &HardwareCounters::dramWriteBytes},
    {"l2_sectors_from_l1", &HardwareCounters::l2SectorsFromL1},
    {"global_load_requests", &HardwareCounters::globalLoadRequests},
    {"global_load_sectors", &HardwareCounters::globalLoadSectors},
    {"global_store_requests", &HardwareCounters::globalStoreRequests},
    {"global_store_sectors", &HardwareCounters::globalStoreSectors},
    {"shared_load_requests", &HardwareCounters::sharedLoadRequests},
    {"shared_load_wavefronts", &HardwareCounters::sharedLoadWavefronts},
    {"shared_store_requests", &HardwareCounters::sharedStoreRequests},
    {"shared_store_wavefronts", &HardwareCounters::sharedStoreWavefronts},
    {"shared_bank_conflicts", &HardwareCounters::sharedBankConflicts},
    {"achieved_occupancy", &HardwareCounters::achievedOccupancy},
};

}  // namespace tilescope::report
