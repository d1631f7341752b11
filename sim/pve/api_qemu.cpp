// VM endpoints: list, create (with import-from), config (GET with digest, POST async, PUT
// sync, pending), resize, clone, template conversion, status and power, destroy.
#include <algorithm>
#include <cctype>

#include "sim/pve/guest_fleet.hpp"
#include "sim/pve/property_string.hpp"
#include "sim/pve/pve_world.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {

const std::set<std::string>& api_only_params() {
  static const std::set<std::string> keys = {
      "node", "vmid",    "digest", "delete", "revert", "skiplock", "background_delay",
      "pool", "storage", "start",  "unique", "force",  "archive",  "live-restore"};
  return keys;
}

bool is_integer(const std::string& s) {
  if (s.empty()) return false;
  std::size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return s.size() < 12;
}

bool valid_dns_name(const std::string& s) {
  if (s.empty() || s.size() > 255) return false;
  std::size_t start = 0;
  while (start <= s.size()) {
    auto dot = s.find('.', start);
    std::string label = s.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (label.empty() || !std::isalnum(static_cast<unsigned char>(label.front())) ||
        !std::isalnum(static_cast<unsigned char>(label.back())))
      return false;
    for (char ch : label)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-') return false;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return true;
}

std::string lock_timeout(int vmid) {
  return "can't lock file '/var/lock/qemu-server/lock-" + std::to_string(vmid) +
         ".conf' - got timeout";
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (ch == ',' || ch == ';' || ch == ' ' || ch == '\t') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(ch);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// The next free disk number for vm-<vmid>-disk-N across a config.
int next_disk_index(const config_map& config, int vmid) {
  int next = 0;
  const std::string prefix = "vm-" + std::to_string(vmid) + "-disk-";
  for (const auto& [k, v] : config) {
    if (!is_drive_key(k)) continue;
    auto volid = drive_volid(v);
    auto p = volid.find(prefix);
    if (p == std::string::npos) continue;
    try {
      next = std::max(next, std::stoi(volid.substr(p + prefix.size())) + 1);
    } catch (...) {
    }
  }
  return next;
}

std::string current_digest(const vm_state& vm) {
  return sha1_hex(render_config_file(vm.config, vm.pending, vm.pending_delete));
}

}  // namespace

result<std::function<status()>> pve_world::prepare_config_update(api_call& c, vm_state& vm,
                                                                 bool creating) {
  if (c.params.has("skiplock") && !c.who.is_root())
    return make_error("param:skiplock", "Only root may use this option.");
  config_map changes;
  std::set<std::string> deletes;
  for (const auto& d : c.params.all("delete"))
    for (const auto& key : split_list(d)) {
      if (!is_config_key(key) && key != "cdrom")
        return make_error("param:delete",
                          "invalid format - invalid configuration ID '" + key + "'");
      deletes.insert(key == "cdrom" ? "ide2" : key);
    }
  for (const auto& [key_in, value_in] : c.params.items()) {
    if (api_only_params().count(key_in)) continue;
    std::string key = key_in, value = value_in;
    if (key == "cdrom") {
      key = "ide2";
      value = value + ",media=cdrom";
    }
    if (!is_config_key(key))
      return make_error(
          "param:" + key_in,
          "property is not defined in schema and the schema does not allow additional properties");
    changes[key] = value;
  }
  for (const auto& key : deletes)
    if (changes.count(key))
      return make_error("400",
                        "you can't use '-" + key + "' and '-delete " + key + "' at the same time");
  if (changes.empty() && deletes.empty() && !c.params.has("revert") && !creating)
    return make_error("500", "no options specified");
  for (const auto& key : deletes)
    if (is_root_only_key(key) && !c.who.is_root())
      return make_error("500", "only root can set '" + key + "' config");

  int disk_index = next_disk_index(vm.config, vm.vmid);
  for (auto& [key, value] : changes) {
    if (is_root_only_key(key) && !c.who.is_root())
      return make_error("500", "only root can set '" + key + "' config");
    if (key == "tags") {
      auto t = normalize_tags(value);
      if (!t) return make_error("param:tags", t.error().message);
      value = *t;
    } else if (key == "affinity") {
      auto a = normalize_cpuset(value);
      if (!a) return make_error("param:affinity", a.error().message);
      value = *a;
    } else if (key == "cores" || key == "sockets" || key == "vcpus" || key == "cpuunits" ||
               key == "balloon") {
      if (!is_integer(value))
        return make_error("param:" + key, "type check ('integer') failed - got '" + value + "'");
      if ((key == "cores" || key == "sockets") && std::stoi(value) < 1)
        return make_error("param:" + key, "value must have a minimum value of 1");
    } else if (key == "memory") {
      auto current = property_value(value, "current", "current");
      if (!is_integer(current))
        return make_error("param:memory",
                          "invalid format - type check ('integer') failed - got '" + current + "'");
      if (std::stoll(current) < 16)
        return make_error("param:memory", "value must have a minimum value of 16");
    } else if (key == "numa" || key == "onboot" || key == "template" || key == "protection" ||
               key == "acpi" || key == "tablet" || key == "kvm" || key == "ciupgrade") {
      request_params tmp;
      tmp.add("v", value);
      auto b = tmp.get_bool("v");
      if (!b)
        return make_error("param:" + key, "type check ('boolean') failed - got '" + value + "'");
      value = *b ? "1" : "0";
    } else if (key == "name") {
      if (!valid_dns_name(value))
        return make_error("param:name",
                          "invalid format - value does not look like a valid DNS name");
    } else if (key == "description") {
      if (value.size() > 8192)
        return make_error("param:description", "value may only be 8192 characters long");
    } else if (key == "sshkeys") {
      for (char ch : value)
        if (!(std::isalnum(static_cast<unsigned char>(ch)) ||
              std::string("-%_.!~*'()").find(ch) != std::string::npos))
          return make_error("param:sshkeys", "invalid urlencoded string: " + value);
    } else if (key.rfind("numa", 0) == 0 && key != "numa") {
      auto cpus = property_value(value, "cpus", "cpus");
      if (cpus.empty() || !parse_cpu_list(cpus, ";"))
        return make_error("param:" + key, "invalid format - format error");
    } else if (key.rfind("net", 0) == 0) {
      auto props = parse_property_string(value, "model");
      if (props.empty() || props.front().first != "model")
        return make_error("param:" + key, "invalid format - format error");
      if (props.front().second.find('=') == std::string::npos)
        props.front().second += "=" + new_mac();
      value = format_property_string(props, "model");
    } else if (is_drive_key(key)) {
      auto volid = drive_volid(value);
      if (volid.empty()) return make_error("param:" + key, "invalid format - format error");
      if (is_cdrom(value) || volid == "none" || volid == "cdrom") continue;
      auto colon = volid.find(':');
      std::string storage = colon == std::string::npos ? "" : volid.substr(0, colon);
      std::string rest = colon == std::string::npos ? volid : volid.substr(colon + 1);
      if (rest == "cloudinit") continue;
      if (!is_integer(rest)) continue;  // an existing volume
      // "STORAGE:SIZE_GiB" allocates; "STORAGE:0,import-from=VOLID" imports.
      if (!storage_on_host(vm.node, storage))
        return make_error("500", "storage '" + storage + "' does not exist");
      const auto* st = topo().find_storage(storage);
      if (std::find(st->content.begin(), st->content.end(), "images") == st->content.end())
        return make_error("500",
                          "storage '" + storage + "' does not support content-type 'images'");
      if (faults().storage_unreachable(vm.node, storage))
        return make_error("500", "storage '" + storage + "' is not online");
      std::uint64_t size = std::stoull(rest) << 30;
      // EFI vars and TPM state have fixed sizes whatever the number says.
      if (key.rfind("efidisk", 0) == 0) size = 528ull << 10;
      if (key.rfind("tpmstate", 0) == 0) size = 4ull << 20;
      auto import = property_value(value, "import-from", "file");
      if (!import.empty()) {
        auto file = volume_file(vm.node, import);
        if (!file) return make_error("500", "volume '" + import + "' does not exist");
        std::error_code ec;
        std::uint64_t bytes = std::filesystem::file_size(*file, ec);
        std::uint64_t gib = (bytes + (1ull << 30) - 1) >> 30;
        size = std::max<std::uint64_t>(gib, 2) << 30;
      }
      auto props = parse_property_string(value, "file");
      property_list out;
      out.emplace_back("file", storage + ":vm-" + std::to_string(vm.vmid) + "-disk-" +
                                   std::to_string(disk_index++));
      for (const auto& [pk, pv] : props)
        if (pk != "file" && pk != "import-from" && pk != "size") out.emplace_back(pk, pv);
      out.emplace_back("size", format_disk_size(size));
      value = format_property_string(out, "file");
    }
  }
  {
    config_map merged = vm.config;
    for (const auto& [k, v] : vm.pending) merged[k] = v;
    for (const auto& [k, v] : changes) merged[k] = v;
    if (merged.count("balloon") && merged.count("memory")) {
      auto b = std::stoull(merged["balloon"]);
      if (b > vm_memory_mib(merged))
        return make_error("500", "balloon value too large (must be smaller than assigned memory)");
    }
  }
  if (auto digest = c.params.get("digest"); digest && *digest != current_digest(vm))
    return make_error("500", "checksum mismatch (file change by other user?)");

  const int vmid = vm.vmid;
  std::function<status()> apply = [this, vmid, changes, deletes]() -> status {
    auto* target = find_vm(vmid);
    if (!target) return make_error("500", "VM " + std::to_string(vmid) + " does not exist");
    std::string hotplug = target->config.count("hotplug") ? target->config["hotplug"] : "";
    for (const auto& [k, v] : changes) {
      if (!target->running || hot_applicable(k, hotplug)) {
        target->config[k] = v;
        target->pending.erase(k);
        target->pending_delete.erase(k);
      } else {
        target->pending[k] = v;
        target->pending_delete.erase(k);
      }
    }
    for (const auto& k : deletes) {
      if (!target->running || hot_applicable(k, hotplug)) {
        target->config.erase(k);
        target->pending.erase(k);
      } else {
        target->pending_delete.insert(k);
      }
    }
    return {};
  };
  return apply;
}

api_reply pve_world::get_qemu_list(api_call& c) {
  const auto& node = c.path["node"];
  const auto* h = topo().find_host(node);
  json::array out;
  for (const auto& [id, vm] : vms) {
    if (vm.node != node) continue;
    std::int64_t maxmem = static_cast<std::int64_t>(vm_memory_mib(vm.config)) << 20;
    std::int64_t maxdisk = 0;
    for (const auto& [k, v] : vm.config)
      if (is_drive_key(k) && !is_cdrom(v) && k.rfind("unused", 0) != 0)
        maxdisk += static_cast<std::int64_t>(drive_size(v));
    json::object o{{"vmid", id},
                   {"name", vm.name()},
                   {"status", vm.running ? "running" : "stopped"},
                   {"cpus", vm_cpus(vm.config, h->logical_cpus())},
                   {"maxmem", maxmem},
                   {"mem", vm.running ? maxmem / 2 : 0},
                   {"maxdisk", maxdisk},
                   {"disk", 0},
                   {"cpu", vm.running ? 0.1 : 0.0},
                   {"netin", 0},
                   {"netout", 0},
                   {"diskread", 0},
                   {"diskwrite", 0},
                   {"uptime", vm.running ? std::chrono::duration_cast<std::chrono::seconds>(
                                               sim_clock::now() - vm.started)
                                               .count()
                                         : 0}};
    if (vm.running) o["pid"] = vm.pid;
    if (vm.is_template()) o["template"] = 1;
    if (!vm.lock().empty()) o["lock"] = vm.lock();
    if (auto t = vm.config.find("tags"); t != vm.config.end()) o["tags"] = t->second;
    out.push_back(std::move(o));
  }
  return api_reply::ok(out);
}

api_reply pve_world::post_qemu_create(api_call& c) {
  const auto& node = c.path["node"];
  auto vmid_text = c.params.get("vmid");
  if (!vmid_text) return api_reply::param("vmid", "property is missing and it is not optional");
  if (!is_integer(*vmid_text))
    return api_reply::param("vmid", "type check ('integer') failed - got '" + *vmid_text + "'");
  int vmid = std::stoi(*vmid_text);
  if (vmid < 100) return api_reply::param("vmid", "value must have a minimum value of 100");
  if (auto* other = find_vm(vmid))
    return api_reply::fail(500, "unable to create VM " + std::to_string(vmid) + " - VM " +
                                    std::to_string(vmid) + " already exists on node '" +
                                    other->node + "'");
  auto pool = c.params.get("pool");
  if (pool && !pools.count(*pool))
    return api_reply::fail(500, "pool '" + *pool + "' does not exist");
  vm_state fresh;
  fresh.vmid = vmid;
  fresh.node = node;
  fresh.created = sim_clock::now();
  auto& vm = vms[vmid] = std::move(fresh);
  auto apply = prepare_config_update(c, vm, true);
  if (!apply) {
    vms.erase(vmid);
    return reply_from(apply.error());
  }
  vm.config["lock"] = "create";
  bool start = c.params.get_bool("start").value_or(false);
  auto upid = start_task(
      node, "qmcreate", std::to_string(vmid), c.who, duration("qmcreate"),
      [this, vmid, apply = *apply, pool, start]() -> status {
        auto* vm = find_vm(vmid);
        if (!vm) return make_error("500", "VM vanished during create");
        vm->config.erase("lock");
        if (auto st = apply(); !st) {
          vms.erase(vmid);
          return st;
        }
        if (!vm->config.count("smbios1")) vm->config["smbios1"] = "uuid=" + new_uuid();
        if (!vm->config.count("vmgenid")) vm->config["vmgenid"] = new_uuid();
        vm->config["meta"] = "creation-qemu=8.1.5,ctime=" + std::to_string(now_epoch());
        vm->created = sim_clock::now();
        if (pool) {
          pools[*pool].vms.insert(vmid);
          vm->pool = *pool;
        }
        if (start) {
          vm->running = true;
          vm->started = sim_clock::now();
          vm->pid = next_pid++;
          start_guest(*vm);
        }
        return {};
      },
      [this, vmid] { vms.erase(vmid); });
  return api_reply::ok(upid);
}

api_reply pve_world::get_vm_index(api_call& c) {
  auto vm = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!vm) return reply_from(vm.error());
  json::array out;
  for (const char* s :
       {"config", "pending", "status", "firewall", "agent", "rrd", "clone", "resize", "template"})
    out.push_back(json::object{{"subdir", s}});
  return api_reply::ok(out);
}

