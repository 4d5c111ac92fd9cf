// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/cli/options.hpp"

#include <stdexcept>

namespace tilescope::cli {
namespace {

// clang-format off
const std::vector<OptionSpec> kOptions = {
  // What to run on.
  {"help", "h", "", "", "Print this help and exit.", kBoth},
  {"version", "", "", "", "Print the version and exit.", kBoth},
  {"list", "", "", "", "List the kernels and backends, then exit.", kBench},
  {"serve", "", "", "",
   "Answer run requests as JSON lines on stdin and stdout until 'bye' or the end of stdin "
   "(docs/remote.md); takes no other option.", kBench},
  {"backend", "", "KIND[@SERVER]", "",
   "Backend: cpu or cuda; KIND@SERVER runs KIND on the run server SERVER configured in the app "
   "(Backend > GPU Server...), e.g. cuda@gpu1. Default: cpu (tilescope: the last one).", kBoth},
  {"via", "", "COMMAND", "",
   "Run on the server this command starts, e.g. \"ssh HOST tilescope-bench --serve\" "
   "(docs/remote.md); --backend names the server's backend.", kBench},
  {"device", "", "INDEX", "", "Device index on the backend (default 0).", kBoth},
  {"devices", "", "LIST", "",
   "Spread the runs (a sweep, an autotune) over these devices: all, or indices such as 0,1. Each "
   "device runs one run at a time; the results come in the order asked.", kBench},
  // What to multiply.
  {"kernel", "", "ID", "", "Kernel id (see tilescope-bench --list).", kBoth},
  {"kernel-file", "", "FILE.cu", "",
   "Your own kernel, CUDA source against the Kernel Editor's API: tilescope opens it in the "
   "Kernel Editor and compiles it; tilescope-bench runs it as user:NAME (NAME: the file's name; "
   "--backend cuda, or cpu for a SIMT kernel).", kBoth},
  {"tile", "", "T", "", "Tile size of a single-tile kernel.", kBoth},
  {"param", "", "K=V,...", "", "Named kernel parameters, e.g. BM=128,TM=8.", kBoth},
  {"type", "", "TYPE", "",
   "Element type of A and B: fp32, or tf32, fp16, bf16, e4m3, e5m2 for the tensor cores (C "
   "and the accumulation stay fp32). Default: the kernel's first type.", kBoth},
  {"size", "", "S", "", "Sets M = N = K.", kBoth},
  {"m", "", "M", "", "Rows of A and C.", kBoth},
  {"n", "", "N", "", "Columns of B and C.", kBoth},
  {"k", "", "K", "", "Columns of A and rows of B.", kBoth},
  {"sweep", "", "KEY=V1,V2,...", "",
   "Sweep an axis: tile=1,2,4 (or tile=all), size=256,512, kernel=naive,library or any kernel "
   "parameter. Repeat to combine axes.", kBoth},
  // How to measure.
  {"reps", "", "R", "", "Exactly this many timed repetitions.", kBoth},
  {"budget-ms", "", "MS", "milliseconds",
   "Time budget per run in milliseconds when the repetitions are adaptive (default 2000).", kBoth,
   {{"budget", "SECONDS", "seconds", 1000}}},
  {"no-verify", "", "", "", "Skip the check against the reference.", kBoth},
  {"counters", "", "", "",
   "Also read the GPU's hardware counters (DRAM bytes, sectors per request, bank conflicts, "
   "occupancy): the profiler replays each kernel once after the timed runs (CUDA backend).",
   kBoth},
  {"allow-long-runs", "", "", "",
   "Run past a kernel's work bound (the serial kernel); such a run cannot be cancelled.", kBench},
  {"seed", "", "N", "", "Seed of the random inputs (default 42).", kBench},
  {"fill", "", "FILL", "", "random (uniform in [-1,1)) or integer ([-8,8]).", kBench},
  {"ceilings", "", "", "",
   "Measure the device's roofline ceilings (after any runs).", kBoth,
   {{"measure-ceilings", "", "", 1}}},
  {"autotune", "", "", "",
   "Run every valid configuration of the chosen kernel at the chosen size and remember the "
   "fastest verified one for the device.", kApp},
  {"autotune", "", "KERNEL", "",
   "Run every valid configuration of KERNEL fastest first and remember the fastest for this "
   "device (see Autotuning).", kBench},
  {"tuned", "", "", "", "Require the parameters --autotune remembered (an error if none).",
   kBench},
  {"no-tuned", "", "", "", "Use the catalogue's defaults, not remembered parameters.", kBench},
  {"trace", "", "FILE", "",
   "Trace the --kernel-file kernel once and write what it did to FILE (see Tracing).", kBench},
  {"trace-block", "", "X,Y", "", "The block whose loads and shared words --trace records.",
   kBench},
  {"trace", "", "", "",
   "Trace the --kernel-file kernel once on --backend at the chosen size, as the Kernel Editor's "
   "Trace does: the diagrams draw it and, on the cpu backend, the editor marks what the "
   "sanitizer found (then the exit status is 1).", kApp},
  // Grading a class.
  {"grade", "", "EXERCISE", "",
   "Grade the SUBMISSION.cu files and folders of them named after the options against EXERCISE "
   "(a built-in exercise's id, e.g. 03-stage-a-and-b or stage-a-and-b, or an exercise folder), "
   "each in a sandboxed child process of its own (see Grading).", kBench},
  {"check-exercise", "", "FOLDER_OR_ID", "",
   "Validate an exercise and check that its solution passes and its start fails, each in a "
   "sandboxed child as --grade runs them; exit status 1 otherwise.", kBench},
  {"time-limit", "", "SECONDS", "seconds",
   "--grade: the wall-clock time each submission may take, its compile included (default 60).",
   kBench},
  {"memory-limit", "", "MB", "mebibytes",
   "--grade: the address space each submission's child may use, in MiB (default 2048; none in a "
   "sanitizer build, nor on the cuda backend).", kBench},
  {"jobs", "", "N", "",
   "--grade: submissions checked at once (default: one per core on the cpu backend, one on "
   "cuda).", kBench},
  {"scratch", "", "DIR", "",
   "--grade: the folder the children work in, one folder each, kept afterwards (default: a "
   "fresh temporary folder, removed afterwards).", kBench},
  // What to write.
  {"format", "", "FORMAT", "", "table, csv or json (default table).", kBench},
  {"output", "o", "FILE", "", "Write the results to FILE, not stdout.", kBench},
  {"run", "", "", "", "Run the chosen configuration or sweep.", kApp},
  {"open", "", "FILE", "", "Open a session file.", kApp},
  {"save-session", "", "FILE", "", "Save the session after the runs.", kApp},
  {"export-chart", "", "FILE", "",
   "Write a chart; the format follows the suffix: .png .pdf .svg .jpg.", kApp},
  {"chart", "", "ID", "",
   "Which chart --export-chart writes: time, gflops, tile, phases, library, autotune, roofline "
   "(default: autotune for --autotune, roofline for --ceilings alone, tile for a tile sweep, "
   "else gflops).", kApp},
  {"chart-size", "", "WxH", "pixels", "Exported chart size in pixels (default 1200x800).", kApp},
  {"export-csv", "", "FILE", "", "Write the results as CSV.", kApp},
  {"export-json", "", "FILE", "", "Write the results as JSON.", kApp},
  {"view", "", "VIEW", "",
   "Diagram for --export-diagram: matrix, kstep, block, access or timeline.", kApp},
  {"export-diagram", "", "FILE", "", "Write the chosen kernel's diagram (.png or .svg).", kApp},
  {"open-trace", "", "FILE", "",
   "Draw a trace file (tilescope-bench --trace) in the diagrams; --export-diagram then writes "
   "the traced kernel's.", kApp},
  {"screenshot", "", "FILE", "",
   "Write the main window as PNG once the runs and exports are done.", kApp},
  {"window-size", "", "WxH", "pixels",
   "The window's size in pixels, e.g. 1920x1080 (default: the last one).", kApp},
  {"quit", "", "", "",
   "Quit once the runs and exports are done, without showing the window.", kApp},
};

const std::string_view kExitStatusBench =
    "0 every run finished and passed verification (or ran with --no-verify); 1 a run failed "
    "verification (all results are still written), or in a --trace on the cpu backend the "
    "sanitizer found a fault of the kernel (listed on stderr; the trace is still written); 2 bad input or an error (one line on stderr; "
    "results measured before the error are still written); 128 + the signal's number when "
    "interrupted (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP): the first signal stops after the current "
    "run and the runs measured are still written; a second one within 30 s changes nothing. "
    "--grade: 0 once the grades are written, whatever they are; --check-exercise: 1 where the "
    "solution fails or the start passes.";

const std::string_view kRunServers =
    "A run server is `tilescope-bench --serve` started by a command: over ssh, through Slurm's "
    "srun, or any command. The app keeps named servers (Backend > GPU Server...) in "
    "$XDG_CONFIG_HOME/TileScope/TileScope.json (~/.config/TileScope/TileScope.json); "
    "--backend KIND@SERVER runs the KIND backend (cpu or cuda) of the server named SERVER, in "
    "tilescope and in tilescope-bench. A name that is not configured is an error.";

const ProgramSpec kBenchSpec = {
  "tilescope-bench",
  "run, time and verify TileScope's matrix-multiplication kernels",
  {"tilescope-bench [OPTIONS]", "tilescope-bench --list", "tilescope-bench --serve",
   "tilescope-bench --grade EXERCISE [OPTIONS] SUBMISSION...",
   "tilescope-bench --check-exercise FOLDER_OR_ID"},
  "One run, or a sweep over kernels, tile sizes and problem sizes, on the CPU, a CUDA GPU or a "
  "run server. Every input is validated before the first run; errors are one line on stderr.",
  {{"Sweeps",
    "--sweep KEY=V1,V2,... where KEY is kernel, size (S or MxNxK), m, n, k or a kernel "
    "parameter such as tile. Repeat --sweep to combine axes: every combination runs, the kernel "
    "outermost, then the sweeps in the order given. KEY=all takes every value each kernel allows "
    "(kernel=all: every kernel of the backend that multiplies --type); a kernel without that "
    "parameter runs once."},
   {"Autotuning",
    "--autotune KERNEL --size S runs every configuration of KERNEL that the catalogue accepts "
    "and the backend can run, verifies each, prints them fastest first and remembers the "
    "fastest verified one for this device in $XDG_CONFIG_HOME/tilescope/tuned.json "
    "(~/.config/tilescope/tuned.json). Later runs of KERNEL on that device without --tile, "
    "--param or a sweep of one of its parameters use the remembered parameters and say so on "
    "stderr; --no-tuned takes the catalogue's defaults instead, --tuned fails where nothing is "
    "remembered."},
   {"Ceilings",
    "--ceilings measures the device's roofline ceilings (peak rates through OpenBLAS, or cuBLAS "
    "in fp32, tf32, fp16 and bf16, cuBLASLt in e4m3; memory bandwidth through a large copy) and "
    "prints them beside "
    "the datasheet's figures. Alone it runs no kernel; with --kernel or --sweep the ceilings are "
    "measured after the runs and written with them (table or json; csv takes one of the two)."},
   {"Tracing",
    "--kernel-file FILE.cu --trace OUT.json launches the kernel once (CUDA or cpu) with its accessors "
    "recording who stores each element of C and what each thread of one block loads "
    "(--trace-block X,Y, default 0,0), and writes that trace; the app opens it (File > Open) and "
    "draws the kernel from it. C may have at most 1024 x 1024 elements."},
   {"Grading",
    "--grade EXERCISE SUBMISSION... checks every submission (a .cu file, or a folder whose .cu "
    "files are taken in name order) against the exercise and writes a row each: compiled, "
    "verified, every check's figure and pass or fail, passed, the seconds it took and the reason "
    "it failed (--format table, csv or json; -o FILE). Each submission runs in a child process "
    "of its own in a scratch folder, with --time-limit, --memory-limit, a CPU-time and a "
    "file-size limit; on the cpu backend the child compiles, then shuts file access off "
    "(Landlock) and every system call but memory, threads and time (seccomp) before any code of "
    "the submission runs. An endless loop, a crash, a huge allocation, a compile that never ends "
    "or an #include fails that row alone with the reason (\"timed out after 60 s while "
    "checking\", \"crashed while checking: segmentation fault\", \"ran out of memory\"). The "
    "exit status is 0 once the grades are written, whatever they are. --check-exercise "
    "FOLDER_OR_ID is for writing exercises: the folder is validated, and its solution must pass "
    "and its start fail."},
   {"Run servers",
    "--serve answers run requests as JSON lines on stdin and stdout (docs/remote.md); --via "
    "COMMAND runs any job on the server COMMAND starts, e.g. over ssh or through Slurm's srun; "
    "--backend KIND@SERVER runs on a server configured in the app. The results are the same as "
    "a local run's; the server's stderr comes with every error."},
   {"Exit status", kExitStatusBench}},
  {{"tilescope-bench --list", "Lists the kernels and backends."},
   {"tilescope-bench --kernel shared-tiled --tile 16 --size 512 --format json",
    "One run, written as JSON."},
   {"tilescope-bench --kernel register-tiled --sweep tile=all --size 1024",
    "Every tile register-tiled allows."},
   {"tilescope-bench --sweep kernel=naive,shared-tiled --sweep size=256,512 -o runs.csv "
    "--format csv",
    "Two kernels at two sizes, as CSV."},
   {"tilescope-bench --backend cuda --autotune warptile --size 4096",
    "Autotunes warptile on the GPU and remembers the fastest configuration."},
   {"tilescope-bench --backend cuda --type bf16 --sweep kernel=tensor-mma,library --size 4096",
    "A tensor-core kernel beside cuBLAS in bf16."},
   {"tilescope-bench --backend cuda --ceilings --format json -o ceilings.json",
    "The GPU's roofline ceilings."},
   {"tilescope-bench --backend cuda@gpu1 --kernel warptile --size 4096 --budget-ms 500",
    "One run on the run server gpu1, half a second of timing."},
   {"tilescope-bench --via \"ssh gpu1 srun --gres=gpu:1 tilescope-bench --serve\" --backend cuda "
    "--kernel warptile --size 4096",
    "One run on a server started over ssh and Slurm."},
   {"tilescope-bench --backend cuda --kernel-file mine.cu --size 256 --trace mine-trace.json",
    "Traces your own kernel for the app's diagrams."},
   {"tilescope-bench --grade 03-stage-a-and-b submissions/ --format csv -o grades.csv",
    "Grades a class's submissions to an exercise, each shut in a child of its own."},
   {"tilescope-bench --check-exercise my-exercises/07-transpose",
    "Checks a new exercise: its solution passes, its start does not."}},
  {"tilescope(1)", "ssh(1)", "srun(1)"},
};

const ProgramSpec kAppSpec = {
  "tilescope",
  "see and measure tiled matrix multiplication",
  {"tilescope [OPTIONS] [SESSION.json]"},
  "See and measure tiled matrix multiplication. Without options the window opens with the last "
  "choices; with --run ... --quit it measures and exports without showing a window.",
  {{"Run servers", kRunServers},
   {"Exit status",
    "0 all done; 1 a run or an export failed, or a --trace on the cpu backend in which the "
    "sanitizer found a fault of the kernel; 2 bad input (a session that will not open, a "
    "backend that is unavailable); 128 + N when stopped by signal N (what was measured is still "
    "exported)."}},
  {{"tilescope results.json", "Opens a session."},
   {"tilescope --backend cpu --kernel shared-tiled --tile 16 --size 512 --run --export-chart "
    "gflops.png --quit",
    "One run, its chart written without a window."},
   {"tilescope --backend cuda --kernel warptile --size 4096 --autotune --export-csv tuned.csv "
    "--quit",
    "Autotunes warptile and writes the landscape."},
   {"tilescope --backend cuda@gpu1 --ceilings --export-chart roofline.svg --quit",
    "The roofline of the run server gpu1."},
   {"tilescope --kernel warptile --export-diagram warptile.svg --view kstep --quit",
    "The k-step diagram of warptile."}},
  {"tilescope-bench(1)"},
};
// clang-format on

// `text` in lines of at most 79 characters, each starting with `indent`, each ending in '\n'.
std::string wrapped(std::string_view text, std::string_view indent) {
  constexpr std::size_t kWidth = 79;
  std::string result, line(indent);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    if (line.size() > indent.size() && line.size() + 1 + word.size() > kWidth) {
      result += line + "\n";
      line = indent;
    }
    if (line.size() > indent.size()) line += ' ';
    line += word;
    start = end + 1;
  }
  return result + line + "\n";
}

}  // namespace

