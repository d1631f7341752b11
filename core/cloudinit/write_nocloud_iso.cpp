// Builds the NoCloud image in memory. libisofs' writer runs in its own thread and hands the
// image back through a burn_source in 2048-byte blocks, so no temporary file is needed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>

#include "core/cloudinit/iso_library.hpp"
#include "core/cloudinit/nocloud_iso.hpp"

#ifndef LIBISOFS_WITHOUT_LIBBURN
#define LIBISOFS_WITHOUT_LIBBURN
#endif
#include <libisofs/libisofs.h>

namespace kp::cloudinit {

namespace {

constexpr int block_size = 2048;
// The writer thread's ring buffer; libisofs' minimum (32 blocks = 64 KiB) instead of its 2 MiB
// default, since our images are tiny and many may be built at once.
constexpr std::size_t fifo_blocks = 32;

struct image_unref {
  void operator()(IsoImage* image) const { iso_image_unref(image); }
};
struct write_opts_free {
  void operator()(IsoWriteOpts* opts) const { iso_write_opts_free(opts); }
};

kp::error iso_failure(const char* what, int code) {
  return make_error("iso_error", std::string(what) + ": " + iso_error_to_msg(code));
}

status add_file(IsoImage* image, const char* name, const std::string& content) {
  // iso_memory_stream_new takes the buffer and later free()s it, so it must come from malloc.
  auto* buffer = static_cast<unsigned char*>(std::malloc(content.empty() ? 1 : content.size()));
  if (buffer == nullptr) return make_error("iso_error", "out of memory");
  if (!content.empty()) std::memcpy(buffer, content.data(), content.size());
  IsoStream* stream = nullptr;
  int rc = iso_memory_stream_new(buffer, content.size(), &stream);
  if (rc < 0) {
    std::free(buffer);
    return iso_failure("creating a stream for the file", rc);
  }
  IsoFile* file = nullptr;
  // On success the file owns the stream reference; releasing it here as well would free it twice.
  rc = iso_image_add_new_file(image, iso_image_get_root(image), name, stream, &file);
  if (rc < 0) {
    iso_stream_unref(stream);
    return iso_failure(name, rc);
  }
  auto* node = reinterpret_cast<IsoNode*>(file);
  iso_node_set_permissions(node, 0644);
  iso_node_set_uid(node, 0);
  iso_node_set_gid(node, 0);
  return {};
}

// "YYYYMMDDhhmmsscc" in UTC: libisofs copies it verbatim into the volume descriptor, which is the
// only timezone-proof way to fix the creation and modification times.
result<std::string> volume_time_digits(std::int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm utc{};
  if (unix_seconds < 0 || gmtime_r(&t, &utc) == nullptr || utc.tm_year + 1900 > 9999) {
    return make_error("invalid_argument",
                      "fixed_timestamp must be a Unix time between 1970 and 9999");
  }
  char digits[80];  // sized for any int values, so the compiler can prove no truncation
  std::snprintf(digits, sizeof digits, "%04d%02d%02d%02d%02d%02d00", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
  return std::string(digits);
}

}  // namespace

result<std::string> write_nocloud_iso(const nocloud_files& files,
                                      const iso_write_options& options) {
  std::size_t total = files.user_data.size() + files.meta_data.size() +
                      (files.network_config ? files.network_config->size() : 0) +
                      (files.vendor_data ? files.vendor_data->size() : 0);
  if (total > options.max_content_bytes) {
    return make_error("invalid_argument", "cloud-init content of " + std::to_string(total) +
                                              " bytes exceeds the limit of " +
                                              std::to_string(options.max_content_bytes));
  }
  if (auto ready = ensure_iso_library(); !ready) return ready.error();

  const std::string volume_id(nocloud_volume_id);
  IsoImage* raw_image = nullptr;
  if (int rc = iso_image_new(volume_id.c_str(), &raw_image); rc < 0) {
    return iso_failure("creating the image", rc);
  }
  std::unique_ptr<IsoImage, image_unref> image(raw_image);
  iso_image_set_volume_id(image.get(), volume_id.c_str());

  if (auto s = add_file(image.get(), "user-data", files.user_data); !s) return s.error();
  if (auto s = add_file(image.get(), "meta-data", files.meta_data); !s) return s.error();
  if (files.network_config) {
    if (auto s = add_file(image.get(), "network-config", *files.network_config); !s) {
      return s.error();
    }
  }
  if (files.vendor_data) {
    if (auto s = add_file(image.get(), "vendor-data", *files.vendor_data); !s) return s.error();
  }

  IsoWriteOpts* raw_opts = nullptr;
  if (int rc = iso_write_opts_new(&raw_opts, 0); rc < 0) {
    return iso_failure("creating write options", rc);
  }
  std::unique_ptr<IsoWriteOpts, write_opts_free> opts(raw_opts);
  iso_write_opts_set_iso_level(opts.get(), 2);
  iso_write_opts_set_rockridge(opts.get(), 1);
  iso_write_opts_set_joliet(opts.get(), 1);
  // Without relaxed volume attributes libisofs upper-cases the volume id to CIDATA.
  iso_write_opts_set_relaxed_vol_atts(opts.get(), 1);
  // Joliet names exactly as written ("user-data", not "user-data.;1"), as genisoimage makes them,
  // for readers that mount with Joliet rather than Rock Ridge.
  iso_write_opts_set_omit_version_numbers(opts.get(), 2);
  iso_write_opts_set_no_force_dots(opts.get(), 2);
  iso_write_opts_set_fifo_size(opts.get(), fifo_blocks);
  if (options.fixed_timestamp) {
    auto digits = volume_time_digits(*options.fixed_timestamp);
    if (!digits) return digits.error();
    auto t = static_cast<time_t>(*options.fixed_timestamp);
    iso_write_opts_set_always_gmt(opts.get(), 1);
    iso_write_opts_set_replace_timestamps(opts.get(), 2);
    iso_write_opts_set_default_timestamp(opts.get(), t);
    iso_write_opts_set_pvd_times(opts.get(), t, t, 0, 0, digits->data());
  }

  burn_source* source = nullptr;
  if (int rc = iso_image_create_burn_source(image.get(), opts.get(), &source); rc < 0) {
    return iso_failure("starting the image writer", rc);
  }
  std::string out;
  unsigned char block[block_size];
  int n = 0;
  while ((n = source->read_xt(source, block, block_size)) == block_size) {
    out.append(reinterpret_cast<const char*>(block), block_size);
  }
  const bool failed = n < 0;
  if (n > 0) out.append(reinterpret_cast<const char*>(block), static_cast<std::size_t>(n));
  // The writer thread must be stopped (cancel) or have finished (drained) before free_data joins
  // it.
  if (failed) source->cancel(source);
  source->free_data(source);
  std::free(source);
  if (failed || out.empty() || out.size() % block_size != 0) {
    return make_error("iso_error",
                      "the image writer failed after " + std::to_string(out.size()) + " bytes");
  }
  return out;
}

}  // namespace kp::cloudinit
