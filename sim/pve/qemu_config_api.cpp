// VM config endpoints and the validation of config changes (qemu-server's update_vm_api).
#include "sim/pve/qemu_config_api.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "sim/pve/api_router.hpp"
#include "sim/pve/number_text.hpp"
#include "sim/pve/parameter_checks.hpp"
#include "sim/pve/pci_mapping_api.hpp"
#include "sim/pve/property_string.hpp"
#include "sim/pve/qemu_rules.hpp"
#include "sim/pve/task_board.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {

const std::set<std::string>& api_only_params() {
  static const std::set<std::string> keys = {
      "node", "vmid",    "digest", "delete", "revert", "skiplock", "background_delay",
      "pool", "storage", "start",  "unique", "force",  "archive",  "live-restore"};
  return keys;
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
    if (auto n = parse_number<int>(std::string_view(volid).substr(p + prefix.size())))
      next = std::max(next, *n + 1);
  }
  return next;
}

// numaN: cpus=<list>[,hostnodes=<list>][,memory=<number>][,policy=preferred|bind|interleave]
status check_numa_entry(const std::string& key, const std::string& value) {
  auto sub = [&](const std::string& prop, const std::string& why) {
    return make_error("param:" + key,
                      invalid_format("format error\n" + key + "." + prop + ": " + why));
  };
  auto cpus = property_value(value, "cpus", "cpus");
  if (cpus.empty()) return sub("cpus", property_missing);
  if (!parse_cpu_list(cpus, ";")) return sub("cpus", "value does not match the regex pattern");
  auto hostnodes = property_value(value, "hostnodes", "cpus");
  if (!hostnodes.empty() && !parse_cpu_list(hostnodes, ";"))
    return sub("hostnodes", "value does not match the regex pattern");
  auto memory = property_value(value, "memory", "cpus");
  if (!memory.empty() && !parse_number<double>(memory))
    return sub("memory", type_check_failed("number", memory));
  auto policy = property_value(value, "policy", "cpus");
  if (!policy.empty() && policy != "preferred" && policy != "bind" && policy != "interleave")
    return sub("policy", "value '" + policy +
                             "' does not have a value in the enumeration 'preferred, bind, "
                             "interleave'");
  return {};
}

// A disk's cache, discard, iothread and ssd options, as qemu-server's drive format checks them.
status check_drive_options(const std::string& key, const std::string& value) {
  auto sub = [&](const std::string& prop, const std::string& why) {
    return make_error("param:" + key,
                      invalid_format("format error\n" + key + "." + prop + ": " + why));
  };
  auto enumeration = [&](const std::string& prop, const std::string& v,
                         const std::set<std::string>& allowed, const std::string& listed) {
    return allowed.count(v)
               ? status{}
               : sub(prop,
                     "value '" + v + "' does not have a value in the enumeration '" + listed + "'");
  };
  for (const auto& [prop, v] : parse_property_string(value, "file")) {
    status st;
    if (prop == "cache") {
      st = enumeration(prop, v, {"none", "writethrough", "writeback", "unsafe", "directsync"},
                       "none, writethrough, writeback, unsafe, directsync");
    } else if (prop == "discard") {
      st = enumeration(prop, v, {"on", "ignore"}, "ignore, on");
    } else if (prop == "iothread" || prop == "ssd") {
      request_params tmp;
      tmp.add("v", v);
      if (!tmp.get_bool("v")) st = sub(prop, type_check_failed("boolean", v));
    }
    if (!st) return st;
  }
  return {};
}

}  // namespace

void qemu_config_api::add_routes(api_router& router) {
  const std::string vm = "/nodes/{node}/qemu/{vmid}";
  router.add("GET", "/nodes/{node}/qemu", [this](api_call& c) { return list(c); });
  router.add("GET", vm, [this](api_call& c) { return index(c); });
  router.add("GET", vm + "/config", [this](api_call& c) { return get_config(c); });
  router.add("POST", vm + "/config", [this](api_call& c) { return post_config(c); });
  router.add("PUT", vm + "/config", [this](api_call& c) { return put_config(c); });
  router.add("GET", vm + "/pending", [this](api_call& c) { return pending(c); });
  router.add("PUT", vm + "/resize", [this](api_call& c) { return resize(c); });
}

