// VM lifecycle endpoints: create, clone, template, destroy.
#include "sim/pve/qemu_lifecycle_api.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "sim/pve/api_router.hpp"
#include "sim/pve/guest_fleet.hpp"
#include "sim/pve/parameter_checks.hpp"
#include "sim/pve/pool_api.hpp"
#include "sim/pve/property_string.hpp"
#include "sim/pve/qemu_config_api.hpp"
#include "sim/pve/qemu_power_api.hpp"
#include "sim/pve/qemu_rules.hpp"
#include "sim/pve/task_board.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

namespace {

bool is_copied_disk(const std::string& key, const std::string& value) {
  if (!is_drive_key(key) || is_cdrom(value) || key.rfind("unused", 0) == 0) return false;
  auto volid = drive_volid(value);
  return volid.find(':') != std::string::npos && volid.find("cloudinit") == std::string::npos;
}

// The storage `clone` feature for a linked clone of `volid` (PVE::Storage volume_has_feature):
// thin storages have it, file storages only for qcow2 images; plain lvm and the rest do not.
bool can_link(const storage_spec* st, const std::string& volid) {
  if (st == nullptr) return false;
  static const std::set<std::string> thin = {"lvmthin", "zfspool", "rbd", "btrfs"};
  static const std::set<std::string> files = {"dir", "nfs", "cifs", "glusterfs", "cephfs"};
  if (thin.count(st->type)) return true;
  const std::string qcow2 = ".qcow2";
  return files.count(st->type) && volid.size() >= qcow2.size() &&
         volid.compare(volid.size() - qcow2.size(), qcow2.size(), qcow2) == 0;
}

}  // namespace

void qemu_lifecycle_api::add_routes(api_router& router) {
  const std::string vm = "/nodes/{node}/qemu/{vmid}";
  router.add("POST", "/nodes/{node}/qemu", [this](api_call& c) { return create(c); });
  router.add("DELETE", vm, [this](api_call& c) { return destroy(c); });
  router.add("POST", vm + "/clone", [this](api_call& c) { return clone(c); });
  router.add("POST", vm + "/template", [this](api_call& c) { return to_template(c); });
}

api_reply qemu_lifecycle_api::create(api_call& c) {
  const auto& node = c.path["node"];
  auto vmid_text = c.params.get("vmid");
  if (!vmid_text) return api_reply::param("vmid", property_missing);
  auto checked = check_vmid("vmid", *vmid_text);
  if (!checked) return reply_from(checked.error());
  const int vmid = *checked;
  if (auto* other = world_.find_vm(vmid))
    return api_reply::fail(500, "unable to create VM " + std::to_string(vmid) + " - VM " +
                                    std::to_string(vmid) + " already exists on node '" +
                                    other->node + "'");
  auto pool = c.params.get("pool");
  if (pool && !pools_.exists(*pool))
    return api_reply::fail(500, "pool '" + *pool + "' does not exist");
  vm_state fresh;
  fresh.vmid = vmid;
  fresh.node = node;
  fresh.created = sim_clock::now();
  auto& vm = world_.vms[vmid] = std::move(fresh);
  auto apply = config_.prepare_update(c, vm, true);
  if (!apply) {
    world_.vms.erase(vmid);
    return reply_from(apply.error());
  }
  vm.config["lock"] = "create";
  bool start = c.params.get_bool("start").value_or(false);
  auto upid = tasks_.start(
      node, "qmcreate", std::to_string(vmid), c.who, world_.duration("qmcreate"),
      [this, vmid, apply = *apply, pool, start]() -> status {
        auto* vm = world_.find_vm(vmid);
        if (!vm) return make_error("500", "VM vanished during create");
        vm->config.erase("lock");
        if (auto st = apply(); !st) {
          world_.vms.erase(vmid);
          return st;
        }
        if (!vm->config.count("smbios1")) vm->config["smbios1"] = "uuid=" + world_.new_uuid();
        if (!vm->config.count("vmgenid")) vm->config["vmgenid"] = world_.new_uuid();
        vm->config["meta"] = "creation-qemu=8.1.5,ctime=" + std::to_string(world_.now_epoch());
        vm->created = sim_clock::now();
        if (pool) pools_.add_member(*pool, *vm);
        if (start) return power_.power_on(*vm);
        return {};
      },
      [this, vmid] { world_.vms.erase(vmid); });
  return api_reply::ok(upid);
}

