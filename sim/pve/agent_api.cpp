// QEMU guest agent endpoints: ping, exec, exec-status, network interfaces.
#include "sim/pve/agent_api.hpp"

#include "sim/pve/api_router.hpp"
#include "sim/pve/guest_fleet.hpp"
#include "sim/pve/parameter_checks.hpp"
#include "sim/pve/property_string.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {
// The agent's preconditions, in Proxmox's order (Agent.pm).
result<vm_state*> agent_vm(world_model& w, api_call& c) {
  auto found = w.vm_on_node(c.path["node"], c.path["vmid"]);
  if (!found) return found.error();
  auto* vm = *found;
  auto a = vm->config.find("agent");
  if (a == vm->config.end() || property_value(a->second, "enabled", "enabled") != "1")
    return make_error("500", "No QEMU guest agent configured");
  if (!vm->running) return make_error("500", "VM " + std::to_string(vm->vmid) + " is not running");
  if (!w.guests().agent_running(vm->vmid))
    return make_error("500", "QEMU guest agent is not running");
  return vm;
}
}  // namespace

void agent_api::add_routes(api_router& router) {
  router.add("POST", "/nodes/{node}/qemu/{vmid}/agent/ping",
             [this](api_call& c) { return post_agent_ping(c); });
  router.add("POST", "/nodes/{node}/qemu/{vmid}/agent/exec",
             [this](api_call& c) { return post_agent_exec(c); });
  router.add("GET", "/nodes/{node}/qemu/{vmid}/agent/exec-status",
             [this](api_call& c) { return get_agent_exec_status(c); });
  router.add("GET", "/nodes/{node}/qemu/{vmid}/agent/network-get-interfaces",
             [this](api_call& c) { return get_agent_interfaces(c); });
}

api_reply agent_api::post_agent_ping(api_call& c) {
  auto vm = agent_vm(world_, c);
  if (!vm) return reply_from(vm.error());
  return api_reply::ok(json::object{{"result", json::object{}}});
}

api_reply agent_api::post_agent_exec(api_call& c) {
  auto vm = agent_vm(world_, c);
  if (!vm) return reply_from(vm.error());
  auto argv = c.params.all("command");
  if (argv.empty()) return api_reply::param("command", property_missing);
  auto outcome = world_.guests().exec((*vm)->vmid, argv);
  int pid = static_cast<int>(world_.take_pid());
  exec_result r;
  r.exitcode = outcome.exitcode;
  r.out = outcome.out;
  r.err = outcome.err;
  (*vm)->execs[pid] = r;
  return api_reply::ok(json::object{{"pid", pid}});
}

api_reply agent_api::get_agent_exec_status(api_call& c) {
  auto pid_text = c.params.get("pid");
  if (!pid_text) return api_reply::param("pid", property_missing);
  auto pid_number = check_integer("pid", *pid_text);
  if (!pid_number) return reply_from(pid_number.error());
  auto vm = agent_vm(world_, c);
  if (!vm) return reply_from(vm.error());
  const std::int64_t pid = *pid_number;
  auto it =
      pid < 0 || pid > INT32_MAX ? (*vm)->execs.end() : (*vm)->execs.find(static_cast<int>(pid));
  if (it == (*vm)->execs.end())
    return api_reply::fail(500,
                           "Agent error: GuestExecStatus: no such process " + std::to_string(pid));
  json::object o{{"exited", it->second.exited ? 1 : 0}};
  if (it->second.exited) {
    o["exitcode"] = it->second.exitcode;
    if (!it->second.out.empty()) o["out-data"] = it->second.out;
    if (!it->second.err.empty()) o["err-data"] = it->second.err;
  }
  return api_reply::ok(o);
}

api_reply agent_api::get_agent_interfaces(api_call& c) {
  auto vm = agent_vm(world_, c);
  if (!vm) return reply_from(vm.error());
  json::array ifaces;
  ifaces.push_back(json::object{
      {"name", "lo"},
      {"hardware-address", "00:00:00:00:00:00"},
      {"ip-addresses",
       json::array{json::object{
           {"ip-address", "127.0.0.1"}, {"ip-address-type", "ipv4"}, {"prefix", 8}}}}});
  const auto* h = world_.topo().find_host((*vm)->node);
  std::string subnet = "192.168.10.";
  if (h && !h->bridges.empty()) {
    auto cidr = h->bridges.front().cidr;
    subnet = cidr.substr(0, cidr.rfind('.') + 1);
  }
  auto net0 = (*vm)->config.count("net0") ? (*vm)->config["net0"] : "";
  auto model = property_value(net0, "model", "model");
  auto mac = model.find('=') == std::string::npos ? "" : model.substr(model.find('=') + 1);
  std::string ip = subnet + std::to_string(100 + (*vm)->vmid % 150);
  ifaces.push_back(json::object{
      {"name", "eth0"},
      {"hardware-address", mac},
      {"ip-addresses", json::array{json::object{
                           {"ip-address", ip}, {"ip-address-type", "ipv4"}, {"prefix", 24}}}}});
  return api_reply::ok(json::object{{"result", ifaces}});
}

}  // namespace kp::sim::pve