api_reply pve_world::get_config(api_call& c) {
  auto found = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  bool current = c.params.get_bool("current").value_or(false);
  config_map view = vm.config;
  if (!current) {
    for (const auto& [k, v] : vm.pending) view[k] = v;
    for (const auto& k : vm.pending_delete) view.erase(k);
  }
  json::object o;
  for (const auto& [k, v] : view) {
    if (k == "cipassword") {
      o[k] = "**********";
      continue;
    }
    o[k] = config_value_json(k, v);
  }
  o["digest"] = current_digest(vm);
  return api_reply::ok(o);
}

api_reply pve_world::get_pending(api_call& c) {
  auto found = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  std::set<std::string> keys;
  for (const auto& [k, v] : vm.config) keys.insert(k);
  for (const auto& [k, v] : vm.pending) keys.insert(k);
  for (const auto& k : vm.pending_delete) keys.insert(k);
  json::array out;
  for (const auto& k : keys) {
    json::object o{{"key", k}};
    if (auto it = vm.config.find(k); it != vm.config.end())
      o["value"] = config_value_json(k, it->second);
    if (auto it = vm.pending.find(k); it != vm.pending.end())
      o["pending"] = config_value_json(k, it->second);
    if (vm.pending_delete.count(k)) o["delete"] = 1;
    out.push_back(std::move(o));
  }
  return api_reply::ok(out);
}

