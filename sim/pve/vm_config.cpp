#include "sim/pve/vm_config.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>

#include "sim/pve/number_text.hpp"
#include "sim/pve/property_string.hpp"

namespace kp::sim::pve {

namespace {
// Splits "net12" into ("net", 12); returns -1 when there is no numeric suffix.
std::pair<std::string, int> split_index(const std::string& key) {
  std::size_t i = key.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(key[i - 1]))) --i;
  if (i == key.size() || i == 0) return {key, -1};
  auto index = parse_number<int>(std::string_view(key).substr(i));
  return {key.substr(0, i), index ? *index : -1};
}

const std::map<std::string, int>& numbered_keys() {
  // prefix -> highest index allowed
  static const std::map<std::string, int> keys = {
      {"net", 31},     {"scsi", 30},     {"virtio", 15},  {"sata", 5},     {"ide", 3},
      {"numa", 7},     {"ipconfig", 31}, {"hostpci", 15}, {"serial", 3},   {"usb", 4},
      {"unused", 255}, {"parallel", 2},  {"efidisk", 0},  {"tpmstate", 0}, {"rng", 0},
      {"audio", 0},    {"virtiofs", 9}};
  return keys;
}

const std::set<std::string>& plain_keys() {
  static const std::set<std::string> keys = {"acpi",
                                             "affinity",
                                             "agent",
                                             "amd-sev",
                                             "arch",
                                             "args",
                                             "audio0",
                                             "autostart",
                                             "balloon",
                                             "bios",
                                             "boot",
                                             "bootdisk",
                                             "cdrom",
                                             "cicustom",
                                             "cipassword",
                                             "citype",
                                             "ciupgrade",
                                             "ciuser",
                                             "cores",
                                             "cpu",
                                             "cpulimit",
                                             "cpuunits",
                                             "description",
                                             "freeze",
                                             "hookscript",
                                             "hotplug",
                                             "hugepages",
                                             "ivshmem",
                                             "keephugepages",
                                             "keyboard",
                                             "kvm",
                                             "localtime",
                                             "lock",
                                             "machine",
                                             "memory",
                                             "meta",
                                             "migrate_downtime",
                                             "migrate_speed",
                                             "name",
                                             "nameserver",
                                             "numa",
                                             "onboot",
                                             "ostype",
                                             "protection",
                                             "reboot",
                                             "scsihw",
                                             "searchdomain",
                                             "shares",
                                             "smbios1",
                                             "smp",
                                             "sockets",
                                             "spice_enhancements",
                                             "sshkeys",
                                             "startdate",
                                             "startup",
                                             "tablet",
                                             "tags",
                                             "tdf",
                                             "template",
                                             "vcpus",
                                             "vga",
                                             "vmgenid",
                                             "vmstatestorage",
                                             "watchdog"};
  return keys;
}
}  // namespace

bool is_config_key(const std::string& key) {
  if (plain_keys().count(key)) return true;
  auto [prefix, index] = split_index(key);
  if (index < 0) return false;
  auto it = numbered_keys().find(prefix);
  return it != numbered_keys().end() && index <= it->second;
}

bool is_root_only_key(const std::string& key) {
  return key == "affinity" || key == "args" || key == "lock" || key == "hookscript";
}

boost::json::value config_value_json(const std::string& key, const std::string& value) {
  static const std::set<std::string> integers = {"cores",   "sockets", "vcpus",        "cpuunits",
                                                 "balloon", "shares",  "migrate_speed"};
  static const std::set<std::string> booleans = {
      "numa",      "onboot", "template", "protection", "acpi",      "tablet",       "kvm",
      "localtime", "freeze", "reboot",   "ciupgrade",  "autostart", "keephugepages"};
  if (integers.count(key) || booleans.count(key)) {
    if (auto n = parse_number<std::int64_t>(value)) return boost::json::value(*n);
  }
  return boost::json::value(value);
}

