#pragma once
// --output FILE, written atomically: the results go to a temporary file beside FILE that is
// renamed over it only once complete, so a failed or interrupted run never leaves a partial file.
#include <string>

namespace tilescope::plan {

class OutputFile {
 public:
  // Creates the temporary file at once, so an unwritable path is found before anything runs.
  // Throws tilescope::Error(InvalidArgument) naming `what` (the option or file it is for), the
  // path and the reason.
  explicit OutputFile(std::string path, std::string what = "--output");
  ~OutputFile();  // removes the temporary file unless commit() succeeded
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Writes `content` and renames the temporary file to the path; throws tilescope::Error.
  void commit(const std::string& content);

 private:
  std::string path_, what_, temporaryPath_;
  int descriptor_ = -1;
};

}  // namespace tilescope::plan
