// Storage endpoints: storage list, content listing, volume info and delete, ISO upload
// (multipart) and download-url. ISO and import files are real files under
// DATA_DIR/<node>/<storage>/<content>/; VM disks exist only in VM configs.
#include "sim/pve/storage_api.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <fstream>

#include "sim/pve/api_router.hpp"
#include "sim/pve/parameter_checks.hpp"
#include "sim/pve/property_string.hpp"
#include "sim/pve/task_board.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {

std::string hex_digest(const std::string& algorithm, const std::string& data) {
  const EVP_MD* md = EVP_get_digestbyname(algorithm.c_str());
  if (!md) return "";
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, md, nullptr);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out.push_back(hex[digest[i] >> 4]);
    out.push_back(hex[digest[i] & 15]);
  }
  return out;
}

bool valid_algorithm(const std::string& a) {
  return a == "md5" || a == "sha1" || a == "sha224" || a == "sha256" || a == "sha384" ||
         a == "sha512";
}

// Upload names lose their path and every character outside [a-zA-Z0-9_.-].
std::string normalize_filename(std::string name) {
  auto slash = name.find_last_of("/\\");
  if (slash != std::string::npos) name = name.substr(slash + 1);
  for (auto& ch : name)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-'))
      ch = '_';
  return name;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::optional<std::string> extension_error(const std::string& content, const std::string& name) {
  if (content == "iso" && !(ends_with(name, ".iso") || ends_with(name, ".img")))
    return "wrong file extension";
  if (content == "vztmpl" &&
      !(ends_with(name, ".tar.gz") || ends_with(name, ".tar.xz") || ends_with(name, ".tar.zst")))
    return "wrong file extension";
  if (content == "import" &&
      !(ends_with(name, ".qcow2") || ends_with(name, ".raw") || ends_with(name, ".vmdk") ||
        ends_with(name, ".img") || ends_with(name, ".ova")))
    return "wrong file extension";
  return std::nullopt;
}

// The optional checksum parameters of upload and download-url.
std::optional<api_reply> check_checksum_params(const std::string& algorithm,
                                               const std::string& checksum) {
  if (!algorithm.empty() && !valid_algorithm(algorithm))
    return api_reply::param("checksum-algorithm",
                            "value '" + algorithm +
                                "' does not have a value in the enumeration 'md5, sha1, sha224, "
                                "sha256, sha384, sha512'");
  if (!checksum.empty() && algorithm.empty())
    return api_reply::param("checksum-algorithm",
                            "'checksum-algorithm' is required when 'checksum' is set");
  return std::nullopt;
}

// Writes an uploaded or downloaded file once its declared checksum (if any) matches.
status store_verified(const std::filesystem::path& path, const std::string& data,
                      const std::string& algorithm, const std::string& checksum) {
  if (!checksum.empty()) {
    auto got = hex_digest(algorithm, data);
    if (got != checksum)
      return make_error("500", "checksum mismatch: got '" + got + "' != expect '" + checksum + "'");
  }
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) return make_error("500", "unable to write " + path.string());
  return {};
}

}  // namespace

void storage_api::add_routes(api_router& router) {
  const std::string st = "/nodes/{node}/storage";
  router.add("GET", st, [this](api_call& c) { return get_storage_list(c); });
  router.add("GET", st + "/{storage}/content", [this](api_call& c) { return get_content(c); });
  router.add("GET", st + "/{storage}/content/{volume}",
             [this](api_call& c) { return get_volume(c); });
  router.add("DELETE", st + "/{storage}/content/{volume}",
             [this](api_call& c) { return delete_volume(c); });
  router.add("POST", st + "/{storage}/upload", [this](api_call& c) { return post_upload(c); });
  router.add("POST", st + "/{storage}/download-url",
             [this](api_call& c) { return post_download_url(c); });
}

api_reply storage_api::get_storage_list(api_call& c) {
  const auto& h = *world_.topo().find_host(c.path["node"]);
  auto want_content = c.params.get("content");
  auto want_storage = c.params.get("storage");
  json::array out;
  for (const auto& name : h.storages) {
    const auto* s = world_.topo().find_storage(name);
    if (want_storage && *want_storage != name) continue;
    std::string content;
    for (const auto& ct : s->content) content += (content.empty() ? "" : ",") + ct;
    if (want_content) {
      bool all = true;
      for (const auto& ct : parse_property_string(*want_content, "c"))
        all = all && std::find(s->content.begin(), s->content.end(), ct.second) != s->content.end();
      if (!all) continue;
    }
    bool up = !world_.faults().storage_unreachable(h.name, name);
    json::object o{{"storage", name},      {"type", s->type}, {"content", content},
                   {"active", up ? 1 : 0}, {"enabled", 1},    {"shared", s->shared ? 1 : 0}};
    if (up) {
      std::int64_t total = static_cast<std::int64_t>(s->size);
      std::int64_t used =
          std::min(total, static_cast<std::int64_t>(world_.storage_used(h.name, name)));
      o["total"] = total;
      o["used"] = used;
      o["avail"] = total - used;
      o["used_fraction"] = total > 0 ? static_cast<double>(used) / static_cast<double>(total) : 0.0;
    }
    out.push_back(std::move(o));
  }
  return api_reply::ok(out);
}

