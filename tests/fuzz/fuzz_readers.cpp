// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for every reader of untrusted input (the `asan` preset; scripts/test runs it
// for a fixed time). The first byte picks the reader, the rest is the file or request; a reader
// may refuse its input with tilescope::Error, anything else (a crash, a leak, undefined
// behaviour, another exception) is a finding. To fuzz another reader, add one line to kReaders.
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "choices.hpp"
#include "session.hpp"
#include "tilescope/catalogue.hpp"
#include "tilescope/error.hpp"
#include "tilescope/host_kernel.hpp"
#include "tilescope/io/file_io.hpp"
#include "tilescope/io/json_fields.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/plan/tuned_store.hpp"
#include "tilescope/remote/protocol.hpp"
#include "tilescope/remote/replies.hpp"
#include "tilescope/report/report.hpp"
#include "tilescope/user_kernel.hpp"
#include "user/compiler_logs.hpp"
#include "user/cubin_resources.hpp"

namespace {

using namespace tilescope;

// A results document: tilescope-bench --format json, the app's Export Results.
void readResults(std::string_view text) {
  report::resultsDocumentFromJson(io::parseJson(text, "the file"));
}

// A session, read as the app opens one (a results document opens as a session too).
void readSession(std::string_view text) {
  desktop::sessionFromJson(io::parseJson(text, "the file"));
}

// tuned.json, through the file the store reads.
void readTuned(std::string_view text) {
  static const std::string path =
      "/tmp/tilescope-fuzz-tuned-" + std::to_string(::getpid()) + ".json";
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(text.data(), std::streamsize(text.size()));
  const plan::TunedStore store(path);
}

void readCsv(std::string_view text) {
  std::istringstream in{std::string(text)};
  report::readCsv(in);
}

// A tilescope-bench --serve request line, checked as the server checks it before anything runs.
void readServeRequest(std::string_view text) {
  const nlohmann::json message = remote::parseMessage(std::string(text));
  remote::checkedVerb(message);
  if (const auto request = message.find("request"); request != message.end())
    report::requestFromJson(*request);
}

// A trace file (tilescope-bench --trace), read and drawn as the app opens it.
void readTrace(std::string_view text) {
  const Mapping traced(report::traceDocumentFromJson(io::parseJson(text, "the file")));
  (void)traced.instructionsPerStep(Access::LoadA);
}

// A user kernel's source (--kernel-file, the Kernel Editor, a session or a request), read as a
// compile reads it before the compiler runs; and the same bytes as a compiler's log and image.
void readKernelSource(std::string_view text) {
  const std::string source(text);
  std::vector<CompileDiagnostic> problems = overlongLines(source);
  declaredParams(source, &problems);
  const std::vector<ElementType> types = declaredTypes(source, &problems);
  const CompileResult prepared = prepareCompile({"fuzz", source}, {"sm_90", {}, types.front()});
  (void)declaredBlock(source, prepared.values);
  (void)withHostSharedMemory(source, &problems);
  (void)nvrtcDiagnostics(source, "fuzz.cu");
  (void)cubinResources(source, "ts_kernel");
  (void)hostCompilerDiagnostics(source, "fuzz.cu");
  userKernelInfo("fuzz", source);  // a refusal is an Error
}

// A run server's hello, as a client checks it before it runs anything there.
void readHello(std::string_view text) {
  remote::readHello(remote::parseMessage(std::string(text)), "cuda", "server fuzz");
}

// A run server's reply to a request, field by field as the client reads it.
void readReply(std::string_view text) {
  const nlohmann::json reply = remote::parseMessage(std::string(text));
  const std::string kind = remote::replyKind(reply);
  if (kind == "progress")
    remote::readProgress(reply);
  else if (kind == "error")
    remote::readErrorReply(reply);
  else if (kind == "result")
    report::resultFromJson(io::requiredField(reply, "result", ""));
  else if (kind == "ceilings")
    report::ceilingsFromJson(nlohmann::json::array({io::requiredField(reply, "ceilings", "")}));
  else if (kind == "trace")
    report::traceFromJson(io::requiredField(reply, "trace", ""));
}

struct Reader {
  const char* name;
  void (*read)(std::string_view);
};

const Reader kReaders[] = {
    {"results", readResults},     {"session", readSession},
    {"tuned", readTuned},         {"csv", readCsv},
    {"serve", readServeRequest},  {"trace", readTrace},
    {"kernel", readKernelSource}, {"hello", readHello},
    {"reply", readReply},
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Reader& reader = kReaders[data[0] % std::size(kReaders)];
  try {
    reader.read(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  } catch (const tilescope::Error&) {
    // A refusal with a message: what a reader should do with bad input.
  }
  return 0;
}
