#include "protocol/proxmox/vm_config.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace kp::proxmox {

namespace {

// "net3" with prefix "net" -> 3.
std::optional<unsigned> indexed(std::string_view key, std::string_view prefix) {
  if (key.size() <= prefix.size() || key.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view digits = key.substr(prefix.size());
  unsigned n = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  return n;
}

bool is_drive_key(std::string_view key) {
  for (std::string_view prefix : {"ide", "scsi", "sata", "virtio", "unused"}) {
    if (indexed(key, prefix)) return true;
  }
  return key == "efidisk0" || key == "tpmstate0";
}

template <class Int>
std::optional<Int> to_number(std::string_view s) {
  Int n{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return n;
}

std::optional<bool> to_bool(std::string_view s) {
  if (s == "1" || s == "on" || s == "yes" || s == "true") return true;
  if (s == "0" || s == "off" || s == "no" || s == "false") return false;
  return std::nullopt;
}

kp::error invalid(const std::string& key, const std::string& value, const std::string& why) {
  return make_error("invalid_config",
                    "config key '" + key + "' = '" + value.substr(0, 200) + "': " + why);
}

}  // namespace

bool vm_config::agent_enabled() const {
  if (!agent) return false;
  auto props = parse_property_string(*agent, "enabled");
  if (!props) return false;
  auto enabled = find_property(*props, "enabled");
  return enabled && to_bool(*enabled).value_or(false);
}

result<vm_config> parse_vm_config(const std::map<std::string, std::string>& raw) {
  vm_config c;
  c.raw = raw;
  for (const auto& [key, value] : raw) {
    if (key == "name") {
      c.name = value;
    } else if (key == "description") {
      c.description = value;
    } else if (key == "cores" || key == "sockets") {
      auto n = to_number<unsigned>(value);
      if (!n) return invalid(key, value, "not a number");
      (key == "cores" ? c.cores : c.sockets) = *n;
    } else if (key == "memory") {
      auto mib = parse_memory_mib(value);
      if (!mib) return invalid(key, value, mib.error().message);
      c.memory_mib = *mib;
    } else if (key == "numa" || key == "onboot" || key == "template") {
      auto b = to_bool(value);
      if (!b) return invalid(key, value, "not a boolean");
      if (key == "numa") c.numa = *b;
      if (key == "onboot") c.onboot = *b;
      if (key == "template") c.is_template = *b;
    } else if (auto i = indexed(key, "numa")) {
      auto node = parse_numa_node(value);
      if (!node) return invalid(key, value, node.error().message);
      c.numa_nodes[*i] = std::move(*node);
    } else if (key == "affinity") {
      auto cpus = parse_cpu_list(value);
      if (!cpus) return invalid(key, value, cpus.error().message);
      c.affinity = std::move(*cpus);
    } else if (key == "cpu") {
      c.cpu = value;
    } else if (auto n = indexed(key, "net")) {
      auto dev = parse_net_device(value);
      if (!dev) return invalid(key, value, dev.error().message);
      c.nets[*n] = std::move(*dev);
    } else if (auto ip = indexed(key, "ipconfig")) {
      c.ipconfigs[*ip] = value;
    } else if (is_drive_key(key)) {
      auto d = parse_drive(value);
      if (!d) return invalid(key, value, d.error().message);
      c.drives[key] = std::move(*d);
    } else if (key == "tags") {
      auto tags = parse_tags(value);
      if (!tags) return invalid(key, value, tags.error().message);
      c.tags = std::move(*tags);
    } else if (key == "smbios1") {
      auto s = parse_smbios1(value);
      if (!s) return invalid(key, value, s.error().message);
      c.smbios = std::move(*s);
    } else if (key == "agent") {
      c.agent = value;
    } else if (key == "sshkeys") {
      auto text = percent_decode(value, false);
      if (!text) return invalid(key, value, text.error().message);
      c.sshkeys = std::move(*text);
    } else if (key == "nameserver") {
      c.nameserver = value;
    } else if (key == "searchdomain") {
      c.searchdomain = value;
    } else if (key == "boot") {
      c.boot = value;
    } else if (key == "lock") {
      c.lock = value;
    } else if (key == "digest") {
      c.digest = value;
    }
  }
  return c;
}

bool vm_config_update::empty() const {
  return to_form(*this).empty();
}

bool vm_config_update::needs_root() const {
  if (affinity) return true;
  return std::any_of(raw.begin(), raw.end(), [](const auto& kv) {
    return kv.first == "affinity" || kv.first == "args" || kv.first == "hookscript" ||
           kv.first == "lock";
  });
}

form_params to_form(const vm_config_update& u) {
  form_params f;
  auto add = [&](std::string key, std::string value) {
    f.emplace_back(std::move(key), std::move(value));
  };
  if (u.name) add("name", *u.name);
  if (u.description) add("description", *u.description);
  if (u.cores) add("cores", std::to_string(*u.cores));
  if (u.sockets) add("sockets", std::to_string(*u.sockets));
  if (u.memory_mib) add("memory", std::to_string(*u.memory_mib));
  if (u.numa) add("numa", *u.numa ? "1" : "0");
  for (const auto& [i, node] : u.numa_nodes)
    add("numa" + std::to_string(i), format_numa_node(node));
  if (u.affinity) add("affinity", format_cpu_list(*u.affinity));
  if (u.cpu) add("cpu", *u.cpu);
  for (const auto& [i, dev] : u.nets) add("net" + std::to_string(i), format_net_device(dev));
  for (const auto& [key, d] : u.drives) add(key, format_drive(d));
  for (const auto& [i, ip] : u.ipconfigs) add("ipconfig" + std::to_string(i), ip);
  if (u.tags) add("tags", format_tags(*u.tags));
  if (u.smbios) add("smbios1", format_smbios1(*u.smbios));
  if (u.onboot) add("onboot", *u.onboot ? "1" : "0");
  if (u.agent) add("agent", *u.agent);
  if (u.sshkeys) add("sshkeys", encode_pve_urlencoded(*u.sshkeys));
  if (u.nameserver) add("nameserver", *u.nameserver);
  if (u.searchdomain) add("searchdomain", *u.searchdomain);
  if (u.boot) add("boot", *u.boot);
  for (const auto& kv : u.raw) f.push_back(kv);
  if (!u.remove.empty()) {
    std::string list;
    for (const auto& key : u.remove) list += (list.empty() ? "" : ",") + key;
    add("delete", list);
  }
  if (u.digest && !f.empty()) add("digest", *u.digest);
  return f;
}

drive cdrom_drive(const std::string& volid) {
  drive d;
  d.volume = volid.empty() ? "none" : volid;
  d.options.emplace_back("media", "cdrom");
  return d;
}

}  // namespace kp::proxmox
