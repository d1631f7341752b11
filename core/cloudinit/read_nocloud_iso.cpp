// Reads a NoCloud image from memory, as a simulated guest reads its CD-ROM. The bytes may be
// anything (a broken upload, a hostile user), so this is a small ISO9660 reader of our own that
// checks every offset against the image: it reads the volume descriptors and the root directory
// only (NoCloud keeps its files there), with Rock Ridge names, else Joliet names, else plain ones.
// libisofs, which writes the images, leaked memory while importing some malformed ones.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cloudinit/nocloud_iso.hpp"

namespace kp::cloudinit {

namespace {

constexpr std::size_t block_size = 2048;
constexpr std::size_t first_descriptor_block = 16;
// System area (16 blocks) plus at least the primary volume descriptor.
constexpr std::size_t min_image_size = 17 * block_size;
// Bounds on what a forged image can make us walk.
constexpr int max_descriptors = 64;
constexpr int max_continuation_areas = 16;
constexpr std::size_t max_name_bytes = 1024;

constexpr std::uint8_t type_primary = 1;
constexpr std::uint8_t type_supplementary = 2;
constexpr std::uint8_t type_terminator = 255;
constexpr std::uint8_t flag_directory = 0x02;
constexpr std::uint8_t flag_multi_extent = 0x80;
constexpr std::size_t root_record_offset = 156;
constexpr std::size_t root_record_size = 34;
constexpr std::size_t min_record_size = 33;

kp::error invalid(std::string what) {
  return make_error("invalid_iso", std::move(what));
}

std::uint8_t byte_at(std::string_view bytes, std::size_t at) {
  return static_cast<std::uint8_t>(bytes[at]);
}

// ISO9660 stores numbers in both byte orders; the little-endian half is read.
std::uint32_t little_endian_32(std::string_view bytes, std::size_t at) {
  return std::uint32_t{byte_at(bytes, at)} | std::uint32_t{byte_at(bytes, at + 1)} << 8 |
         std::uint32_t{byte_at(bytes, at + 2)} << 16 | std::uint32_t{byte_at(bytes, at + 3)} << 24;
}

// The image, read only through bounds-checked slices.
class image_bytes {
 public:
  explicit image_bytes(std::string_view bytes) : bytes_(bytes) {}

  // [offset, offset + length) of the image, or nullopt when any of it lies outside.
  std::optional<std::string_view> slice(std::uint64_t offset, std::uint64_t length) const {
    if (offset > bytes_.size() || length > bytes_.size() - offset) return std::nullopt;
    return bytes_.substr(offset, length);
  }
  std::optional<std::string_view> extent(std::uint32_t block, std::uint64_t length) const {
    return slice(std::uint64_t{block} * block_size, length);
  }
  std::size_t size() const { return bytes_.size(); }

