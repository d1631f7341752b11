// Cluster endpoints: version, cluster status, resources and nextid.
#include "sim/pve/cluster_api.hpp"

#include <algorithm>

#include "sim/pve/api_router.hpp"
#include "sim/pve/node_api.hpp"
#include "sim/pve/parameter_checks.hpp"
#include "sim/pve/pool_api.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {

std::int64_t vm_max_disk(const vm_state& vm) {
  std::int64_t maxdisk = 0;
  for (const auto& [k, v] : vm.config)
    if (is_drive_key(k) && !is_cdrom(v) && k.rfind("unused", 0) != 0)
      maxdisk += static_cast<std::int64_t>(drive_size(v));
  return maxdisk;
}

// A VM as /cluster/resources lists it. Without RRD data (a new VM before pvestatd's broadcast,
// or a host offline for longer than the RRD expiry) only its identity and "unknown" remain,
// except for the name and template flag of a new VM unless the topology is strict_rrd.
json::object vm_entry(const world_model& world, const vm_state& vm) {
  json::object o{{"id", "qemu/" + std::to_string(vm.vmid)},
                 {"vmid", vm.vmid},
                 {"node", vm.node},
                 {"type", "qemu"},
                 {"status", "unknown"}};
  if (world.vm_has_stats(vm)) {
    const auto* h = world.topo().find_host(vm.node);
    std::int64_t maxmem = static_cast<std::int64_t>(vm_memory_mib(vm.config)) << 20;
    o["uptime"] =
        vm.running ? std::chrono::duration_cast<std::chrono::seconds>(sim_clock::now() - vm.started)
                         .count()
                   : 0;
    o["name"] = vm.name();
    o["status"] = vm.running ? "running" : "stopped";
    o["template"] = vm.is_template() ? 1 : 0;
    o["maxcpu"] = vm_cpus(vm.config, h ? h->logical_cpus() : 0);
    o["cpu"] = vm.running ? 0.1 : 0.0;
    o["maxmem"] = maxmem;
    o["mem"] = vm.running ? maxmem / 2 : 0;
    o["maxdisk"] = vm_max_disk(vm);
    o["disk"] = 0;
    o["netin"] = 0;
    o["netout"] = 0;
    o["diskread"] = 0;
    o["diskwrite"] = 0;
  } else if (!world.topo().strict_rrd && world.host_stats_fresh(vm.node)) {
    o["name"] = vm.name();
    o["template"] = vm.is_template() ? 1 : 0;
  }
  // The pool comes from user.cfg and lock and tags from the config file, RRD or not.
  if (!vm.pool.empty()) o["pool"] = vm.pool;
  if (!vm.lock().empty()) o["lock"] = vm.lock();
  if (auto t = vm.config.find("tags"); t != vm.config.end()) o["tags"] = t->second;
  return o;
}

}  // namespace

void cluster_api::add_routes(api_router& router) {
  router.add("GET", "/version", [this](api_call& c) { return version(c); });
  router.add("GET", "/cluster/status", [this](api_call& c) { return status(c); });
  router.add("GET", "/cluster/resources", [this](api_call& c) { return resources(c); });
  router.add("GET", "/cluster/nextid", [this](api_call& c) { return nextid(c); });
}

api_reply cluster_api::version(api_call&) {
  const auto& v = world_.topo().version;
  return api_reply::ok(
      json::object{{"version", v}, {"release", v.substr(0, v.rfind('.'))}, {"repoid", "2a5fa54a"}});
}

api_reply cluster_api::status(api_call&) {
  const auto& topo = world_.topo();
  json::array out;
  out.push_back(json::object{{"type", "cluster"},
                             {"id", "cluster"},
                             {"name", topo.cluster_name},
                             {"nodes", static_cast<std::int64_t>(topo.hosts.size())},
                             {"quorate", 1},
                             {"version", 3}});
  int nodeid = 1;
  for (const auto& h : topo.hosts) {
    std::string ip = h.bridges.empty()
                         ? "127.0.0.1"
                         : h.bridges.front().cidr.substr(0, h.bridges.front().cidr.find('/'));
    out.push_back(json::object{{"type", "node"},
                               {"id", "node/" + h.name},
                               {"name", h.name},
                               {"nodeid", nodeid},
                               {"ip", ip},
                               {"local", nodeid == 1 ? 1 : 0},
                               {"online", world_.host_online(h.name) ? 1 : 0},
                               {"level", ""}});
    ++nodeid;
  }
  return api_reply::ok(out);
}

// Pools, then VMs, then nodes, then storages: the order pve-manager builds the list in.
api_reply cluster_api::resources(api_call& c) {
  const std::string type = c.params.get_or("type", "");
  if (!type.empty() && type != "vm" && type != "node" && type != "storage" && type != "pool" &&
      type != "sdn")
    return api_reply::param(
        "type",
        "value '" + type + "' does not have a value in the enumeration 'vm, storage, node, sdn'");
  const auto& topo = world_.topo();
  json::array out;
  if (type.empty() || type == "pool")
    for (const auto& id : pools_.ids())
      out.push_back(json::object{{"id", "/pool/" + id}, {"pool", id}, {"type", "pool"}});
  if (type.empty() || type == "vm")
    for (const auto& [id, vm] : world_.vms) out.push_back(vm_entry(world_, vm));
  if (type.empty() || type == "node")
    for (const auto& h : topo.hosts) out.push_back(node_entry(world_, h, true));
  if (type.empty() || type == "storage") {
    for (const auto& h : topo.hosts) {
      for (const auto& sname : h.storages) {
        const auto* s = topo.find_storage(sname);
        bool up =
            !world_.faults().storage_unreachable(h.name, sname) && world_.host_stats_fresh(h.name);
        std::string content;
        for (const auto& ct : s->content) content += (content.empty() ? "" : ",") + ct;
        json::object o{{"id", "storage/" + h.name + "/" + sname},
                       {"storage", sname},
                       {"node", h.name},
                       {"type", "storage"},
                       {"plugintype", s->type},
                       {"status", up ? "available" : "unknown"},
                       {"shared", s->shared ? 1 : 0},
                       {"content", content}};
        if (up) {
          o["maxdisk"] = static_cast<std::int64_t>(s->size);
          o["disk"] =
              static_cast<std::int64_t>(std::min(s->size, world_.storage_used(h.name, sname)));
        }
        out.push_back(std::move(o));
      }
    }
  }
  return api_reply::ok(out);
}

api_reply cluster_api::nextid(api_call& c) {
  if (auto wanted = c.params.get("vmid")) {
    auto id = check_vmid("vmid", *wanted);
    if (!id) return reply_from(id.error());
    if (world_.vms.count(*id))
      return api_reply::param("vmid", "VM " + std::to_string(*id) + " already exists");
    return api_reply::ok(std::to_string(*id));
  }
  return api_reply::ok(std::to_string(world_.next_free_vmid()));
}

}  // namespace kp::sim::pve