bool OptionSpec::takes(Program program) const {
  return (programs & (program == Program::App ? kApp : kBench)) != 0;
}

std::span<const OptionSpec> allOptions() {
  return kOptions;
}

std::vector<const OptionSpec*> optionsOf(Program program) {
  std::vector<const OptionSpec*> taken;
  for (const OptionSpec& spec : kOptions)
    if (spec.takes(program)) taken.push_back(&spec);
  return taken;
}

const OptionSpec& option(std::string_view name, Program program) {
  for (const OptionSpec& spec : kOptions)
    if (spec.name == name && spec.takes(program)) return spec;
  throw std::logic_error("the option table has no --" + std::string(name) + " for " +
                         std::string(programSpec(program).name));
}

const ProgramSpec& programSpec(Program program) {
  return program == Program::App ? kAppSpec : kBenchSpec;
}

std::string deprecationNote(const OptionSpec& spec, const DeprecatedAlias& alias) {
  std::string note = "--" + std::string(alias.name) + " is now --" + std::string(spec.name);
  if (!spec.unit.empty()) note += " (" + std::string(spec.unit) + ")";
  return note;
}

std::string usageOf(const OptionSpec& spec) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string.
  std::string usage;
  if (!spec.shortName.empty()) usage.append("-").append(spec.shortName).append(", ");
  usage.append("--").append(spec.name);
  if (!spec.isFlag()) usage.append(" ").append(spec.valueName);
  return usage;
}

std::string helpFooter(Program program) {
  const ProgramSpec& spec = programSpec(program);
  std::string footer;
  for (const auto& [title, text] : spec.topics)
    footer += wrapped(std::string(title) + ": " + std::string(text), "") + "\n";
  footer += "Examples:\n";
  for (const auto& [command, what] : spec.examples)
    footer += "  " + std::string(command) + "\n" + wrapped(what, "      ");
  return footer;
}

}  // namespace tilescope::cli
