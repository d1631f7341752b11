// VM power endpoints: status/current, start, stop, shutdown.
#include "sim/pve/qemu_power_api.hpp"

#include "sim/pve/api_router.hpp"
#include "sim/pve/guest_fleet.hpp"
#include "sim/pve/number_text.hpp"
#include "sim/pve/pci_mapping_api.hpp"
#include "sim/pve/property_string.hpp"
#include "sim/pve/qemu_rules.hpp"
#include "sim/pve/task_board.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {

// Start-time checks of custom NUMA nodes (qemu-server Memory.pm).
status check_numa(const config_map& config) {
  if (config.count("numa") == 0 || config.at("numa") != "1") return {};
  double total = 0;
  bool any = false;
  for (int i = 0; i < 8; ++i) {
    auto it = config.find("numa" + std::to_string(i));
    if (it == config.end()) continue;
    any = true;
    auto mem = property_value(it->second, "memory", "cpus");
    if (mem.empty())
      return make_error("500", "missing NUMA node" + std::to_string(i) + " memory value");
    auto mib = parse_number<double>(mem);
    if (!mib)
      return make_error("500", "unable to parse value of 'numa" + std::to_string(i) + "' - numa" +
                                   std::to_string(i) +
                                   ".memory: type check ('number') failed - got '" + mem + "'");
    if (property_value(it->second, "cpus", "cpus").empty())
      return make_error("500", "missing NUMA node" + std::to_string(i) + " cpus");
    auto hostnodes = property_value(it->second, "hostnodes", "cpus");
    if (!hostnodes.empty() && property_value(it->second, "policy", "cpus").empty())
      return make_error("500", "you need to define a policy for hostnode " + hostnodes);
    total += *mib;
  }
  if (any && total != static_cast<double>(vm_memory_mib(config)))
    return make_error("500", "total memory for NUMA nodes must be equal to vm static memory");
  return {};
}

void apply_pending(vm_state& vm) {
  for (const auto& [k, v] : vm.pending) vm.config[k] = v;
  for (const auto& k : vm.pending_delete) vm.config.erase(k);
  vm.pending.clear();
  vm.pending_delete.clear();
}

}  // namespace

void qemu_power_api::add_routes(api_router& router) {
  const std::string vm = "/nodes/{node}/qemu/{vmid}/status";
  router.add("GET", vm + "/current", [this](api_call& c) { return status_current(c); });
  router.add("POST", vm + "/start", [this](api_call& c) { return start(c); });
  router.add("POST", vm + "/stop", [this](api_call& c) { return stop(c, "qmstop"); });
  router.add("POST", vm + "/shutdown", [this](api_call& c) { return stop(c, "qmshutdown"); });
}

status qemu_power_api::power_on(vm_state& vm) {
  if (auto st = check_numa(vm.config); !st) return st;
  for (const auto& [k, v] : vm.config) {
    if (!is_drive_key(k) || is_cdrom(v)) continue;
    auto volid = drive_volid(v);
    auto st = volid.substr(0, volid.find(':'));
    if (world_.faults().storage_unreachable(vm.node, st))
      return make_error("500", "storage '" + st + "' is not online");
  }
  auto devices = pci_.choose_devices(vm);
  if (!devices) return devices.error();
  vm.pci_devices = std::move(*devices);
  vm.running = true;
  vm.started = sim_clock::now();
  vm.pid = world_.take_pid();
  world_.start_guest(vm, pci_.advertised_resources(vm.node, vm.pci_devices));
  return {};
}

void qemu_power_api::power_off(vm_state& vm) {
  if (!vm.running) return;
  vm.running = false;
  vm.pid = 0;
  vm.execs.clear();
  vm.pci_devices.clear();
  world_.guests().stop(vm.vmid);
  // Pending changes apply once the VM is down.
  apply_pending(vm);
}

api_reply qemu_power_api::status_current(api_call& c) {
  auto found = world_.vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  auto o = vm_status_entry(world_, vm);
  o["ha"] = json::object{{"managed", 0}};
  if (vm.running) {
    o["qmpstatus"] = "running";
    o["running-machine"] = "pc-i440fx-8.1+pve0";
    o["running-qemu"] = "8.1.5";
    o["balloon"] = o["maxmem"];
  } else {
    o["qmpstatus"] = "stopped";
  }
  if (auto a = vm.config.find("agent");
      a != vm.config.end() && property_value(a->second, "enabled", "enabled") == "1")
    o["agent"] = 1;
  return api_reply::ok(o);
}

api_reply qemu_power_api::start(api_call& c) {
  auto found = world_.vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  if (vm.is_template()) return api_reply::fail(500, "you can't start a vm if it's a template");
  if (c.params.has("skiplock") && !c.who.is_root())
    return api_reply::param("skiplock", "Only root may use this option.");
  bool skiplock = c.who.is_root() && c.params.get_bool("skiplock").value_or(false);
  const int vmid = vm.vmid;
  auto upid =
      tasks_.start(vm.node, "qmstart", std::to_string(vmid), c.who, world_.duration("qmstart"),
                   [this, vmid, skiplock]() -> status {
                     auto* vm = world_.find_vm(vmid);
                     if (!vm)
                       return make_error("500", "VM " + std::to_string(vmid) + " does not exist");
                     if (!vm->lock().empty() && !skiplock)
                       return make_error("500", "VM is locked (" + vm->lock() + ")");
                     if (vm->running)
                       return make_error("500", "VM " + std::to_string(vmid) + " already running");
                     // Pending changes apply at start.
                     apply_pending(*vm);
                     return power_on(*vm);
                   });
  return api_reply::ok(upid);
}

api_reply qemu_power_api::stop(api_call& c, const char* type) {
  auto found = world_.vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return reply_from(found.error());
  auto& vm = **found;
  if (c.params.has("skiplock") && !c.who.is_root())
    return api_reply::param("skiplock", "Only root may use this option.");
  bool skiplock = c.who.is_root() && c.params.get_bool("skiplock").value_or(false);
  const int vmid = vm.vmid;
  auto upid =
      tasks_.start(vm.node, type, std::to_string(vmid), c.who, world_.duration(type),
                   [this, vmid, skiplock]() -> status {
                     auto* vm = world_.find_vm(vmid);
                     if (!vm)
                       return make_error("500", "VM " + std::to_string(vmid) + " does not exist");
                     if (!vm->lock().empty() && !skiplock && vm->lock() != "backup")
                       return make_error("500", "VM is locked (" + vm->lock() + ")");
                     power_off(*vm);  // stopping a stopped VM succeeds
                     return {};
                   });
  return api_reply::ok(upid);
}

}  // namespace kp::sim::pve