namespace {
// Checks that {storage} exists on {node} and is reachable.
std::optional<api_reply> check_storage(world_model& w, const std::string& node,
                                       const std::string& storage) {
  if (!w.storage_on_host(node, storage))
    return api_reply::fail(500, "storage '" + storage + "' does not exist");
  if (w.faults().storage_unreachable(node, storage))
    return api_reply::fail(500, "storage '" + storage + "' is not online");
  return std::nullopt;
}
}  // namespace

api_reply storage_api::get_content(api_call& c) {
  const auto& node = c.path["node"];
  const auto& storage = c.path["storage"];
  if (auto bad = check_storage(world_, node, storage)) return *bad;
  auto want = c.params.get("content");
  auto want_vmid = c.params.get("vmid");
  json::array out;
  const auto* st = world_.topo().find_storage(storage);
  for (const auto& content : st->content) {
    if (want && *want != content) continue;
    if (content == "images" || content == "rootdir") {
      if (content == "rootdir") continue;
      for (const auto& [id, vm] : world_.vms) {
        if (vm.node != node && !st->shared) continue;
        if (want_vmid && *want_vmid != std::to_string(id)) continue;
        for (const auto& [k, v] : vm.config) {
          if (!is_drive_key(k) || is_cdrom(v)) continue;
          auto volid = drive_volid(v);
          if (volid.rfind(storage + ":", 0) != 0 || volid.find("cloudinit") != std::string::npos)
            continue;
          json::object o{{"volid", volid},  {"content", "images"},
                         {"format", "raw"}, {"size", static_cast<std::int64_t>(drive_size(v))},
                         {"vmid", id},      {"ctime", world_.now_epoch() - 3600}};
          auto slash = volid.find('/');
          if (slash != std::string::npos)
            o["parent"] =
                volid.substr(volid.find(':') + 1, slash - volid.find(':') - 1) + "@__base__";
          out.push_back(std::move(o));
        }
      }
      continue;
    }
    std::error_code ec;
    auto dir = world_.content_dir(node, storage, content);
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::filesystem::directory_entry> entries;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
      if (e.is_regular_file(ec)) entries.push_back(e);
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      return a.path().filename() < b.path().filename();
    });
    for (const auto& e : entries) {
      auto ctime = std::chrono::duration_cast<std::chrono::seconds>(
                       e.last_write_time(ec).time_since_epoch() -
                       (std::filesystem::file_time_type::clock::now().time_since_epoch() -
                        std::chrono::system_clock::now().time_since_epoch()))
                       .count();
      std::string file = e.path().filename().string();
      std::string format = content == "iso" ? "iso" : file.substr(file.rfind('.') + 1);
      out.push_back(json::object{{"volid", storage + ":" + content + "/" + file},
                                 {"content", content},
                                 {"format", format},
                                 {"size", static_cast<std::int64_t>(e.file_size(ec))},
                                 {"ctime", ctime}});
    }
  }
  return api_reply::ok(out);
}

namespace {
// "{storage}:iso/x.iso" or "iso/x.iso" as the {volume} path parameter.
std::string full_volid(const std::string& storage, const std::string& volume) {
  return volume.find(':') == std::string::npos ? storage + ":" + volume : volume;
}
}  // namespace

api_reply storage_api::get_volume(api_call& c) {
  const auto& node = c.path["node"];
  const auto& storage = c.path["storage"];
  if (auto bad = check_storage(world_, node, storage)) return *bad;
  auto volid = full_volid(storage, c.path["volume"]);
  auto file = world_.volume_file(node, volid);
  if (!file) return api_reply::fail(500, "volume '" + volid + "' does not exist");
  std::error_code ec;
  return api_reply::ok(
      json::object{{"path", file->string()},
                   {"size", static_cast<std::int64_t>(std::filesystem::file_size(*file, ec))},
                   {"used", static_cast<std::int64_t>(std::filesystem::file_size(*file, ec))},
                   {"format", volid.find(":iso/") != std::string::npos ? "iso" : "raw"}});
}

api_reply storage_api::delete_volume(api_call& c) {
  const auto& node = c.path["node"];
  const auto& storage = c.path["storage"];
  if (auto bad = check_storage(world_, node, storage)) return *bad;
  auto volid = full_volid(storage, c.path["volume"]);
  auto file = world_.volume_file(node, volid);
  if (!file) return api_reply::fail(500, "volume '" + volid + "' does not exist");
  auto path = *file;
  // delay (1-30 s): the answer waits for the task that long; null when it ended OK.
  std::chrono::seconds delay{0};
  if (auto text = c.params.get("delay")) {
    auto n = check_integer("delay", *text, 1, 30);
    if (!n) return reply_from(n.error());
    delay = std::chrono::seconds(*n);
  }
  auto done = tasks_.start_and_wait(
      node, "imgdel", "", c.who, world_.duration("imgdel"), delay, [path]() -> status {
        std::error_code ec;
        std::filesystem::remove(path, ec);
        if (ec) return make_error("500", "unable to delete volume: " + ec.message());
        return {};
      });
  if (!done.upid.empty()) return api_reply::ok(done.upid);
  if (!done.error.empty()) return api_reply::fail(500, done.error);
  return api_reply::ok(nullptr);
}

