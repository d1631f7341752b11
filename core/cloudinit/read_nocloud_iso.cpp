// Reads a NoCloud image from memory, as a simulated guest reads its CD-ROM. The bytes may be
// anything (a broken upload, a hostile user), so every step checks and returns an error value.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "core/cloudinit/iso_library.hpp"
#include "core/cloudinit/nocloud_iso.hpp"

#ifndef LIBISOFS_WITHOUT_LIBBURN
#define LIBISOFS_WITHOUT_LIBBURN
#endif
#include <libisofs/libisofs.h>

namespace kp::cloudinit {

namespace {

constexpr std::size_t block_size = 2048;
// System area (16 blocks) plus at least the primary volume descriptor.
constexpr std::size_t min_image_size = 17 * block_size;

// The bytes behind our IsoDataSource. The caller's image outlives the read (it is synchronous).
struct memory_image {
  const unsigned char* data;
  std::size_t size;
};

int source_open(IsoDataSource*) {
  return ISO_SUCCESS;
}
int source_close(IsoDataSource*) {
  return ISO_SUCCESS;
}

int source_read_block(IsoDataSource* source, uint32_t lba, uint8_t* buffer) {
  const auto* image = static_cast<const memory_image*>(source->data);
  const std::uint64_t offset = static_cast<std::uint64_t>(lba) * block_size;
  if (offset >= image->size) return ISO_DATA_SOURCE_MISHAP;  // a truncated image
  const std::size_t n = std::min<std::uint64_t>(block_size, image->size - offset);
  std::memcpy(buffer, image->data + offset, n);
  if (n < block_size) std::memset(buffer + n, 0, block_size - n);
  return ISO_SUCCESS;
}

void source_free_data(IsoDataSource* source) {
  delete static_cast<memory_image*>(source->data);
}

// libisofs free()s the IsoDataSource struct itself at its last unref, so it must come from
// calloc (new would be a mismatched free). Its `data` is ours and is deleted in free_data.
IsoDataSource* new_memory_source(std::string_view image) {
  auto* source = static_cast<IsoDataSource*>(std::calloc(1, sizeof(IsoDataSource)));
  if (source == nullptr) return nullptr;
  source->version = 0;
  source->refcount = 1;
  source->open = source_open;
  source->close = source_close;
  source->read_block = source_read_block;
  source->free_data = source_free_data;
  source->data =
      new memory_image{reinterpret_cast<const unsigned char*>(image.data()), image.size()};
  return source;
}

struct image_unref {
  void operator()(IsoImage* image) const { iso_image_unref(image); }
};
struct source_unref {
  void operator()(IsoDataSource* source) const { iso_data_source_unref(source); }
};
struct read_opts_free {
  void operator()(IsoReadOpts* opts) const { iso_read_opts_free(opts); }
};
struct features_destroy {
  void operator()(IsoReadImageFeatures* f) const { iso_read_image_features_destroy(f); }
};

kp::error invalid(const std::string& what, int code) {
  return make_error("invalid_iso", what + ": " + iso_error_to_msg(code));
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// nullopt when the file is absent; an error when present but unreadable.
result<std::optional<std::string>> read_file(IsoImage* image, const char* name,
                                             std::size_t size_limit) {
  IsoNode* node = nullptr;
  int rc = iso_image_dir_get_node(image, iso_image_get_root(image), name, &node, 0);
  if (rc < 0) return invalid(std::string("looking up ") + name, rc);
  if (rc != 1 || node == nullptr) return std::optional<std::string>{};  // 0 or 2: not found
  if (!ISO_NODE_IS_FILE(node)) {
    return make_error("invalid_iso", std::string(name) + " is not a regular file");
  }
  IsoStream* stream = iso_file_get_stream(reinterpret_cast<IsoFile*>(node));
  if (stream == nullptr) return make_error("invalid_iso", std::string(name) + " has no content");
  const off_t size = iso_stream_get_size(stream);
  // A file cannot be larger than the image that holds it; a bigger size is a forged directory
  // record, and believing it would allocate whatever the attacker asked for.
  if (size < 0 || static_cast<std::uint64_t>(size) > size_limit) {
    return make_error("invalid_iso", std::string(name) + " claims an impossible size of " +
                                         std::to_string(size) + " bytes");
  }
  if (rc = iso_stream_open(stream); rc < 0) return invalid(std::string("opening ") + name, rc);
  std::string content(static_cast<std::size_t>(size), '\0');
  std::size_t filled = 0;
  while (filled < content.size()) {
    int n = iso_stream_read(stream, content.data() + filled, content.size() - filled);
    if (n < 0) {
      iso_stream_close(stream);
      return invalid(std::string("reading ") + name, n);
    }
    if (n == 0) break;
    filled += static_cast<std::size_t>(n);
  }
  iso_stream_close(stream);
  if (filled != content.size()) {
    return make_error("invalid_iso", std::string(name) + " ends after " + std::to_string(filled) +
                                         " of " + std::to_string(size) + " bytes");
  }
  return std::optional<std::string>(std::move(content));
}

}  // namespace

result<nocloud_files> read_nocloud_iso(std::string_view image_bytes) {
  if (image_bytes.size() < min_image_size) {
    return make_error("invalid_iso", "an ISO9660 image has at least " +
                                         std::to_string(min_image_size) + " bytes, got " +
                                         std::to_string(image_bytes.size()));
  }
  if (image_bytes.substr(16 * block_size + 1, 5) != "CD001") {
    return make_error("invalid_iso", "no ISO9660 volume descriptor at block 16");
  }
  if (auto ready = ensure_iso_library(); !ready) return ready.error();

  std::unique_ptr<IsoDataSource, source_unref> source(new_memory_source(image_bytes));
  if (!source) return make_error("iso_error", "out of memory");
  IsoImage* raw_image = nullptr;
  if (int rc = iso_image_new("reader", &raw_image); rc < 0) return invalid("creating an image", rc);
  std::unique_ptr<IsoImage, image_unref> image(raw_image);
  IsoReadOpts* raw_opts = nullptr;
  if (int rc = iso_read_opts_new(&raw_opts, 0); rc < 0) return invalid("read options", rc);
  std::unique_ptr<IsoReadOpts, read_opts_free> opts(raw_opts);
  // Keep the source alive until the image goes: file contents are read lazily from it.
  iso_read_opts_keep_import_src(opts.get(), 1);
  IsoReadImageFeatures* raw_features = nullptr;
  if (int rc = iso_image_import(image.get(), source.get(), opts.get(), &raw_features); rc < 0) {
    return invalid("reading the image", rc);
  }
  std::unique_ptr<IsoReadImageFeatures, features_destroy> features(raw_features);

  const char* volume_id = iso_image_get_volume_id(image.get());
  if (volume_id == nullptr || !equals_ignoring_case(volume_id, nocloud_volume_id)) {
    return make_error("not_nocloud", std::string("volume id is '") + (volume_id ? volume_id : "") +
                                         "', expected 'cidata'");
  }

  nocloud_files files;
  auto user_data = read_file(image.get(), "user-data", image_bytes.size());
  if (!user_data) return user_data.error();
  if (!user_data.value()) return make_error("missing_file", "the image has no user-data");
  files.user_data = std::move(**user_data);
  auto meta_data = read_file(image.get(), "meta-data", image_bytes.size());
  if (!meta_data) return meta_data.error();
  if (!meta_data.value()) return make_error("missing_file", "the image has no meta-data");
  files.meta_data = std::move(**meta_data);
  auto network_config = read_file(image.get(), "network-config", image_bytes.size());
  if (!network_config) return network_config.error();
  files.network_config = std::move(*network_config);
  auto vendor_data = read_file(image.get(), "vendor-data", image_bytes.size());
  if (!vendor_data) return vendor_data.error();
  files.vendor_data = std::move(*vendor_data);
  return files;
}

}  // namespace kp::cloudinit