namespace {
// The sync checks every config writer makes before it forks: lock property and flock.
std::optional<api_reply> check_writable(const vm_state& vm, const api_call& c) {
  bool skiplock = c.who.is_root() && c.params.get_bool("skiplock").value_or(false);
  if (!vm.lock().empty() && !skiplock)
    return api_reply::fail(500, "VM is locked (" + vm.lock() + ")");
  if (vm.clone_readers > 0) return api_reply::fail(500, lock_timeout(vm.vmid));
  return std::nullopt;
}
}  // namespace

api_reply pve_world::post_config(api_call& c) {
  auto found = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  auto apply = prepare_config_update(c, vm, false);
  if (!apply) return reply_from(apply.error());
  if (auto refused = check_writable(vm, c)) return *refused;
  auto upid =
      start_task(vm.node, "qmconfig", std::to_string(vm.vmid), c.who, duration("qmconfig"), *apply);
  return api_reply::ok(upid);
}

api_reply pve_world::put_config(api_call& c) {
  auto found = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  auto apply = prepare_config_update(c, vm, false);
  if (!apply) return reply_from(apply.error());
  if (auto refused = check_writable(vm, c)) return *refused;
  if (auto st = (*apply)(); !st) return reply_from(st.error());
  return api_reply::ok(nullptr);
}