api_reply storage_api::post_upload(api_call& c) {
  const auto& node = c.path["node"];
  const auto& storage = c.path["storage"];
  std::string content_type(c.request->header("Content-Type"));
  if (content_type.rfind("multipart/form-data", 0) != 0)
    return api_reply::fail(501, "upload without multipart/form-data");
  auto parts = parse_multipart(content_type, c.request->body);
  if (!parts) return api_reply::fail(400, parts.error().message);
  std::string content, algorithm, checksum, filename, data;
  bool have_file = false;
  for (const auto& p : *parts) {
    if (!p.filename.empty()) {
      // The file must come last and be named "filename"; later fields are not read.
      if (p.name != "filename")
        return api_reply::fail(
            400, "wrong field name '" + p.name + "' for file upload, expected 'filename'");
      filename = p.filename;
      data = p.body;
      have_file = true;
      break;
    }
    if (p.name == "content")
      content = p.body;
    else if (p.name == "checksum-algorithm")
      algorithm = p.body;
    else if (p.name == "checksum")
      checksum = p.body;
  }
  if (content.empty()) return api_reply::param("content", property_missing);
  if (!have_file) return api_reply::param("filename", property_missing);
  if (content != "iso" && content != "vztmpl" && content != "import")
    return api_reply::param(
        "content",
        "value '" + content + "' does not have a value in the enumeration 'iso, vztmpl, import'");
  if (auto bad = check_storage(world_, node, storage)) return *bad;
  const auto* st = world_.topo().find_storage(storage);
  if (std::find(st->content.begin(), st->content.end(), content) == st->content.end())
    return api_reply::fail(500,
                           "storage '" + storage + "' does not support '" + content + "' content");
  if (st->type != "dir" && st->type != "nfs" && st->type != "cifs" && st->type != "cephfs")
    return api_reply::fail(500, "can't upload to storage type '" + st->type + "'");
  std::string name = normalize_filename(filename);
  if (auto bad = extension_error(content, name)) return api_reply::param("filename", *bad);
  if (auto bad = check_checksum_params(algorithm, checksum)) return *bad;
  auto path = world_.content_dir(node, storage, content) / name;
  auto upid = tasks_.start(node, "imgcopy", "", c.who, world_.duration("imgcopy"),
                           [path, data = std::move(data), algorithm, checksum]() -> status {
                             return store_verified(path, data, algorithm, checksum);
                           });
  return api_reply::ok(upid);
}

api_reply storage_api::post_download_url(api_call& c) {
  const auto& node = c.path["node"];
  const auto& storage = c.path["storage"];
  auto content = c.params.get("content");
  auto filename = c.params.get("filename");
  auto url = c.params.get("url");
  if (!content) return api_reply::param("content", property_missing);
  if (!filename) return api_reply::param("filename", property_missing);
  if (!url) return api_reply::param("url", property_missing);
  if (*content != "iso" && *content != "vztmpl" && *content != "import")
    return api_reply::param(
        "content",
        "value '" + *content + "' does not have a value in the enumeration 'iso, vztmpl, import'");
  if (url->rfind("http://", 0) != 0 && url->rfind("https://", 0) != 0 &&
      url->rfind("ftp://", 0) != 0)
    return api_reply::param("url", "invalid format - value does not look like a valid URL");
  if (auto bad = check_storage(world_, node, storage)) return *bad;
  const auto* st = world_.topo().find_storage(storage);
  if (std::find(st->content.begin(), st->content.end(), *content) == st->content.end())
    return api_reply::fail(500,
                           "storage '" + storage + "' does not support '" + *content + "' content");
  std::string name = normalize_filename(*filename);
  if (auto bad = extension_error(*content, name)) return api_reply::param("filename", *bad);
  std::string algorithm = c.params.get_or("checksum-algorithm", "");
  std::string checksum = c.params.get_or("checksum", "");
  if (auto bad = check_checksum_params(algorithm, checksum)) return *bad;
  auto path = world_.content_dir(node, storage, *content) / name;
  // Nothing is fetched: the "downloaded" bytes are a fixed text naming the URL, so a test can
  // compute the checksum it declares (docs/pve-sim.md).
  std::string data = "pve-sim image " + *url + "\n";
  auto upid = tasks_.start(node, "download", name, c.who, world_.duration("download"),
                           [path, data, algorithm, checksum]() -> status {
                             // download-url compares checksums case-insensitively.
                             std::string want = checksum;
                             std::transform(want.begin(), want.end(), want.begin(),
                                            [](unsigned char ch) { return std::tolower(ch); });
                             return store_verified(path, data, algorithm, want);
                           });
  return api_reply::ok(upid);
}

}  // namespace kp::sim::pve