bool is_drive_key(const std::string& key) {
  auto [prefix, index] = split_index(key);
  if (index < 0) return false;
  return prefix == "scsi" || prefix == "virtio" || prefix == "sata" || prefix == "ide" ||
         prefix == "efidisk" || prefix == "tpmstate" || prefix == "unused";
}

bool is_cdrom(const std::string& value) {
  return property_value(value, "media", "file") == "cdrom";
}

std::string drive_volid(const std::string& value) {
  auto v = property_value(value, "file", "file");
  return v;
}

std::uint64_t drive_size(const std::string& value) {
  auto s = property_value(value, "size", "file");
  if (s.empty()) return 0;
  auto r = parse_disk_size(s);
  return r ? *r : 0;
}

bool hot_applicable(const std::string& key, const std::string& hotplug) {
  static const std::set<std::string> fast = {
      "name",           "hotplug", "onboot",   "shares",     "tags",    "description", "protection",
      "vmstatestorage", "startup", "lock",     "cipassword", "ciuser",  "sshkeys",     "nameserver",
      "searchdomain",   "citype",  "cicustom", "ciupgrade",  "affinity"};
  if (fast.count(key)) return true;
  if (key.rfind("ipconfig", 0) == 0) return true;
  auto has = [&](const char* what) {
    auto list = hotplug.empty() ? std::string("network,disk,usb") : hotplug;
    if (list == "1") list = "network,disk,usb";
    return list.find(what) != std::string::npos;
  };
  auto [prefix, index] = split_index(key);
  if (prefix == "net" && index >= 0) return has("network");
  if (is_drive_key(key)) return has("disk");
  if (prefix == "usb" && index >= 0) return has("usb");
  if (key == "cores" || key == "vcpus") return has("cpu");
  if (key == "memory" || key == "balloon") return has("memory");
  return false;
}

std::string render_config_file(const config_map& config, const config_map& pending,
                               const std::set<std::string>& pending_delete) {
  std::string out;
  auto description = [&](const config_map& c) {
    auto it = c.find("description");
    if (it == c.end()) return;
    std::size_t start = 0;
    while (start <= it->second.size()) {
      auto nl = it->second.find('\n', start);
      out += "#" +
             it->second.substr(start, nl == std::string::npos ? std::string::npos : nl - start) +
             "\n";
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  };
  description(config);
  for (const auto& [k, v] : config)
    if (k != "description") out += k + ": " + v + "\n";
  if (!pending.empty() || !pending_delete.empty()) {
    out += "\n[PENDING]\n";
    description(pending);
    for (const auto& [k, v] : pending)
      if (k != "description") out += k + ": " + v + "\n";
    if (!pending_delete.empty()) {
      std::string list;
      for (const auto& k : pending_delete) list += (list.empty() ? "" : ",") + k;
      out += "delete: " + list + "\n";
    }
  }
  return out;
}

std::string sha1_hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha1(), nullptr);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out.push_back(hex[digest[i] >> 4]);
    out.push_back(hex[digest[i] & 15]);
  }
  return out;
}

int vm_cpus(const config_map& config, int host_cpus) {
  auto number = [&](const char* key, int fallback) {
    auto it = config.find(key);
    if (it == config.end()) return fallback;
    auto n = parse_number<int>(it->second);
    return n && *n >= 0 && *n <= 8192 ? *n : fallback;
  };
  int cpus = number("sockets", 1) * number("cores", 1);  // at most 8192 * 8192: fits
  if (host_cpus > 0) cpus = std::min(cpus, host_cpus);
  int vcpus = number("vcpus", 0);
  return vcpus > 0 ? vcpus : cpus;
}

std::uint64_t vm_memory_mib(const config_map& config) {
  auto it = config.find("memory");
  if (it == config.end()) return 512;
  auto v = parse_number<std::uint64_t>(property_value(it->second, "current", "current"));
  // Beyond 2^40 MiB no host has it; keeping it small keeps byte sums from overflowing.
  return v && *v <= (1ull << 40) ? *v : 512;
}

}  // namespace kp::sim::pve
