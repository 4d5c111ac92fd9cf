// SPDX-License-Identifier: GPL-3.0-or-later
// A kernel's resources read from its cubin: a small ELF built here as NVRTC lays one out (the
// templates' real images are checked against ptxas -v in test_user_kernel.cpp), then every way
// such a file can be cut short or point outside itself, read without a fault.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "user/cubin_resources.hpp"

namespace tilescope {
namespace {

struct SectionSpec {
  std::string name;
  std::uint32_t type = 1;  // PROGBITS; 8: NOBITS
  std::uint32_t info = 0;
  std::string bytes;       // in the file
  std::uint64_t size = 0;  // NOBITS: the size alone
};

template <typename T>
void put(std::string& image, std::size_t at, T value) {
  if (image.size() < at + sizeof(T)) image.resize(at + sizeof(T));
  std::memcpy(image.data() + at, &value, sizeof(T));
}

// .nv.info's {symbol, value} entry of `attribute` (the sized format, 8 bytes).
std::string infoEntry(std::uint8_t attribute, std::uint32_t symbol, std::uint32_t value) {
  std::string entry(12, '\0');
  entry[0] = 0x04;
  entry[1] = char(attribute);
  put<std::uint16_t>(entry, 2, 8);
  put(entry, 4, symbol);
  put(entry, 8, value);
  return entry;
}

// An ELF64 little-endian file: the header, section 0 (null), .shstrtab, then `sections`, their
// bytes after the header and the section table last.
std::string elf(const std::vector<SectionSpec>& sections) {
  std::string names(1, '\0');
  std::vector<std::uint32_t> nameAt;
  for (const std::string& name : {std::string(".shstrtab")}) {
    nameAt.push_back(std::uint32_t(names.size()));
    names += name + '\0';
  }
  for (const SectionSpec& s : sections) {
    nameAt.push_back(std::uint32_t(names.size()));
    names += s.name + '\0';
  }
  std::string image(64, '\0');
  image.replace(0, 6,
                "\x7f"
                "ELF\x02\x01");
  std::vector<std::uint64_t> offsets;
  offsets.push_back(image.size());
  image += names;
  for (const SectionSpec& s : sections) {
    offsets.push_back(image.size());
    image += s.bytes;
  }
  const std::uint64_t table = image.size();
  const std::uint16_t count = std::uint16_t(sections.size() + 2);
  put(image, 0x28, table);
  put<std::uint16_t>(image, 0x3a, 64);
  put(image, 0x3c, count);
  put<std::uint16_t>(image, 0x3e, 1);
  image.resize(table + 64 * std::size_t(count), '\0');
  const auto header = [&](std::size_t index, std::uint32_t name, std::uint32_t type,
                          std::uint64_t offset, std::uint64_t size, std::uint32_t info) {
    const std::size_t at = table + 64 * index;
    put(image, at, name);
    put(image, at + 4, type);
    put(image, at + 24, offset);
    put(image, at + 32, size);
    put(image, at + 44, info);
  };
  header(1, nameAt[0], 3, offsets[0], names.size(), 0);
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const SectionSpec& s = sections[i];
    header(i + 2, nameAt[i + 1], s.type, offsets[i + 1], s.type == 8 ? s.size : s.bytes.size(),
           s.info);
  }
  return image;
}

// ts_kernel is symbol 7: 40 registers, a 16-byte frame, 2 KiB of static shared memory. Another
// function's entries come first, as in a template's image.
std::vector<SectionSpec> kernelSections(bool reservesShared) {
  std::vector<SectionSpec> sections = {
      {".nv.info", 0x70000000, 0,
       infoEntry(0x2f, 6, 12) + infoEntry(0x11, 6, 64) + std::string("\x01\x2a\x00\x00", 4) +
           infoEntry(0x2f, 7, 40) + infoEntry(0x11, 7, 16)},
      {".text.ts_launch", 1, 6, std::string(16, '\0')},
      {".text.ts_kernel", 1, 7, std::string(16, '\0')},
      {".nv.shared.ts_kernel", 8, 7, "", 2048 + (reservesShared ? 1024u : 0u)}};
  if (reservesShared) sections.push_back({".nv.shared.reserved.0", 8, 0, "", 0});
  return sections;
}

TEST(CubinResources, RegistersFrameAndSharedMemoryOfTheFunctionNamed) {
  const std::optional<KernelResources> kernel =
      cubinResources(elf(kernelSections(false)), "ts_kernel");
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->registersPerThread, 40);
  EXPECT_EQ(kernel->localBytesPerThread, 16);
  EXPECT_EQ(kernel->sharedBytesPerBlock, 2048);
  const std::optional<KernelResources> launch =
      cubinResources(elf(kernelSections(false)), "ts_launch");
  ASSERT_TRUE(launch);
  EXPECT_EQ(launch->registersPerThread, 12);
  EXPECT_EQ(launch->localBytesPerThread, 64);
  EXPECT_EQ(launch->sharedBytesPerBlock, 0);  // no shared section
  EXPECT_FALSE(cubinResources(elf(kernelSections(false)), "ts_kstep"));
}