api_reply pve_world::put_resize(api_call& c) {
  auto found = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  auto disk = c.params.get("disk");
  if (!disk) return api_reply::param("disk", "property is missing and it is not optional");
  auto size_text = c.params.get("size");
  if (!size_text) return api_reply::param("size", "property is missing and it is not optional");
  bool relative = false;
  auto size = parse_disk_size(*size_text, &relative);
  if (!size) return api_reply::param("size", "value does not match the regex pattern");
  if (auto refused = check_writable(vm, c)) return *refused;
  auto it = vm.config.find(*disk);
  if (!is_drive_key(*disk) || it == vm.config.end())
    return api_reply::fail(500, "disk '" + *disk + "' does not exist");
  if (is_cdrom(it->second)) return api_reply::fail(500, "you can't resize a cdrom");
  std::uint64_t old_size = drive_size(it->second);
  std::uint64_t new_size = relative ? old_size + *size : *size;
  if (new_size < old_size) return api_reply::fail(500, "shrinking disks is not supported");
  if (new_size > old_size)
    it->second = with_property(it->second, "size", format_disk_size(new_size), "file");
  auto upid = start_task(vm.node, "resize", std::to_string(vm.vmid), c.who, duration("resize"),
                         []() -> status { return {}; });
  return api_reply::ok(upid);
}