status qemu_config_api::normalize(api_call& c, vm_state& vm, const std::string& key,
                                  std::string& value, int& disk_index) {
  const auto& topo = world_.topo();
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
  } else if (key == "cores" || key == "sockets" || key == "vcpus") {
    if (auto n = check_integer(key, value, 1); !n) return n.error();
  } else if (key == "cpuunits" || key == "balloon") {
    if (auto n = check_integer(key, value, 0); !n) return n.error();
  } else if (key == "memory") {
    auto current = property_value(value, "current", "current");
    if (!is_integer_text(current))
      return make_error("param:memory",
                        invalid_format("type check ('integer') failed - got '" + current + "'"));
    if (auto n = check_integer("memory", current, 16); !n) return n.error();
  } else if (key == "numa" || key == "onboot" || key == "template" || key == "protection" ||
             key == "acpi" || key == "tablet" || key == "kvm" || key == "ciupgrade") {
    request_params tmp;
    tmp.add("v", value);
    auto b = tmp.get_bool("v");
    if (!b) return make_error("param:" + key, type_check_failed("boolean", value));
    value = *b ? "1" : "0";
  } else if (key == "name") {
    if (!valid_dns_name(value))
      return make_error("param:name", "invalid format - value does not look like a valid DNS name");
  } else if (key == "description") {
    if (value.size() > 8192)
      return make_error("param:description", "value may only be 8192 characters long");
  } else if (key == "sshkeys") {
    for (char ch : value)
      if (!(std::isalnum(static_cast<unsigned char>(ch)) ||
            std::string("-%_.!~*'()").find(ch) != std::string::npos))
        return make_error("param:sshkeys", "invalid urlencoded string: " + value);
  } else if (key.rfind("numa", 0) == 0) {
    return check_numa_entry(key, value);
  } else if (key.rfind("hostpci", 0) == 0) {
    return pci_.check_hostpci(key, value, c.who);
  } else if (key.rfind("net", 0) == 0) {
    auto props = parse_property_string(value, "model");
    if (props.empty() || props.front().first != "model")
      return make_error("param:" + key, "invalid format - format error");
    if (props.front().second.find('=') == std::string::npos)
      props.front().second += "=" + world_.new_mac();
    value = format_property_string(props, "model");
  } else if (is_drive_key(key)) {
    auto volid = drive_volid(value);
    if (volid.empty()) return make_error("param:" + key, "invalid format - format error");
    if (is_cdrom(value) || volid == "none" || volid == "cdrom") return {};
    if (auto checked = check_drive_options(key, value); !checked) return checked;
    auto colon = volid.find(':');
    std::string storage = colon == std::string::npos ? "" : volid.substr(0, colon);
    std::string rest = colon == std::string::npos ? volid : volid.substr(colon + 1);
    if (rest == "cloudinit") return {};
    auto gib = parse_number<std::uint64_t>(rest);
    if (!gib || rest.front() == '+') return {};  // an existing volume
    // "STORAGE:SIZE_GiB" allocates; "STORAGE:0,import-from=VOLID" imports.
    if (!world_.storage_on_host(vm.node, storage))
      return make_error("500", "storage '" + storage + "' does not exist");
    const auto* st = topo.find_storage(storage);
    if (std::find(st->content.begin(), st->content.end(), "images") == st->content.end())
      return make_error("500", "storage '" + storage + "' does not support content-type 'images'");
    if (world_.faults().storage_unreachable(vm.node, storage))
      return make_error("500", "storage '" + storage + "' is not online");
    const std::uint64_t used = std::min(st->size, world_.storage_used(vm.node, storage));
    if (*gib > (st->size >> 30) || (*gib << 30) > st->size - used)
      return make_error(
          "500", "unable to create image: not enough free space on storage '" + storage + "'");
    std::uint64_t size = *gib << 30;
    // EFI vars and TPM state have fixed sizes whatever the number says.
    if (key.rfind("efidisk", 0) == 0) size = 528ull << 10;
    if (key.rfind("tpmstate", 0) == 0) size = 4ull << 20;
    auto import = property_value(value, "import-from", "file");
    if (!import.empty()) {
      auto file = world_.volume_file(vm.node, import);
      if (!file) return make_error("500", "volume '" + import + "' does not exist");
      std::error_code ec;
      std::uint64_t bytes = std::filesystem::file_size(*file, ec);
      std::uint64_t rounded = (bytes + (1ull << 30) - 1) >> 30;
      size = std::max<std::uint64_t>(rounded, 2) << 30;
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
  return {};
}

result<std::function<status()>> qemu_config_api::prepare_update(api_call& c, vm_state& vm,
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
    if (!is_config_key(key)) return make_error("param:" + key_in, property_not_in_schema);
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
  for (auto& [key, value] : changes)
    if (auto st = normalize(c, vm, key, value, disk_index); !st) return st.error();
  {
    config_map merged = vm.config;
    for (const auto& [k, v] : vm.pending) merged[k] = v;
    for (const auto& [k, v] : changes) merged[k] = v;
    if (merged.count("balloon") && merged.count("memory")) {
      auto b = parse_number<std::uint64_t>(merged["balloon"]);
      if (b && *b > vm_memory_mib(merged))
        return make_error("500", "balloon value too large (must be smaller than assigned memory)");
    }
  }
  if (auto digest = c.params.get("digest"); digest && *digest != current_digest(vm))
    return make_error("500", "checksum mismatch (file change by other user?)");

  const int vmid = vm.vmid;
  auto& world = world_;
  std::function<status()> apply = [&world, vmid, changes, deletes]() -> status {
    auto* target = world.find_vm(vmid);
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

api_reply qemu_config_api::list(api_call& c) {
  const auto& node = c.path["node"];
  json::array out;
  for (const auto& [id, vm] : world_.vms)
    if (vm.node == node) out.push_back(vm_status_entry(world_, vm));
  return api_reply::ok(out);
}

api_reply qemu_config_api::index(api_call& c) {
  auto vm = world_.vm_on_node(c.path["node"], c.path["vmid"]);
  if (!vm) return reply_from(vm.error());
  json::array out;
  for (const char* s :
       {"config", "pending", "status", "firewall", "agent", "rrd", "clone", "resize", "template"})
    out.push_back(json::object{{"subdir", s}});
  return api_reply::ok(out);
}

api_reply qemu_config_api::get_config(api_call& c) {
  auto found = world_.vm_on_node(c.path["node"], c.path["vmid"]);
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

api_reply qemu_config_api::pending(api_call& c) {
  auto found = world_.vm_on_node(c.path["node"], c.path["vmid"]);
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

api_reply qemu_config_api::post_config(api_call& c) {
  auto found = world_.vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  auto apply = prepare_update(c, vm, false);
  if (!apply) return reply_from(apply.error());
  if (auto refused = check_writable(vm, c)) return *refused;
  // background_delay (1-30 s): the answer waits for the task that long; null when it ended OK.
  std::chrono::seconds delay{0};
  if (auto text = c.params.get("background_delay")) {
    auto n = check_integer("background_delay", *text, 1, 30);
    if (!n) return reply_from(n.error());
    delay = std::chrono::seconds(*n);
  }
  const auto vmid = vm.vmid;
  auto done = tasks_.start_and_wait(vm.node, "qmconfig", std::to_string(vmid), c.who,
                                    world_.duration("qmconfig"), delay, *apply);
  if (!done.upid.empty()) return api_reply::ok(done.upid);
  if (!done.error.empty())
    return api_reply::fail(500, "failed to update VM " + std::to_string(vmid) + ": " + done.error);
  return api_reply::ok(nullptr);
}

api_reply qemu_config_api::put_config(api_call& c) {
  auto found = world_.vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  auto apply = prepare_update(c, vm, false);
  if (!apply) return reply_from(apply.error());
  if (auto refused = check_writable(vm, c)) return *refused;
  if (auto st = (*apply)(); !st) return reply_from(st.error());
  return api_reply::ok(nullptr);
}

api_reply qemu_config_api::resize(api_call& c) {
  auto found = world_.vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  auto disk = c.params.get("disk");
  if (!disk) return api_reply::param("disk", property_missing);
  auto size_text = c.params.get("size");
  if (!size_text) return api_reply::param("size", property_missing);
  bool relative = false;
  auto size = parse_disk_size(*size_text, &relative);
  if (!size) return api_reply::param("size", "value does not match the regex pattern");
  if (auto refused = check_writable(vm, c)) return *refused;
  if (auto digest = c.params.get("digest"); digest && *digest != current_digest(vm))
    return api_reply::fail(500, "checksum mismatch (file change by other user?)");
  auto it = vm.config.find(*disk);
  if (!is_drive_key(*disk) || it == vm.config.end())
    return api_reply::fail(500, "disk '" + *disk + "' does not exist");
  if (is_cdrom(it->second)) return api_reply::fail(500, "you can't resize a cdrom");
  std::uint64_t old_size = drive_size(it->second);
  std::uint64_t new_size = relative ? old_size + *size : *size;
  if (new_size < old_size) return api_reply::fail(500, "shrinking disks is not supported");
  if (new_size > old_size)
    it->second = with_property(it->second, "size", format_disk_size(new_size), "file");
  auto upid = tasks_.start(vm.node, "resize", std::to_string(vm.vmid), c.who,
                           world_.duration("resize"), []() -> status { return {}; });
  return api_reply::ok(upid);
}

}  // namespace kp::sim::pve