// sm_90's images count the block's reserved KiB in each shared section, and say so.
TEST(CubinResources, TheReservedKibibyteOfSm90IsNotTheKernels) {
  const auto kernel = cubinResources(elf(kernelSections(true)), "ts_kernel");
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->sharedBytesPerBlock, 2048);
}

// Older images keep the registers in the top byte of the code section's info too: the symbol is
// the low 24 bits.
TEST(CubinResources, TheSymbolIsTheLow24BitsOfTheCodeSectionsInfo) {
  std::vector<SectionSpec> sections = kernelSections(false);
  sections[2].info = 7 | 40u << 24;
  const auto kernel = cubinResources(elf(sections), "ts_kernel");
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->registersPerThread, 40);
}

TEST(CubinResources, ADamagedImageHasNoneAndIsReadWithinItsBytes) {
  const std::string image = elf(kernelSections(true));
  // Cut anywhere: whatever is read is the whole answer or none.
  for (std::size_t size = 0; size < image.size(); ++size) {
    const auto cut = cubinResources(std::string_view(image).substr(0, size), "ts_kernel");
    if (cut) {
      EXPECT_EQ(cut->registersPerThread, 40) << size;
    }
  }
  EXPECT_FALSE(cubinResources("", "ts_kernel"));
  EXPECT_FALSE(cubinResources(
      "not an ELF file at all, but long enough to hold a header. " + std::string(64, 'x'),
      "ts_kernel"));
  // Each field of the header and of the section table set to the largest value, one at a time:
  // offsets, sizes and name offsets past the end, a section count past the table.
  std::uint64_t tableAt = 0;
  std::memcpy(&tableAt, image.data() + 0x28, 8);
  std::vector<std::size_t> fields = {0x28, 0x3a, 0x3c, 0x3e};
  for (std::size_t section = 0; section < 7; ++section)
    for (const std::size_t field : {0, 24, 32, 44})
      fields.push_back(tableAt + 64 * section + field);
  for (const std::size_t field : fields) {
    std::string damaged = image;
    const std::size_t width =
        field == 0x3a || field == 0x3c || field == 0x3e                                   ? 2
        : field >= tableAt && (field - tableAt) % 64 >= 24 && (field - tableAt) % 64 < 40 ? 8
                                                                                          : 4;
    std::memset(damaged.data() + field, 0xff, width);
    (void)cubinResources(damaged, "ts_kernel");  // no fault, no read past the end (ASan)
  }
  // .nv.info entries whose size runs past the section: the rest is not read.
  std::vector<SectionSpec> sections = kernelSections(false);
  sections[0].bytes = std::string("\x04\x2f\xff\xff", 4) + sections[0].bytes;
  EXPECT_FALSE(cubinResources(elf(sections), "ts_kernel"));
  // A register count no GPU has.
  sections = kernelSections(false);
  sections[0].bytes += infoEntry(0x2f, 7, 100000);
  EXPECT_FALSE(cubinResources(elf(sections), "ts_kernel"));
}

}  // namespace
}  // namespace tilescope
