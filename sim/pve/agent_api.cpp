// QEMU guest agent endpoints: ping, exec, exec-status, network interfaces. The agent answers
// once the simulated guest has booted (guest_fleet).
#include "sim/pve/guest_fleet.hpp"
#include "sim/pve/property_string.hpp"
#include "sim/pve/pve_world.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {
// The agent's preconditions, in Proxmox's order (Agent.pm).
result<vm_state*> agent_vm(pve_world& w, api_call& c) {
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

api_reply pve_world::post_agent_ping(api_call& c) {
  auto vm = agent_vm(*this, c);
  if (!vm) return reply_from(vm.error());
  return api_reply::ok(json::object{{"result", json::object{}}});
}

api_reply pve_world::post_agent_exec(api_call& c) {
  auto vm = agent_vm(*this, c);
  if (!vm) return reply_from(vm.error());
  auto argv = c.params.all("command");
  if (argv.empty())
    return api_reply::param("command", "property is missing and it is not optional");
  auto outcome = guests().exec((*vm)->vmid, argv);
  int pid = static_cast<int>(next_pid++);
  exec_result r;
  r.exitcode = outcome.exitcode;
  r.out = outcome.out;
  r.err = outcome.err;
  (*vm)->execs[pid] = r;
  return api_reply::ok(json::object{{"pid", pid}});
}

api_reply pve_world::get_agent_exec_status(api_call& c) {
  auto vm = agent_vm(*this, c);
  if (!vm) return reply_from(vm.error());
  auto pid_text = c.params.get("pid");
  if (!pid_text) return api_reply::param("pid", "property is missing and it is not optional");
  int pid = 0;
  try {
    pid = std::stoi(*pid_text);
  } catch (...) {
    return api_reply::param("pid", "type check ('integer') failed - got '" + *pid_text + "'");
  }
  auto it = (*vm)->execs.find(pid);
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

api_reply pve_world::get_agent_interfaces(api_call& c) {
  auto vm = agent_vm(*this, c);
  if (!vm) return reply_from(vm.error());
  json::array ifaces;
  ifaces.push_back(json::object{
      {"name", "lo"},
      {"hardware-address", "00:00:00:00:00:00"},
      {"ip-addresses",
       json::array{json::object{
           {"ip-address", "127.0.0.1"}, {"ip-address-type", "ipv4"}, {"prefix", 8}}}}});
  const auto* h = topo().find_host((*vm)->node);
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