std::chrono::milliseconds qemu_lifecycle_api::clone_duration(const vm_state& src, bool full) const {
  double ms = world_.duration_ms("qmclone");
  if (full) {
    std::uint64_t bytes = 0;
    for (const auto& [k, v] : src.config)
      if (is_copied_disk(k, v)) bytes += drive_size(v);
    ms += world_.duration_ms("full_clone_per_gib_ms") * static_cast<double>(bytes) /
          static_cast<double>(1ull << 30);
  }
  ms *= world_.faults().clone_factor();
  return std::chrono::milliseconds(static_cast<std::int64_t>(ms));
}

api_reply qemu_lifecycle_api::clone(api_call& c) {
  const auto& node = c.path["node"];
  const auto& topo = world_.topo();
  auto found = world_.vm_on_node(node, c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& src = **found;
  auto newid_text = c.params.get("newid");
  if (!newid_text) return api_reply::param("newid", property_missing);
  auto newid_checked = check_vmid("newid", *newid_text);
  if (!newid_checked) return reply_from(newid_checked.error());
  const int newid = *newid_checked;
  auto name = c.params.get("name");
  if (name && !valid_dns_name(*name))
    return api_reply::param("name", "invalid format - value does not look like a valid DNS name");
  auto description = c.params.get("description");
  auto pool = c.params.get("pool");
  auto storage = c.params.get("storage");
  auto format = c.params.get("format");
  std::string target = c.params.get_or("target", node);
  if (!world_.host_exists(target))
    return api_reply::param("target", "no such cluster node '" + target + "'");
  if (pool && !pools_.exists(*pool))
    return api_reply::fail(500, "pool '" + *pool + "' does not exist");
  if (storage) {
    if (!world_.storage_on_host(node, *storage))
      return api_reply::fail(500, "storage '" + *storage + "' does not exist");
    const auto* st = topo.find_storage(*storage);
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
    if (is_copied_disk(k, v)) {
      first_disk_key = k;
      first_volid = drive_volid(v);
      break;
    }
  if (!full) {
    if (storage) return api_reply::fail(500, "parameter 'storage' not allowed for linked clones");
    if (format) return api_reply::fail(500, "parameter 'format' not allowed for linked clones");
    if (!first_volid.empty() &&
        (!is_template ||
         !can_link(topo.find_storage(first_volid.substr(0, first_volid.find(':'))), first_volid)))
      return api_reply::fail(500, "Linked clone feature is not supported for '" + first_volid +
                                      "' (" + first_disk_key + ")");
  }
  if (target != node) {
    for (const auto& [k, v] : src.config) {
      if (!is_drive_key(k) || is_cdrom(v)) continue;
      auto volid = drive_volid(v);
      const auto* st = topo.find_storage(volid.substr(0, volid.find(':')));
      bool shared = st && st->shared;
      if (storage) shared = topo.find_storage(*storage)->shared;
      if (!shared)
        return api_reply::fail(500,
                               "can't clone VM to node '" + target + "' (VM uses local storage)");
    }
  }
  if (auto* existing = world_.find_vm(newid); existing && existing->node == node)
    return api_reply::fail(
        500, "unable to create VM " + std::to_string(newid) + ": config file already exists");
  const bool id_taken_elsewhere = world_.find_vm(newid) != nullptr;
  if (src.running && src.clone_readers > 0) return api_reply::fail(500, lock_timeout(src.vmid));

  // The worker writes a temporary config with `lock: clone` for newid at once.
  if (!id_taken_elsewhere) {
    vm_state fresh;
    fresh.vmid = newid;
    fresh.node = node;
    fresh.created = sim_clock::now();
    fresh.config["lock"] = "clone";
    world_.vms[newid] = std::move(fresh);
  }
  ++src.clone_readers;
  const int srcid = src.vmid;
  auto upid = tasks_.start(
      node, "qmclone", std::to_string(srcid), c.who, clone_duration(src, full),
      [this, srcid, newid, node, target, name, description, pool, storage, full,
       id_taken_elsewhere]() -> status {
        auto* src = world_.find_vm(srcid);
        if (src) --src->clone_readers;
        if (id_taken_elsewhere) {
          auto* other = world_.find_vm(newid);
          return make_error("500", "clone failed: unable to create VM " + std::to_string(newid) +
                                       " - VM " + std::to_string(newid) +
                                       " already exists on node '" +
                                       (other ? other->node : std::string("?")) + "'");
        }
        auto fail = [&](const std::string& why) -> status {
          world_.vms.erase(newid);
          return make_error("500", "clone failed: " + why);
        };
        if (!src) return fail("source VM vanished");
        auto* dst = world_.find_vm(newid);
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
              props.front().second = model + "=" + world_.new_mac();
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
            if (world_.faults().storage_unreachable(node, st))
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
          cfg["smbios1"] = with_property(cfg["smbios1"], "uuid", world_.new_uuid(), "uuid");
        else
          cfg["smbios1"] = "uuid=" + world_.new_uuid();
        if (cfg.count("vmgenid")) cfg["vmgenid"] = world_.new_uuid();
        dst->config = std::move(cfg);
        dst->linked_base = full ? 0 : srcid;
        dst->firewall_options = src->firewall_options;
        dst->firewall_rules = src->firewall_rules;
        dst->node = target;
        dst->created = sim_clock::now();
        if (pool) pools_.add_member(*pool, *dst);
        return {};
      },
      [this, srcid, newid, id_taken_elsewhere] {
        if (auto* src = world_.find_vm(srcid)) --src->clone_readers;
        if (!id_taken_elsewhere) world_.vms.erase(newid);
      });
  return api_reply::ok(upid);
}

api_reply qemu_lifecycle_api::to_template(api_call& c) {
  auto found = world_.vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  if (auto refused = check_writable(vm, c)) return *refused;
  if (vm.running)
    return api_reply::fail(500, "you can't convert a VM to template if VM is running");
  const int vmid = vm.vmid;
  auto upid = tasks_.start(vm.node, "qmtemplate", std::to_string(vmid), c.who,
                           world_.duration("qmtemplate"), [this, vmid]() -> status {
                             auto* vm = world_.find_vm(vmid);
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

api_reply qemu_lifecycle_api::destroy(api_call& c) {
  auto found = world_.vm_on_node(c.path["node"], c.path["vmid"]);
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
  auto upid = tasks_.start(
      vm.node, "qmdestroy", std::to_string(vmid), c.who, world_.duration("qmdestroy"),
      [this, vmid, skiplock]() -> status {
        auto* vm = world_.find_vm(vmid);
        if (!vm) return make_error("500", "Configuration file does not exist");
        if (vm->running)
          return make_error("500", "VM " + std::to_string(vmid) + " is running - destroy failed");
        if (!vm->lock().empty() && !skiplock)
          return make_error("500", "VM is locked (" + vm->lock() + ")");
        if (vm->is_template()) {
          for (const auto& [id, other] : world_.vms) {
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
        pools_.remove_member(*vm);
        world_.guests().stop(vmid);
        world_.vms.erase(vmid);
        return {};
      });
  return api_reply::ok(upid);
}

}  // namespace kp::sim::pve
