// SPDX-License-Identifier: GPL-3.0-or-later
// A cubin's section headers, its .nv.info attributes and its shared-memory sections
// (cubin_resources.hpp). Checked against ptxas -v for every Kernel Editor template on sm_75 to
// sm_90a (tests/kernels/test_user_kernel.cpp).
#include "user/cubin_resources.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tilescope {
namespace {

// ELF64's header fields and section headers (64 bytes each).
constexpr std::uint64_t kHeaderBytes = 64, kSectionTableOffset = 0x28, kSectionEntryBytes = 0x3a,
                        kSectionCount = 0x3c, kSectionNames = 0x3e;
constexpr std::uint32_t kNoBits = 8;  // SHT_NOBITS: a size and no bytes in the file
// .nv.info's entries: a format, an attribute and a 16-bit size; the sized format's bytes follow.
// The two read here hold {symbol index, value}.
constexpr std::uint8_t kSizedFormat = 0x04;    // EIFMT_SVAL
constexpr std::uint8_t kFrameBytes = 0x11;     // EIATTR_FRAME_SIZE
constexpr std::uint8_t kRegisterCount = 0x2f;  // EIATTR_REGCOUNT
// sm_90 images count the 1 KiB the GPU reserves in every block in each kernel's shared section,
// and say so with this section; ptxas and the runtime count it apart.
constexpr std::string_view kReservedShared = ".nv.shared.reserved.0";
constexpr std::uint64_t kReservedSharedBytes = 1024;
// More than any GPU gives a thread or a block: a damaged image.
constexpr std::uint32_t kMostRegisters = 255;
constexpr std::uint64_t kMostShared = std::uint64_t(1) << 30;

template <typename T>
std::optional<T> read(std::string_view image, std::uint64_t offset) {
  if (offset > image.size() || image.size() - offset < sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, image.data() + offset, sizeof(T));
  return value;
}

struct Section {
  std::string_view name;
  std::uint32_t type = 0, info = 0;
  std::uint64_t offset = 0, size = 0;
  bool inImage = false;  // its bytes lie within the image
};

std::optional<std::vector<Section>> sectionsOf(std::string_view image) {
  if (image.size() < kHeaderBytes ||
      image.substr(0, 4) !=
          "\x7f"
          "ELF" ||
      image[4] != 2 || image[5] != 1)
    return std::nullopt;
  const auto table = read<std::uint64_t>(image, kSectionTableOffset);
  const auto entryBytes = read<std::uint16_t>(image, kSectionEntryBytes);
  const auto count = read<std::uint16_t>(image, kSectionCount);
  const auto names = read<std::uint16_t>(image, kSectionNames);
  if (!table || *table > image.size() || !entryBytes || *entryBytes < kHeaderBytes || !count ||
      !names || *names >= *count)
    return std::nullopt;
  std::vector<Section> sections(*count);
  std::vector<std::uint32_t> nameOffsets(*count);
  for (std::uint64_t i = 0; i < *count; ++i) {
    const std::uint64_t at = *table + i * *entryBytes;
    const auto name = read<std::uint32_t>(image, at), type = read<std::uint32_t>(image, at + 4),
               info = read<std::uint32_t>(image, at + 44);
    const auto offset = read<std::uint64_t>(image, at + 24),
               size = read<std::uint64_t>(image, at + 32);
    if (!name || !type || !info || !offset || !size) return std::nullopt;
    nameOffsets[i] = *name;
    sections[i] = {{},      *type, *info,
                   *offset, *size, *offset <= image.size() && image.size() - *offset >= *size};
  }
  const Section& strings = sections[*names];
  if (!strings.inImage || strings.type == kNoBits) return std::nullopt;
  const std::string_view text = image.substr(strings.offset, strings.size);
  for (std::size_t i = 0; i < sections.size(); ++i) {
    if (nameOffsets[i] >= text.size()) continue;
    const std::size_t end = text.find('\0', nameOffsets[i]);
    if (end != std::string_view::npos)
      sections[i].name = text.substr(nameOffsets[i], end - nameOffsets[i]);
  }
  return sections;
}

}  // namespace

std::optional<KernelResources> cubinResources(std::string_view image, std::string_view function) {
  const std::optional<std::vector<Section>> sections = sectionsOf(image);
  if (!sections) return std::nullopt;
  const auto named = [&](std::string_view name) -> const Section* {
    for (const Section& section : *sections)
      if (section.name == name) return &section;
    return nullptr;
  };
  const Section* code = named(".text." + std::string(function));
  if (!code) return std::nullopt;
  // A code section's info holds its symbol's index (older images keep the registers in its top
  // byte too).
  const std::uint32_t symbol = code->info & 0xffffff;

  KernelResources resources;
  bool counted = false;
  for (const Section& info : *sections) {
    if (info.name != ".nv.info" || !info.inImage || info.type == kNoBits) continue;
    const std::string_view entries = image.substr(info.offset, info.size);
    for (std::uint64_t at = 0; entries.size() - at >= 4;) {
      const auto format = std::uint8_t(entries[at]), attribute = std::uint8_t(entries[at + 1]);
      const std::uint16_t bytes = *read<std::uint16_t>(entries, at + 2);
      at += 4;
      if (format != kSizedFormat) continue;
      if (entries.size() - at < bytes) break;
      if (bytes >= 8 && (attribute == kRegisterCount || attribute == kFrameBytes) &&
          *read<std::uint32_t>(entries, at) == symbol) {
        const std::uint32_t value = *read<std::uint32_t>(entries, at + 4);
        if (attribute == kRegisterCount) {
          if (value > kMostRegisters) return std::nullopt;
          resources.registersPerThread = int(value);
          counted = true;
        } else {
          resources.localBytesPerThread = value;
        }
      }
      at += bytes;
    }
  }
  if (!counted) return std::nullopt;
  if (const Section* shared = named(".nv.shared." + std::string(function))) {
    std::uint64_t bytes = shared->size;
    if (named(kReservedShared) && bytes >= kReservedSharedBytes) bytes -= kReservedSharedBytes;
    if (bytes > kMostShared) return std::nullopt;
    resources.sharedBytesPerBlock = std::int64_t(bytes);
  }
  return resources;
}

}  // namespace tilescope