 private:
  std::string_view bytes_;
};

struct directory_record {
  std::uint32_t extent = 0;
  std::uint32_t size = 0;
  std::uint8_t flags = 0;
  std::string_view identifier;
  std::string_view system_use;
};

// One record whose bytes are exactly `record` (its length byte says how many); nullopt when its
// fields do not fit inside it.
std::optional<directory_record> parse_record(std::string_view record) {
  if (record.size() < min_record_size) return std::nullopt;
  const std::size_t name_length = byte_at(record, 32);
  if (min_record_size + name_length > record.size()) return std::nullopt;
  // A padding byte follows an even-length identifier, keeping the system use area aligned.
  const std::size_t system_use_at = min_record_size + name_length + (name_length % 2 == 0 ? 1 : 0);
  directory_record parsed;
  parsed.extent = little_endian_32(record, 2);
  parsed.size = little_endian_32(record, 10);
  parsed.flags = byte_at(record, 25);
  parsed.identifier = record.substr(min_record_size, name_length);
  if (system_use_at < record.size()) parsed.system_use = record.substr(system_use_at);
  return parsed;
}

// The records of a directory, in order. Records never cross a block: a zero length byte means
// the rest of the block is padding.
result<std::vector<directory_record>> read_directory(const image_bytes& image,
                                                     const directory_record& directory) {
  auto contents = image.extent(directory.extent, directory.size);
  if (!contents) return invalid("the root directory lies outside the image");
  std::vector<directory_record> records;
  std::size_t at = 0;
  while (at < contents->size()) {
    const std::size_t length = byte_at(*contents, at);
    if (length == 0) {
      at = (at / block_size + 1) * block_size;
      continue;
    }
    if (length > contents->size() - at)
      return invalid("a directory record runs past its directory");
    auto record = parse_record(contents->substr(at, length));
    if (!record) return invalid("a directory record is shorter than its fields");
    records.push_back(*record);
    at += length;
  }
  return records;
}

// Walks the SUSP entries of a system use area and of the continuation areas (CE) it points to,
// calling `visit(signature, entry)` for each. Malformed entries end an area, as Linux does.
template <typename Visit>
void for_each_susp_entry(const image_bytes& image, std::string_view area, Visit&& visit) {
  int continuations = 0;
  while (!area.empty()) {
    std::optional<std::string_view> next_area;
    while (area.size() >= 4) {
      const std::size_t length = byte_at(area, 2);
      if (length < 4 || length > area.size()) break;
      const std::string_view entry = area.substr(0, length);
      const std::string_view signature = entry.substr(0, 2);
      if (signature == "ST") break;
      if (signature == "CE" && length >= 28 && continuations < max_continuation_areas) {
        const std::uint64_t offset =
            std::uint64_t{little_endian_32(entry, 4)} * block_size + little_endian_32(entry, 12);
        next_area = image.slice(offset, little_endian_32(entry, 20));
      }
      visit(signature, entry);
      area.remove_prefix(length);
    }
    area = next_area.value_or(std::string_view{});
    ++continuations;
  }
}

// Rock Ridge is in use when the root's "." record starts its system use area with an SP entry;
// its skip byte says how many bytes every later area starts with before its entries.
std::optional<std::size_t> rock_ridge_skip(const directory_record& root_self) {
  const std::string_view area = root_self.system_use;
  if (area.size() < 7 || area.substr(0, 2) != "SP" || byte_at(area, 4) != 0xBE ||
      byte_at(area, 5) != 0xEF) {
    return std::nullopt;
  }
  return byte_at(area, 6);
}

// The record's Rock Ridge name (NM entries, which may continue one another); nullopt without one.
result<std::optional<std::string>> rock_ridge_name(const image_bytes& image,
                                                   const directory_record& record,
                                                   std::size_t skip) {
  if (skip > record.system_use.size()) return std::optional<std::string>{};
  std::optional<std::string> name;
  bool too_long = false;
  for_each_susp_entry(image, record.system_use.substr(skip),
                      [&](std::string_view signature, std::string_view entry) {
                        constexpr std::uint8_t current_or_parent = 0x06;
                        if (signature != "NM" || entry.size() < 5) return;
                        if ((byte_at(entry, 4) & current_or_parent) != 0) return;
                        if (!name) name.emplace();
                        name->append(entry.substr(5));
                        too_long = too_long || name->size() > max_name_bytes;
                      });
  if (too_long)
    return invalid("a Rock Ridge name is longer than " + std::to_string(max_name_bytes) + " bytes");
  return name;
}

// A Joliet identifier is UCS-2, big-endian; NoCloud's names are ASCII, so anything else only
// needs to stay distinct from them.
std::string joliet_name(std::string_view identifier) {
  std::string name;
  for (std::size_t at = 0; at + 1 < identifier.size(); at += 2) {
    const unsigned unit = unsigned{byte_at(identifier, at)} << 8 | byte_at(identifier, at + 1);
    name += unit < 0x80 ? static_cast<char>(unit) : '?';
  }
  return name;
}

// "NAME.EXT;1" -> "name.ext", as Linux shows plain ISO9660 names; Joliet names drop ";1" too.
std::string without_version(std::string name, bool lowercase) {
  if (auto semicolon = name.find(';'); semicolon != std::string::npos) name.resize(semicolon);
  if (!name.empty() && name.back() == '.') name.pop_back();
  if (lowercase) {
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return name;
}

// A directory's "." and ".." records have the one-byte identifiers 0 and 1.
bool is_self(const directory_record& record) {
  return record.identifier == std::string_view("\0", 1);
}
bool is_self_or_parent(const directory_record& record) {
  return is_self(record) || record.identifier == std::string_view("\1", 1);
}

struct volume {
  std::string volume_id;
  directory_record primary_root;
  std::optional<directory_record> joliet_root;
};

result<directory_record> root_record_of(std::string_view descriptor) {
  auto record = parse_record(descriptor.substr(root_record_offset, root_record_size));
  if (!record || byte_at(descriptor, root_record_offset) < min_record_size) {
    return invalid("the volume descriptor's root directory record is malformed");
  }
  return *record;
}

bool is_joliet(std::string_view descriptor) {
  const std::string_view escape = descriptor.substr(88, 3);
  return escape == "%/@" || escape == "%/C" || escape == "%/E";
}

result<volume> read_volume(const image_bytes& image) {
  std::optional<volume> found;
  std::optional<directory_record> joliet_root;
  for (int index = 0; index < max_descriptors; ++index) {
    auto descriptor =
        image.extent(static_cast<std::uint32_t>(first_descriptor_block + index), block_size);
    if (!descriptor) return invalid("the volume descriptors run past the end of the image");
    if (descriptor->substr(1, 5) != "CD001") {
      return invalid("volume descriptor " + std::to_string(index) + " has no CD001 mark");
    }
    const std::uint8_t type = byte_at(*descriptor, 0);
    if (type == type_terminator) break;
    if (type == type_primary && !found) {
      auto root = root_record_of(*descriptor);
      if (!root) return root.error();
      std::string id(descriptor->substr(40, 32));
      id.erase(id.find_last_not_of(' ') + 1);
      found = volume{std::move(id), *root, std::nullopt};
    } else if (type == type_supplementary && !joliet_root && is_joliet(*descriptor)) {
      if (auto root = root_record_of(*descriptor)) joliet_root = *root;
    }
  }
  if (!found) return invalid("the image has no primary volume descriptor");
  found->joliet_root = joliet_root;
  return std::move(*found);
}

// The root directory's entries by name: Rock Ridge names when the image has them, else Joliet
// names, else plain ISO9660 names. The first entry of a name wins.
result<std::map<std::string, directory_record>> root_entries(const image_bytes& image,
                                                             const volume& volume) {
  auto primary = read_directory(image, volume.primary_root);
  if (!primary) return primary.error();
  std::map<std::string, directory_record> entries;
  auto self = std::find_if(primary->begin(), primary->end(), is_self);
  const auto skip = self != primary->end() ? rock_ridge_skip(*self) : std::nullopt;
  if (skip) {
    for (const auto& record : *primary) {
      if (is_self_or_parent(record)) continue;
      auto name = rock_ridge_name(image, record, *skip);
      if (!name) return name.error();
      entries.try_emplace(name->value_or(without_version(std::string(record.identifier), true)),
                          record);
    }
    return entries;
  }
  if (volume.joliet_root) {
    auto joliet = read_directory(image, *volume.joliet_root);
    if (!joliet) return joliet.error();
    for (const auto& record : *joliet) {
      if (!is_self_or_parent(record)) {
        entries.try_emplace(without_version(joliet_name(record.identifier), false), record);
      }
    }
    return entries;
  }
  for (const auto& record : *primary) {
    if (!is_self_or_parent(record)) {
      entries.try_emplace(without_version(std::string(record.identifier), true), record);
    }
  }
  return entries;
}

// nullopt when the file is absent; an error when present but unreadable.
result<std::optional<std::string>> read_file(const image_bytes& image,
                                             const std::map<std::string, directory_record>& entries,
                                             const std::string& name) {
  auto entry = entries.find(name);
  if (entry == entries.end()) return std::optional<std::string>{};
  const directory_record& record = entry->second;
  if ((record.flags & flag_directory) != 0) return invalid(name + " is not a regular file");
  if ((record.flags & flag_multi_extent) != 0) {
    return invalid(name + " spans several extents, which a NoCloud file never needs");
  }
  // A file cannot be larger than the image that holds it: a bigger size is a forged record.
  if (record.size > image.size()) {
    return invalid(name + " claims an impossible size of " + std::to_string(record.size) +
                   " bytes");
  }
  auto contents = image.extent(record.extent, record.size);
  if (!contents) {
    return invalid(name + " lies past the end of the image (block " +
                   std::to_string(record.extent) + ", " + std::to_string(record.size) + " bytes)");
  }
  return std::optional<std::string>(std::string(*contents));
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

result<nocloud_files> read_nocloud_iso(std::string_view bytes) {
  if (bytes.size() < min_image_size) {
    return invalid("an ISO9660 image has at least " + std::to_string(min_image_size) +
                   " bytes, got " + std::to_string(bytes.size()));
  }
  if (bytes.substr(first_descriptor_block * block_size + 1, 5) != "CD001") {
    return invalid("no ISO9660 volume descriptor at block 16");
  }
  const image_bytes image(bytes);
  auto volume = read_volume(image);
  if (!volume) return volume.error();
  if (!equals_ignoring_case(volume->volume_id, nocloud_volume_id)) {
    return make_error("not_nocloud", "volume id is '" + volume->volume_id + "', expected 'cidata'");
  }
  auto entries = root_entries(image, *volume);
  if (!entries) return entries.error();

  nocloud_files files;
  auto user_data = read_file(image, *entries, "user-data");
  if (!user_data) return user_data.error();
  if (!user_data.value()) return make_error("missing_file", "the image has no user-data");
  files.user_data = std::move(**user_data);
  auto meta_data = read_file(image, *entries, "meta-data");
  if (!meta_data) return meta_data.error();
  if (!meta_data.value()) return make_error("missing_file", "the image has no meta-data");
  files.meta_data = std::move(**meta_data);
  auto network_config = read_file(image, *entries, "network-config");
  if (!network_config) return network_config.error();
  files.network_config = std::move(*network_config);
  auto vendor_data = read_file(image, *entries, "vendor-data");
  if (!vendor_data) return vendor_data.error();
  files.vendor_data = std::move(*vendor_data);
  return files;
}

}  // namespace kp::cloudinit
