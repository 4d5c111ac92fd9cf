// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Files compiled into the program as text (cmake/EmbedText.cmake's tilescope_embed_files): each
// generated function returns its files in the order they were listed.
#include <algorithm>
#include <string_view>
#include <vector>

namespace tilescope {

struct EmbeddedFile {
  std::string_view path;  // relative to the BASE_DIR it was embedded from, with '/'
  std::string_view text;  // the file's bytes, as they were at build time
};

// The file at `path` among `files`, or null.
inline const EmbeddedFile* findEmbeddedFile(const std::vector<EmbeddedFile>& files,
                                            std::string_view path) {
  const auto found = std::find_if(files.begin(), files.end(),
                                  [&](const EmbeddedFile& file) { return file.path == path; });
  return found == files.end() ? nullptr : &*found;
}

}  // namespace tilescope