api_reply pve_world::post_clone(api_call& c) {
  const auto& node = c.path["node"];
  auto found = vm_on_node(node, c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& src = **found;
  auto newid_text = c.params.get("newid");
  if (!newid_text) return api_reply::param("newid", "property is missing and it is not optional");
  if (!is_integer(*newid_text))
    return api_reply::param("newid", "type check ('integer') failed - got '" + *newid_text + "'");
  const int newid = std::stoi(*newid_text);
  if (newid < 100) return api_reply::param("newid", "value must have a minimum value of 100");
  auto name = c.params.get("name");
  if (name && !valid_dns_name(*name))
    return api_reply::param("name", "invalid format - value does not look like a valid DNS name");
  auto description = c.params.get("description");
  auto pool = c.params.get("pool");
  auto storage = c.params.get("storage");
  auto format = c.params.get("format");
  std::string target = c.params.get_or("target", node);
  if (!host_exists(target))
    return api_reply::param("target", "no such cluster node '" + target + "'");
  if (pool && !pools.count(*pool))
    return api_reply::fail(500, "pool '" + *pool + "' does not exist");
  if (storage) {
    if (!storage_on_host(node, *storage))
      return api_reply::fail(500, "storage '" + *storage + "' does not exist");
    const auto* st = topo().find_storage(*storage);
    if (std::find(st->content.begin(), st->content.end(), "images") == st->content.end())
      return api_reply::fail(500, "storage '" + *storage + "' does not support vm images");
    if (target != node && !st->shared)
      return api_reply::fail(500, "can't clone to non-shared storage '" + *storage + "'");
  }
  if (!src.lock().empty()) return api_reply::fail(500, "VM is locked (" + src.lock() + ")");
  const bool is_template = src.is_template();
  const bool full = c.params.get_bool("full").value_or(!is_template);
  std::string first_disk_key, first_volid;
  for (const auto& [k, v] : src.config)
    if (is_drive_key(k) && !is_cdrom(v) && k.rfind("unused", 0) != 0 &&
        drive_volid(v).find(':') != std::string::npos &&
        drive_volid(v).find("cloudinit") == std::string::npos) {
      first_disk_key = k;
      first_volid = drive_volid(v);
      break;
    }
  if (!full) {
    if (storage) return api_reply::fail(500, "parameter 'storage' not allowed for linked clones");
    if (format) return api_reply::fail(500, "parameter 'format' not allowed for linked clones");
    if (!is_template && !first_volid.empty())
      return api_reply::fail(500, "Linked clone feature is not supported for '" + first_volid +
                                      "' (" + first_disk_key + ")");
  }
  if (target != node) {
    for (const auto& [k, v] : src.config) {
      if (!is_drive_key(k) || is_cdrom(v)) continue;
      auto volid = drive_volid(v);
      auto st_name = volid.substr(0, volid.find(':'));
      const auto* st = topo().find_storage(st_name);
      bool shared = st && st->shared;
      if (storage) shared = topo().find_storage(*storage)->shared;
      if (!shared)
        return api_reply::fail(500,
                               "can't clone VM to node '" + target + "' (VM uses local storage)");
    }
  }
  if (auto* existing = find_vm(newid); existing && existing->node == node)
    return api_reply::fail(
        500, "unable to create VM " + std::to_string(newid) + ": config file already exists");
  const bool id_taken_elsewhere = find_vm(newid) != nullptr;
  if (src.running && src.clone_readers > 0) return api_reply::fail(500, lock_timeout(src.vmid));

  // The worker writes a temporary config with `lock: clone` for newid at once.
  if (!id_taken_elsewhere) {
    vm_state fresh;
    fresh.vmid = newid;
    fresh.node = node;
    fresh.created = sim_clock::now();
    fresh.config["lock"] = "clone";
    vms[newid] = std::move(fresh);
  }
  ++src.clone_readers;
  const int srcid = src.vmid;
  auto dur = std::chrono::milliseconds(static_cast<std::int64_t>(
      static_cast<double>(duration("qmclone").count()) * faults().clone_factor()));
  auto upid = start_task(
      node, "qmclone", std::to_string(srcid), c.who, dur,
      [this, srcid, newid, node, target, name, description, pool, storage, full,
       id_taken_elsewhere]() -> status {
        auto* src = find_vm(srcid);
        if (src) --src->clone_readers;
        if (id_taken_elsewhere) {
          auto* other = find_vm(newid);
          return make_error("500", "clone failed: unable to create VM " + std::to_string(newid) +
                                       " - VM " + std::to_string(newid) +
                                       " already exists on node '" +
                                       (other ? other->node : std::string("?")) + "'");
        }
        auto fail = [&](const std::string& why) -> status {
          vms.erase(newid);
          return make_error("500", "clone failed: " + why);
        };
        if (!src) return fail("source VM vanished");
        auto* dst = find_vm(newid);
        if (!dst) return fail("temporary config vanished");
        config_map cfg;
        int disk = 0;
        for (const auto& [k, v] : src->config) {
          if (k == "template" || k == "lock" || k.rfind("unused", 0) == 0) continue;
          if (k.rfind("net", 0) == 0 && k.size() > 3 &&
              std::isdigit(static_cast<unsigned char>(k[3]))) {
            auto props = parse_property_string(v, "model");
            if (!props.empty()) {
              auto model = props.front().second.substr(0, props.front().second.find('='));
              props.front().second = model + "=" + new_mac();
            }
            cfg[k] = format_property_string(props, "model");
            continue;
          }
          if (is_drive_key(k) && !is_cdrom(v)) {
            auto volid = drive_volid(v);
            auto colon = volid.find(':');
            if (colon == std::string::npos || volid.find("cloudinit") != std::string::npos) {
              cfg[k] = v;
              continue;
            }
            std::string st = storage ? *storage : volid.substr(0, colon);
            if (faults().storage_unreachable(node, st))
              return fail("storage '" + st + "' is not online");
            std::string base = volid.substr(colon + 1);
            std::string fresh = "vm-" + std::to_string(newid) + "-disk-" + std::to_string(disk++);
            std::string new_volid = full ? st + ":" + fresh : st + ":" + base + "/" + fresh;
            auto props = parse_property_string(v, "file");
            props.front().second = new_volid;
            cfg[k] = format_property_string(props, "file");
            continue;
          }
          cfg[k] = v;
        }
        cfg["name"] =
            name ? *name
                 : "Copy-of-VM-" + (src->name().empty() ? std::to_string(srcid) : src->name());
        if (description) cfg["description"] = *description;
        if (cfg.count("smbios1"))
          cfg["smbios1"] = with_property(cfg["smbios1"], "uuid", new_uuid(), "uuid");
        else
          cfg["smbios1"] = "uuid=" + new_uuid();
        if (cfg.count("vmgenid")) cfg["vmgenid"] = new_uuid();
        dst->config = std::move(cfg);
        dst->linked_base = full ? 0 : srcid;
        dst->firewall_options = src->firewall_options;
        dst->firewall_rules = src->firewall_rules;
        dst->node = target;
        dst->created = sim_clock::now();
        if (pool) {
          pools[*pool].vms.insert(newid);
          dst->pool = *pool;
        }
        return {};
      },
      [this, srcid, newid, id_taken_elsewhere] {
        if (auto* src = find_vm(srcid)) --src->clone_readers;
        if (!id_taken_elsewhere) vms.erase(newid);
      });
  return api_reply::ok(upid);
}

api_reply pve_world::post_template(api_call& c) {
  auto found = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  if (auto refused = check_writable(vm, c)) return *refused;
  if (vm.running)
    return api_reply::fail(500, "you can't convert a VM to template if VM is running");
  const int vmid = vm.vmid;
  auto upid = start_task(vm.node, "qmtemplate", std::to_string(vmid), c.who, duration("qmtemplate"),
                         [this, vmid]() -> status {
                           auto* vm = find_vm(vmid);
                           if (!vm)
                             return make_error("500", "VM " + std::to_string(vmid) + " vanished");
                           if (vm->running)
                             return make_error(
                                 "500", "you can't convert a VM to template if VM is running");
                           const std::string from = "vm-" + std::to_string(vmid) + "-disk-";
                           const std::string to = "base-" + std::to_string(vmid) + "-disk-";
                           for (auto& [k, v] : vm->config) {
                             if (!is_drive_key(k) || is_cdrom(v)) continue;
                             auto p = v.find(from);
                             if (p != std::string::npos) v.replace(p, from.size(), to);
                           }
                           vm->config["template"] = "1";
                           return {};
                         });
  return api_reply::ok(upid);
}

api_reply pve_world::get_status_current(api_call& c) {
  auto found = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  const auto* h = topo().find_host(vm.node);
  std::int64_t maxmem = static_cast<std::int64_t>(vm_memory_mib(vm.config)) << 20;
  std::int64_t maxdisk = 0;
  for (const auto& [k, v] : vm.config)
    if (is_drive_key(k) && !is_cdrom(v) && k.rfind("unused", 0) != 0)
      maxdisk += static_cast<std::int64_t>(drive_size(v));
  json::object o{
      {"vmid", vm.vmid},
      {"name", vm.name()},
      {"status", vm.running ? "running" : "stopped"},
      {"cpus", vm_cpus(vm.config, h->logical_cpus())},
      {"maxmem", maxmem},
      {"mem", vm.running ? maxmem / 2 : 0},
      {"maxdisk", maxdisk},
      {"disk", 0},
      {"cpu", vm.running ? 0.1 : 0.0},
      {"netin", 0},
      {"netout", 0},
      {"diskread", 0},
      {"diskwrite", 0},
      {"uptime",
       vm.running
           ? std::chrono::duration_cast<std::chrono::seconds>(sim_clock::now() - vm.started).count()
           : 0},
      {"ha", json::object{{"managed", 0}}}};
  if (vm.running) {
    o["qmpstatus"] = "running";
    o["pid"] = vm.pid;
    o["running-machine"] = "pc-i440fx-8.1+pve0";
    o["running-qemu"] = "8.1.5";
    o["balloon"] = maxmem;
  } else {
    o["qmpstatus"] = "stopped";
  }
  if (auto a = vm.config.find("agent");
      a != vm.config.end() && property_value(a->second, "enabled", "enabled") == "1")
    o["agent"] = 1;
  if (!vm.lock().empty()) o["lock"] = vm.lock();
  if (auto t = vm.config.find("tags"); t != vm.config.end()) o["tags"] = t->second;
  if (vm.is_template()) o["template"] = 1;
  return api_reply::ok(o);
}

namespace {
// Start-time checks of custom NUMA nodes (qemu-server Memory.pm).
status check_numa(const config_map& config) {
  if (config.count("numa") == 0 || config.at("numa") != "1") return {};
  std::uint64_t total = 0;
  bool any = false;
  for (int i = 0; i < 8; ++i) {
    auto it = config.find("numa" + std::to_string(i));
    if (it == config.end()) continue;
    any = true;
    auto mem = property_value(it->second, "memory", "cpus");
    if (mem.empty())
      return make_error("500", "missing NUMA node" + std::to_string(i) + " memory value");
    if (property_value(it->second, "cpus", "cpus").empty())
      return make_error("500", "missing NUMA node" + std::to_string(i) + " cpus");
    auto hostnodes = property_value(it->second, "hostnodes", "cpus");
    if (!hostnodes.empty() && property_value(it->second, "policy", "cpus").empty())
      return make_error("500", "you need to define a policy for hostnode " + hostnodes);
    total += std::stoull(mem);
  }
  if (any && total != vm_memory_mib(config))
    return make_error("500", "total memory for NUMA nodes must be equal to vm static memory");
  return {};
}
}  // namespace

api_reply pve_world::post_start(api_call& c) {
  auto found = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  if (vm.is_template()) return api_reply::fail(500, "you can't start a vm if it's a template");
  if (c.params.has("skiplock") && !c.who.is_root())
    return api_reply::param("skiplock", "Only root may use this option.");
  bool skiplock = c.who.is_root() && c.params.get_bool("skiplock").value_or(false);
  const int vmid = vm.vmid;
  auto upid =
      start_task(vm.node, "qmstart", std::to_string(vmid), c.who, duration("qmstart"),
                 [this, vmid, skiplock]() -> status {
                   auto* vm = find_vm(vmid);
                   if (!vm)
                     return make_error("500", "VM " + std::to_string(vmid) + " does not exist");
                   if (!vm->lock().empty() && !skiplock)
                     return make_error("500", "VM is locked (" + vm->lock() + ")");
                   if (vm->running)
                     return make_error("500", "VM " + std::to_string(vmid) + " already running");
                   // Pending changes apply at start.
                   for (const auto& [k, v] : vm->pending) vm->config[k] = v;
                   for (const auto& k : vm->pending_delete) vm->config.erase(k);
                   vm->pending.clear();
                   vm->pending_delete.clear();
                   if (auto st = check_numa(vm->config); !st) return st;
                   for (const auto& [k, v] : vm->config) {
                     if (!is_drive_key(k) || is_cdrom(v)) continue;
                     auto volid = drive_volid(v);
                     auto st = volid.substr(0, volid.find(':'));
                     if (faults().storage_unreachable(vm->node, st))
                       return make_error("500", "storage '" + st + "' is not online");
                   }
                   vm->running = true;
                   vm->started = sim_clock::now();
                   vm->pid = next_pid++;
                   start_guest(*vm);
                   return {};
                 });
  return api_reply::ok(upid);
}

namespace {
api_reply power_off(pve_world& w, api_call& c, const char* type) {
  auto found = w.vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  if (c.params.has("skiplock") && !c.who.is_root())
    return api_reply::param("skiplock", "Only root may use this option.");
  bool skiplock = c.who.is_root() && c.params.get_bool("skiplock").value_or(false);
  const int vmid = vm.vmid;
  auto upid =
      w.start_task(vm.node, type, std::to_string(vmid), c.who, w.duration(type),
                   [&w, vmid, skiplock]() -> status {
                     auto* vm = w.find_vm(vmid);
                     if (!vm)
                       return make_error("500", "VM " + std::to_string(vmid) + " does not exist");
                     if (!vm->lock().empty() && !skiplock && vm->lock() != "backup")
                       return make_error("500", "VM is locked (" + vm->lock() + ")");
                     if (!vm->running) return {};  // stopping a stopped VM succeeds
                     vm->running = false;
                     vm->pid = 0;
                     vm->execs.clear();
                     w.guests().stop(vmid);
                     // Pending changes apply once the VM is down.
                     for (const auto& [k, v] : vm->pending) vm->config[k] = v;
                     for (const auto& k : vm->pending_delete) vm->config.erase(k);
                     vm->pending.clear();
                     vm->pending_delete.clear();
                     return {};
                   });
  return api_reply::ok(upid);
}
}  // namespace

api_reply pve_world::post_stop(api_call& c) {
  return power_off(*this, c, "qmstop");
}
api_reply pve_world::post_shutdown(api_call& c) {
  return power_off(*this, c, "qmshutdown");
}

api_reply pve_world::delete_vm(api_call& c) {
  auto found = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  if (c.params.has("skiplock") && !c.who.is_root())
    return api_reply::param("skiplock", "Only root may use this option.");
  const int vmid = vm.vmid;
  if (auto p = vm.config.find("protection"); p != vm.config.end() && p->second == "1")
    return api_reply::fail(
        500, "can't remove VM " + std::to_string(vmid) + " - protection mode enabled");
  if (vm.running)
    return api_reply::fail(500, "VM " + std::to_string(vmid) + " is running - destroy failed");
  if (vm.clone_readers > 0) return api_reply::fail(500, lock_timeout(vmid));
  bool skiplock = c.who.is_root() && c.params.get_bool("skiplock").value_or(false);
  auto upid = start_task(
      vm.node, "qmdestroy", std::to_string(vmid), c.who, duration("qmdestroy"),
      [this, vmid, skiplock]() -> status {
        auto* vm = find_vm(vmid);
        if (!vm) return make_error("500", "Configuration file does not exist");
        if (vm->running)
          return make_error("500", "VM " + std::to_string(vmid) + " is running - destroy failed");
        if (!vm->lock().empty() && !skiplock)
          return make_error("500", "VM is locked (" + vm->lock() + ")");
        if (vm->is_template()) {
          for (const auto& [id, other] : vms) {
            if (other.linked_base != vmid) continue;
            for (const auto& [k, v] : vm->config) {
              if (!is_drive_key(k) || is_cdrom(v)) continue;
              auto volid = drive_volid(v);
              if (volid.find("base-") == std::string::npos) continue;
              return make_error("500", "base volume '" + volid.substr(volid.find(':') + 1) +
                                           "' is still in use by linked cloned");
            }
            return make_error("500", "base volume of VM " + std::to_string(vmid) +
                                         " is still in use by linked cloned");
          }
        }
        if (!vm->pool.empty()) pools[vm->pool].vms.erase(vmid);
        guests().stop(vmid);
        vms.erase(vmid);
        return {};
      });
  return api_reply::ok(upid);
}

}  // namespace kp::sim::pve
