// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A kernel the user writes: CUDA source against a small API (userApiHeader()), compiled at run
// time with NVRTC. Compiling needs no GPU, only NVRTC from the CUDA Toolkit, which is loaded when
// first asked for: a build or machine without it says so and still runs everything else.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilescope/backend.hpp"
#include "tilescope/catalogue.hpp"
#include "tilescope/mapping.hpp"

namespace tilescope {

// The largest source a user kernel may have (thousands of lines): even with every character
// escaped six-fold it fits one line of the run server's protocol (1 MiB).
inline constexpr std::size_t kMaxUserSourceBytes = std::size_t(128) << 10;
// The longest line it may have: a longer one is refused at its line before anything reads it.
inline constexpr std::size_t kMaxUserSourceLineLength = 4096;

struct UserKernelSource {
  std::string name;    // the user's name for it; the file name in messages is name + ".cu"
  std::string source;  // what the user wrote, without the API header
};

// One message of the compiler at a line of the user's source (1-based; 0 for a message about
// the whole program), its column where the compiler marks one (else 0).
struct CompileDiagnostic {
  int line = 0, column = 0;
  bool error = true;  // else a warning
  std::string message;
  bool operator==(const CompileDiagnostic&) const = default;
};

struct CompileOptions {
  std::string arch = "sm_90";  // the GPU architecture to compile for, e.g. sm_75, sm_90
  Params params{};             // values of the source's named parameters; missing: defaults
  // The type of A and B, ts::Element in the source: one the source's TS_TYPES declares.
  ElementType element = ElementType::F32;
  // Compiles the accessors' recording in (TS_TRACE): a traced launch, not a timed one.
  bool trace = false;
};

// One load of A or B through the accessors: the first element it took and how many consecutive
// ones (4: a float4, ts::loadA4; 16 bytes of a 16-bit type are 8). One outside its matrix
// returned zeros: its lane is idle in that instruction.
struct TracedLoad {
  std::int64_t row = 0, col = 0;
  int width = 1;
  bool operator==(const TracedLoad&) const = default;
};

// One access of a staged tile through ts::readShared or ts::writeShared: the word it touched in
// the block's shared memory (its byte address / 4) and how many consecutive words (4: a float4,
// ts::readShared4).
struct TracedWord {
  int word = 0, width = 1;
  bool operator==(const TracedWord&) const = default;
};

// What the traced block's threads did with one staged tile (A's or B's): per linear thread, its
// reads and its writes in program order. Empty where the kernel used neither accessor.
struct SharedTrace {
  std::vector<std::vector<TracedWord>> reads, writes;
  // The values of k one pass of the reads covers: 1, or where the tile was read as tensor-core
  // fragments (ts::loadMatrices, ts::readFragment) one mma's k, 32 bytes of the element type.
  int readsEveryK = 1;
  bool empty() const { return reads.empty() && writes.empty(); }
};

// The widths an access may have, in elements (loads and stores) or words (shared memory): one,
// two (a float2), four (a float4), eight (16 bytes of fp16 or bf16) or sixteen (16 bytes of FP8).
inline bool tracedWidth(std::int64_t width) {
  return width == 1 || width == 2 || width == 4 || width == 8 || width == 16;
}

// One thing the CPU backend's sanitizer found (host_kernel.hpp), where compute-sanitizer would: at
// a line of the user's source, in a block, by a thread (threadIdx.x, threadIdx.y).
struct SanitizerFinding {
  enum class Kind { OutOfBounds, Race, DivergentBarrier, UnwrittenRead };
  Kind kind = Kind::OutOfBounds;
  int line = 0;
  Dim2 block, thread;
  std::string message;  // the whole report, e.g. "line 21, block (0,0), thread (3,1): ..."
  // What and where in a few words, e.g. "a race at line 21 (block (0,0), thread (3,1))".
  std::string summary() const;
};

// The findings of a launch: the first few, and how many there were.
struct SanitizerReport {
  std::vector<SanitizerFinding> findings;
  int total = 0;
  bool clean() const { return total == 0; }
  std::string text() const;  // each finding on a line, and how many more
};

// What a traced launch recorded through the accessors: for every element of C the block and
// thread that stored it (linear: x + y * width), and the loads and shared-memory words of every
// thread of one block. A Mapping built from it (Mapping(KernelTrace)) draws the kernel as the
// GPU ran it.
struct KernelTrace {
  KernelConfig kernel;  // the user kernel traced: its id, parameter values and source
  std::string device;   // the GPU it ran on, e.g. "NVIDIA H200"
  Shape shape;
  ElementType element = ElementType::F32;  // of A and B
  Dim2 grid, block;  // grid: the blocks the pictures draw, a persistent kernel's tiles
  // A persistent kernel's (TS_PERSISTENT) launch: fewer blocks, each working through tiles of
  // `grid`; nullopt: `grid` itself. Its blocks in clusters of `cluster` (TS_CLUSTER).
  std::optional<Dim2> launchGrid;
  Dim2 cluster;
  int kDepth = 1;                            // TS_KSTEP: values of k per pass of its k loop
  std::vector<int> ownerBlock, ownerThread;  // row-major over C; -1 where no thread stored
  Dim2 tracedBlock;
  // Per linear thread of tracedBlock, its loads of A (and of B), in program order.
  std::vector<std::vector<TracedLoad>> loadsA, loadsB;
  // Per linear thread of tracedBlock, its stores of C in program order, those outside C too (an
  // idle lane); empty in traces written before stores were recorded (their order is then
  // inferred from the owners).
  std::vector<std::vector<TracedLoad>> stores;
  SharedTrace sharedA, sharedB;
  int storeWidth = 1;      // the widest store of C the traced block made (ts::storeC4: 4)
  bool truncated = false;  // some thread made more accesses than the trace could hold
  // What the sanitizer found in a trace on the CPU (the launch stopped there, so the accesses
  // end there too); clean in a GPU's trace.
  SanitizerReport sanitizer;
};

// A traced launch to make (Backend::trace): the user kernel with its source and parameter
// values, the shape, the device, and the block whose loads are recorded.
struct TraceRequest {
  KernelConfig kernel;
  Shape shape;
  int device = 0;
  Dim2 block{0, 0};
  ElementType element = ElementType::F32;
};

// A trace records an owner for every element of C: it is refused past this many (1024 x 1024).
inline constexpr std::int64_t kMaxTracedElements = std::int64_t(1) << 20;
// The tracer packs a load's row in 29 bits: B's rows run to K.
inline constexpr std::int64_t kMaxTracedK = (std::int64_t(1) << 29) - 1;
// Why a trace of this request cannot be made (no source, C too large), or nullopt.
std::optional<std::string> traceRefusal(const TraceRequest& request);

// Where a traced kernel (Mapping(KernelTrace)) draws other pictures than `model`, a catalogue
// kernel's Mapping of the same shape: the launch, the owner of every element of C, the elements
// each thread of the traced block stores, and every warp instruction of that block's global
// accesses at every k-step (instruction n of a k-step is each lane's n-th access in it), and
// where the trace has shared-memory words, every warp's reads of the staged tiles (and writes,
// where the Mapping models them); each instruction's width too (a float4 against four floats).
// Empty when the trace proves the Mapping. At most `maxListed` lines, the last one saying how many
// more.
std::vector<std::string> traceDifferences(const Mapping& traced, const Mapping& model,
                                          std::size_t maxListed = 8);

struct CompileResult {
  bool ok = false;
  std::vector<CompileDiagnostic> diagnostics;  // errors and warnings, in the compiler's order
  std::string log;                             // the compiler's whole output
  std::string arch;
  // The named parameters the source declares (TS_PARAM), in order, and the values compiled in.
  std::vector<ParamSpec> params;
  Params values;
  // Registers, shared memory and local memory of the kernel as ptxas reports them, and where
  // the block TS_LAUNCH declares needs no size (declaredBlock) its threads and the theoretical
  // blocks per SM and occupancy on `arch` (else those stay 0); nullopt where NVRTC gives no
  // report (in a process that has initialised CUDA).
  std::optional<KernelResources> resources;
  std::string image;                // the cubin, for the driver to load
  bool declaresKStep = false;       // the image has TS_KSTEP's entry point (else a k-step is one k)
  bool declaresTensorMaps = false;  // and TS_TENSOR_MAPS's (else the kernel gets no maps)
  bool declaresCluster = false;     // and TS_CLUSTER's (else no clusters)
  bool declaresPersistent = false;  // and TS_PERSISTENT's (else one block per tile)
};

// The architecture a user kernel is compiled for on a GPU of compute capability `capability`
// (e.g. 86): "sm_86"; on Hopper "sm_90a", which has wgmma.
std::string userKernelArchitecture(int capability);

// Why user kernels cannot be compiled here (NVRTC missing), or nullopt.
std::optional<std::string> userKernelCompilerUnavailable();

// What every compile of `kernel` with `options` starts from: the parameters the source declares
// and the values compiled in, and a diagnostic for each thing the options or the declarations do
// wrong (an undeclared parameter, a value or type the source does not allow).
CompileResult prepareCompile(const UserKernelSource& kernel, const CompileOptions& options);

// Compiles on the calling thread (a fraction of a second to seconds), through the isolated
// compiler where the program set one (setIsolatedCompiler), else in this process; never throws
// for anything the source or options do wrong: that is a CompileResult with its diagnostics.
// `cancel`: an isolated compile stops when it is set.
CompileResult compileUserKernel(const UserKernelSource& kernel, const CompileOptions& options,
                                const std::atomic<bool>* cancel = nullptr);
// compileUserKernel in this process, whatever compiler is set: what an isolated compiler runs.
CompileResult compileUserKernelHere(const UserKernelSource& kernel, const CompileOptions& options);

// What an isolated compile makes: NVRTC's image, or the CPU's shared object in the cache folder
// (buildUserKernelForHost, `sanitize` as it says).
struct CompileTarget {
  bool host = false;
  bool sanitize = false;
};
// A compile somewhere else than this process. The app and tilescope-bench set one that runs each
// compile in a child process with time and memory limits (app/lib/tilescope/compile), so that a
// source that makes the compiler hang or exhaust memory costs a message, not the program.
using IsolatedCompiler =
    std::function<CompileResult(const UserKernelSource&, const CompileOptions&,
                                const CompileTarget&, const std::atomic<bool>* cancel)>;
// Every compile of this process from now on goes through `compiler`; an empty one: in process.
void setIsolatedCompiler(IsolatedCompiler compiler);
// The compiler set, or an empty one.
IsolatedCompiler isolatedCompiler();

// A diagnostic at each line of `source` longer than kMaxUserSourceLineLength, naming its length.
// prepareCompile and userKernelInfo refuse such a source before reading anything else of it.
std::vector<CompileDiagnostic> overlongLines(const std::string& source);

// The named parameters a source declares with TS_PARAM(NAME, default, allowed...), in order.
// A malformed declaration is a diagnostic at its line.
std::vector<ParamSpec> declaredParams(const std::string& source,
                                      std::vector<CompileDiagnostic>* problems = nullptr);

// The element types a source multiplies, as its TS_TYPES(fp32, tf32, fp16, bf16) line lists them
// (the first is its default); fp32 alone where it has none. A malformed line is a diagnostic.
std::vector<ElementType> declaredTypes(const std::string& source,
                                       std::vector<CompileDiagnostic>* problems = nullptr);

// The block TS_LAUNCH declares, where its first two arguments are integer arithmetic on numbers
// and `values` (e.g. TILE, BM * BN / TM); nullopt where they need M, N or K, anything else
// known only on the GPU, or parentheses nested deeper than 64.
std::optional<Dim2> declaredBlock(const std::string& source, const Params& values);

// The API put in front of every user kernel: the problem, the accessors the tracer sees, the
// parameter and launch declarations. It is kernels/user/api/tilescope_api.cuh with its ts/ parts
// in place, each behind a #line that names it.
const std::string& userApiHeader();

// The parts of the API (paths under kernels/user/api) that need an NVIDIA GPU: cp.async, the
// tensor cores, TMA and clusters. The CPU backend leaves them out.
const std::vector<std::string_view>& gpuOnlyApiParts();
// The API as the CPU backend compiles it: userApiHeader() without the GPU-only parts.
const std::string& hostApiHeader();
// The text of one part of the API, e.g. "ts/shared.cuh"; empty where there is none.
std::string_view userApiPart(std::string_view path);

// A catalogue kernel written against the API, following its Mapping: where "New from..." starts.
// Its file is kernels/families/<id with '_' for '-'>/template.cu; they come in catalogue order.
struct UserKernelTemplate {
  std::string kernel;  // the catalogue id it follows
  std::string source;
};
const std::vector<UserKernelTemplate>& userKernelTemplates();
// The template that follows catalogue kernel `kernel`; null where it has none.
const UserKernelTemplate* userKernelTemplate(const std::string& kernel);

}  // namespace tilescope
