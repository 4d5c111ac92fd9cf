// SPDX-License-Identifier: GPL-3.0-or-later
#include "counters.hpp"

#include <cuda.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <dlfcn.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "cuda_check.hpp"
#include "toolkit_library.hpp"

namespace tilescope::cuda {
namespace {

// The CUPTI functions used, looked up in libcupti at run time.
#define TS_CUPTI_FUNCTIONS(X)                     \
  X(cuptiGetResultString)                         \
  X(cuptiProfilerInitialize)                      \
  X(cuptiDeviceGetChipName)                       \
  X(cuptiProfilerGetCounterAvailability)          \
  X(cuptiProfilerHostInitialize)                  \
  X(cuptiProfilerHostDeinitialize)                \
  X(cuptiProfilerHostGetMetricProperties)         \
  X(cuptiProfilerHostConfigAddMetrics)            \
  X(cuptiProfilerHostGetConfigImageSize)          \
  X(cuptiProfilerHostGetConfigImage)              \
  X(cuptiProfilerHostEvaluateToGpuValues)         \
  X(cuptiRangeProfilerEnable)                     \
  X(cuptiRangeProfilerDisable)                    \
  X(cuptiRangeProfilerSetConfig)                  \
  X(cuptiRangeProfilerStart)                      \
  X(cuptiRangeProfilerStop)                       \
  X(cuptiRangeProfilerDecodeData)                 \
  X(cuptiRangeProfilerGetCounterDataSize)         \
  X(cuptiRangeProfilerCounterDataImageInitialize) \
  X(cuptiRangeProfilerGetCounterDataInfo)

struct Cupti {
#define TS_CUPTI_MEMBER(name) decltype(&::name) name = nullptr;
  TS_CUPTI_FUNCTIONS(TS_CUPTI_MEMBER)
#undef TS_CUPTI_MEMBER
  std::optional<std::string> missing;  // why CUPTI could not be loaded
};

Cupti loadCupti() {
  Cupti cupti;
  std::string error;
  void* library =
      openToolkitLibrary("libcupti.so.13", {"/usr/local/cuda/extras/CUPTI/lib64"}, error);
  if (!library) {
    cupti.missing =
        "hardware counters need NVIDIA's CUPTI library (libcupti.so.13, from the CUDA Toolkit "
        "or the cuda-cupti-13-0 package), which this machine lacks: " +
        error;
    return cupti;
  }
#define TS_CUPTI_LOOKUP(name)                                                    \
  cupti.name = reinterpret_cast<decltype(&::name)>(dlsym(library, #name));       \
  if (!cupti.name) {                                                             \
    cupti.missing = "this machine's CUPTI library lacks " #name                  \
                    " (the range profiler needs CUPTI from CUDA 12.6 or later)"; \
    return cupti;                                                                \
  }
  TS_CUPTI_FUNCTIONS(TS_CUPTI_LOOKUP)
#undef TS_CUPTI_LOOKUP
  return cupti;
}

const Cupti& cupti() {
  static const Cupti loaded = loadCupti();
  return loaded;
}

// A CUPTI parameter block: zeroed, with the size of the structure this code was built against.
template <typename Params>
Params cuptiParams(std::size_t structSize) {
  Params params{};
  params.structSize = structSize;
  return params;
}
#define TS_CUPTI_PARAMS(type) cuptiParams<type>(type##_STRUCT_SIZE)

// A profiling step that failed: becomes CounterCollection::unavailable, never a run failure.
class ProfilingFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string describe(CUptiResult result, const char* call) {
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      return "profiling is reserved to administrators on this machine (the NVIDIA driver's "
             "NVreg_RestrictProfilingToAdminUsers=1): run TileScope as root, or have the option "
             "set to 0";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return "another profiler (Nsight Compute, Nsight Systems or compute-sanitizer) holds the "
             "GPU's counters";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
      return std::string("this GPU or driver does not offer CUPTI's range profiler (") + call + ")";
    default: {
      const char* text = nullptr;
      if (cupti().cuptiGetResultString(result, &text) != CUPTI_SUCCESS || !text) text = "unknown";
      return std::string("CUPTI's ") + call + " failed: " + text;
    }
  }
}

void require(CUptiResult result, const char* call) {
  if (result != CUPTI_SUCCESS) throw ProfilingFailure(describe(result, call));
}

CUcontext currentContext() {
  static const auto getCurrent = [] {
    try {
      return driverEntryPoint<CUresult (*)(CUcontext*)>("cuCtxGetCurrent");
    } catch (const Error& error) {
      throw ProfilingFailure(error.what());
    }
  }();
  CUcontext context = nullptr;
  if (getCurrent(&context) != CUDA_SUCCESS || !context)
    throw ProfilingFailure("there is no current CUDA context to profile");
  return context;
}

enum Metric : std::size_t {
  DramRead,
  DramWrite,
  L2FromL1,
  GlobalLoadRequests,
  GlobalLoadSectors,
  GlobalStoreRequests,
  GlobalStoreSectors,
  SharedLoadRequests,
  SharedLoadWavefronts,
  SharedStoreRequests,
  SharedStoreWavefronts,
  BankConflictsLoad,
  BankConflictsStore,
  WarpsActive,
  Duration,
  TensorMma,
  TensorWgmma,
  MetricCount
};

// Nsight Compute's names, which CUPTI shares. The tensor pipes are optional: each GPU generation
// offers its own.
constexpr std::array<const char*, MetricCount> kMetricNames = {
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_sectors_srcunit_tex.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "gpu__time_duration.sum",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
};
bool optionalMetric(std::size_t metric) {
  return metric == TensorMma || metric == TensorWgmma;
}

// The profiler objects of one collection, released in every case.
class Session {
 public:
  Session() : context_(currentContext()) {}
  ~Session() {
    if (host_) {
      auto params = TS_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
      params.pHostObject = host_;
      cupti().cuptiProfilerHostDeinitialize(&params);
    }
    if (profiler_) {
      auto params = TS_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
      params.pRangeProfilerObject = profiler_;
      cupti().cuptiRangeProfilerDisable(&params);
    }
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  HardwareCounters collect(const std::function<void()>& launch, bool tensorPipe) {
    const Cupti& api = cupti();
    auto enable = TS_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
    enable.ctx = context_;
    require(api.cuptiRangeProfilerEnable(&enable), "cuptiRangeProfilerEnable");
    profiler_ = enable.pRangeProfilerObject;

    int device = 0;
    TS_CUDA_CHECK(cudaGetDevice(&device));
    auto chip = TS_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
    chip.deviceIndex = std::size_t(device);
    require(api.cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");

    auto availability = TS_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
    availability.ctx = context_;
    require(api.cuptiProfilerGetCounterAvailability(&availability),
            "cuptiProfilerGetCounterAvailability");
    std::vector<std::uint8_t> availabilityImage(availability.counterAvailabilityImageSize);
    availability.pCounterAvailabilityImage = availabilityImage.data();
    require(api.cuptiProfilerGetCounterAvailability(&availability),
            "cuptiProfilerGetCounterAvailability");

    auto host = TS_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
    host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    host.pChipName = chip.pChipName;
    host.pCounterAvailabilityImage = availabilityImage.data();
    require(api.cuptiProfilerHostInitialize(&host), "cuptiProfilerHostInitialize");
    host_ = host.pHostObject;

    // Every metric this chip offers; a missing required one is a reason, not a guess.
    std::vector<std::size_t> wanted;
    for (std::size_t metric = 0; metric < MetricCount; ++metric) {
      if (!tensorPipe && optionalMetric(metric)) continue;
      auto properties = TS_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
      properties.pHostObject = host_;
      properties.pMetricName = kMetricNames[metric];
      if (api.cuptiProfilerHostGetMetricProperties(&properties) == CUPTI_SUCCESS)
        wanted.push_back(metric);
      else if (!optionalMetric(metric))
        throw ProfilingFailure(std::string("this GPU (") + chip.pChipName + ") does not count " +
                               kMetricNames[metric]);
    }
    std::vector<const char*> names;
    for (std::size_t metric : wanted) names.push_back(kMetricNames[metric]);

    auto add = TS_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
    add.pHostObject = host_;
    add.ppMetricNames = names.data();
    add.numMetrics = names.size();
    require(api.cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");
    auto configSize = TS_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
    configSize.pHostObject = host_;
    require(api.cuptiProfilerHostGetConfigImageSize(&configSize),
            "cuptiProfilerHostGetConfigImageSize");
    std::vector<std::uint8_t> config(configSize.configImageSize);
    auto configImage = TS_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
    configImage.pHostObject = host_;
    configImage.configImageSize = config.size();
    configImage.pConfigImage = config.data();
    require(api.cuptiProfilerHostGetConfigImage(&configImage), "cuptiProfilerHostGetConfigImage");

    // One range per kernel the launch starts; cuBLAS starts one or two.
    constexpr std::size_t kMaxRanges = 16;
    auto dataSize = TS_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
    dataSize.pRangeProfilerObject = profiler_;
    dataSize.pMetricNames = names.data();
    dataSize.numMetrics = names.size();
    dataSize.maxNumOfRanges = kMaxRanges;
    dataSize.maxNumRangeTreeNodes = kMaxRanges;
    require(api.cuptiRangeProfilerGetCounterDataSize(&dataSize),
            "cuptiRangeProfilerGetCounterDataSize");
    std::vector<std::uint8_t> data(dataSize.counterDataSize);
    auto initialize = TS_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    initialize.pRangeProfilerObject = profiler_;
    initialize.counterDataSize = data.size();
    initialize.pCounterData = data.data();
    require(api.cuptiRangeProfilerCounterDataImageInitialize(&initialize),
            "cuptiRangeProfilerCounterDataImageInitialize");

    auto set = TS_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
    set.pRangeProfilerObject = profiler_;
    set.configSize = config.size();
    set.pConfig = config.data();
    set.counterDataImageSize = data.size();
    set.pCounterDataImage = data.data();
    set.range = CUPTI_AutoRange;  // each kernel launch is a range
    set.replayMode = CUPTI_KernelReplay;
    set.maxRangesPerPass = kMaxRanges;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    require(api.cuptiRangeProfilerSetConfig(&set), "cuptiRangeProfilerSetConfig");

    // Kernel replay runs every pass inside the one launch; the loop only guards the contract.
    for (int attempt = 0;; ++attempt) {
      auto start = TS_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
      start.pRangeProfilerObject = profiler_;
      require(api.cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart");
      launch();
      TS_CUDA_CHECK(cudaDeviceSynchronize());
      auto stop = TS_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
      stop.pRangeProfilerObject = profiler_;
      require(api.cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
      if (stop.isAllPassSubmitted) break;
      if (attempt == 64) throw ProfilingFailure("the profiler asked for more than 64 passes");
    }
    auto decode = TS_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
    decode.pRangeProfilerObject = profiler_;
    require(api.cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData");
    if (decode.numOfRangeDropped > 0)
      throw ProfilingFailure("the launch started more than " + std::to_string(kMaxRanges) +
                             " kernels, more than the profiler was set up to count");

    auto info = TS_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
    info.pCounterDataImage = data.data();
    info.counterDataImageSize = data.size();
    require(api.cuptiRangeProfilerGetCounterDataInfo(&info),
            "cuptiRangeProfilerGetCounterDataInfo");
    if (info.numTotalRanges == 0) throw ProfilingFailure("the launch started no kernel to count");

    // Counts add up over the kernels; percentages are weighted by each kernel's duration.
    std::array<double, MetricCount> total{};
    std::array<bool, MetricCount> counted{};
    std::vector<double> values(names.size());
    for (std::size_t range = 0; range < info.numTotalRanges; ++range) {
      auto evaluate = TS_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
      evaluate.pHostObject = host_;
      evaluate.pCounterDataImage = data.data();
      evaluate.counterDataImageSize = data.size();
      evaluate.rangeIndex = range;
      evaluate.ppMetricNames = names.data();
      evaluate.numMetrics = names.size();
      evaluate.pMetricValues = values.data();
      require(api.cuptiProfilerHostEvaluateToGpuValues(&evaluate),
              "cuptiProfilerHostEvaluateToGpuValues");
      const double duration = values[indexOf(wanted, Duration)];
      for (std::size_t i = 0; i < wanted.size(); ++i) {
        const bool percentage = wanted[i] == WarpsActive || optionalMetric(wanted[i]);
        total[wanted[i]] += percentage ? values[i] * duration : values[i];
        counted[wanted[i]] = true;
      }
    }
    const auto share = [&](Metric metric) {
      return total[Duration] > 0 ? total[metric] / total[Duration] / 100.0 : 0.0;
    };

    HardwareCounters out;
    out.dramReadBytes = total[DramRead];
    out.dramWriteBytes = total[DramWrite];
    out.l2SectorsFromL1 = total[L2FromL1];
    out.globalLoadRequests = total[GlobalLoadRequests];
    out.globalLoadSectors = total[GlobalLoadSectors];
    out.globalStoreRequests = total[GlobalStoreRequests];
    out.globalStoreSectors = total[GlobalStoreSectors];
    out.sharedLoadRequests = total[SharedLoadRequests];
    out.sharedLoadWavefronts = total[SharedLoadWavefronts];
    out.sharedStoreRequests = total[SharedStoreRequests];
    out.sharedStoreWavefronts = total[SharedStoreWavefronts];
    out.sharedBankConflicts = total[BankConflictsLoad] + total[BankConflictsStore];
    out.achievedOccupancy = share(WarpsActive);
    // mma.sync and wgmma run on different pipes; a kernel uses one of them.
    if (counted[TensorMma] || counted[TensorWgmma])
      out.tensorPipeUtilisation = std::max(share(TensorMma), share(TensorWgmma));
    out.source = "CUPTI range profiler (" + std::string(chip.pChipName) + ", kernel replay, " +
                 std::to_string(info.numTotalRanges) +
                 (info.numTotalRanges == 1 ? " kernel" : " kernels") + ")";
    return out;
  }

 private:
  static std::size_t indexOf(const std::vector<std::size_t>& wanted, std::size_t metric) {
    for (std::size_t i = 0; i < wanted.size(); ++i)
      if (wanted[i] == metric) return i;
    throw ProfilingFailure(std::string("the profiler did not count ") + kMetricNames[metric]);
  }

  CUcontext context_;
  CUpti_RangeProfiler_Object* profiler_ = nullptr;
  CUpti_Profiler_Host_Object* host_ = nullptr;
};

}  // namespace

CounterCollection collectCounters(const std::function<void()>& launch, bool tensorPipe) {
  const Cupti& api = cupti();
  if (api.missing) return {std::nullopt, api.missing};
  // One profiler per process, set up once; collections run one at a time (the backend's worker).
  static std::mutex oneAtATime;
  const std::lock_guard lock(oneAtATime);
  try {
    static const CUptiResult initialized = [&] {
      auto params = TS_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
      return api.cuptiProfilerInitialize(&params);
    }();
    require(initialized, "cuptiProfilerInitialize");
    Session session;
    return {session.collect(launch, tensorPipe), std::nullopt};
  } catch (const ProfilingFailure& failure) {
    return {std::nullopt, "no hardware counters: " + std::string(failure.what())};
  }
}

}  // namespace tilescope::cuda
