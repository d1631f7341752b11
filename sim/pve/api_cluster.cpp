// Cluster-wide and host endpoints: version, cluster status and resources, nextid, nodes and
// their status and network, CPU models, pools.
#include <algorithm>

#include "sim/pve/property_string.hpp"
#include "sim/pve/pve_world.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {
constexpr std::int64_t host_disk_total = 100ll << 30;  // the root filesystem of a host
}

api_reply pve_world::get_version(api_call&) {
  auto dot = topo().version.rfind('.');
  return api_reply::ok(json::object{{"version", topo().version},
                                    {"release", topo().version.substr(0, dot)},
                                    {"repoid", "2a5fa54a"}});
}

api_reply pve_world::get_cluster_status(api_call&) {
  json::array out;
  out.push_back(json::object{{"type", "cluster"},
                             {"id", "cluster"},
                             {"name", topo().cluster_name},
                             {"nodes", static_cast<std::int64_t>(topo().hosts.size())},
                             {"quorate", 1},
                             {"version", 3}});
  int nodeid = 1;
  for (const auto& h : topo().hosts) {
    bool online = !faults().host_offline(h.name);
    std::string ip = h.bridges.empty()
                         ? "127.0.0.1"
                         : h.bridges.front().cidr.substr(0, h.bridges.front().cidr.find('/'));
    out.push_back(json::object{{"type", "node"},
                               {"id", "node/" + h.name},
                               {"name", h.name},
                               {"nodeid", nodeid},
                               {"ip", ip},
                               {"local", nodeid == 1 ? 1 : 0},
                               {"online", online ? 1 : 0},
                               {"level", ""}});
    ++nodeid;
  }
  return api_reply::ok(out);
}

namespace {
json::object node_entry(pve_world& w, const host_spec& h, bool resources_form) {
  bool online = !w.faults().host_offline(h.name);
  auto u = w.usage_of(h.name);
  json::object o{{"id", "node/" + h.name},
                 {"type", "node"},
                 {"node", h.name},
                 {"status", online ? "online" : "offline"},
                 {"maxcpu", h.logical_cpus()},
                 {"maxmem", static_cast<std::int64_t>(h.memory)},
                 {"maxdisk", host_disk_total},
                 {"level", ""}};
  if (online) {
    o["cpu"] = u.cpu;
    o["mem"] = static_cast<std::int64_t>(u.mem);
    o["disk"] = static_cast<std::int64_t>(12ll << 30);
    o["uptime"] = 864000;
  }
  if (resources_form) {
    o["cgroup-mode"] = 2;
  } else {
    o["ssl_fingerprint"] =
        "5E:1F:0A:7C:0D:1E:4C:2A:9B:3F:6A:7D:8E:9F:0A:1B:5E:1F:0A:7C:0D:1E:4C:2A:9B:3F:6A:7D:8E:9F:"
        "0A:1B";
  }
  return o;
}
}  // namespace

api_reply pve_world::get_nodes(api_call&) {
  json::array out;
  for (const auto& h : topo().hosts) out.push_back(node_entry(*this, h, false));
  return api_reply::ok(out);
}

api_reply pve_world::get_cluster_resources(api_call& c) {
  const std::string type = c.params.get_or("type", "");
  if (!type.empty() && type != "vm" && type != "node" && type != "storage" && type != "pool" &&
      type != "sdn")
    return api_reply::param(
        "type",
        "value '" + type + "' does not have a value in the enumeration 'vm, storage, node, sdn'");
  json::array out;
  if (type.empty() || type == "node")
    for (const auto& h : topo().hosts) out.push_back(node_entry(*this, h, true));
  if (type.empty() || type == "vm") {
    const auto lag = duration("rrd_lag");
    for (const auto& [id, vm] : vms) {
      json::object o{{"id", "qemu/" + std::to_string(id)},
                     {"type", "qemu"},
                     {"vmid", id},
                     {"node", vm.node},
                     {"name", vm.name()},
                     {"template", vm.is_template() ? 1 : 0}};
      if (!vm.pool.empty()) o["pool"] = vm.pool;
      if (!vm.lock().empty()) o["lock"] = vm.lock();
      if (auto t = vm.config.find("tags"); t != vm.config.end()) o["tags"] = t->second;
      // Stats arrive with pvestatd's RRD broadcast; until then the VM is "unknown".
      bool offline = faults().host_offline(vm.node).has_value();
      if (offline || sim_clock::now() - vm.created < lag) {
        o["status"] = "unknown";
      } else {
        const auto* h = topo().find_host(vm.node);
        std::int64_t maxmem = static_cast<std::int64_t>(vm_memory_mib(vm.config)) << 20;
        std::int64_t maxdisk = 0;
        for (const auto& [k, v] : vm.config)
          if (is_drive_key(k) && !is_cdrom(v) && k.rfind("unused", 0) != 0)
            maxdisk += static_cast<std::int64_t>(drive_size(v));
        o["status"] = vm.running ? "running" : "stopped";
        o["maxcpu"] = vm_cpus(vm.config, h ? h->logical_cpus() : 0);
        o["cpu"] = vm.running ? 0.1 : 0.0;
        o["maxmem"] = maxmem;
        o["mem"] = vm.running ? maxmem / 2 : 0;
        o["maxdisk"] = maxdisk;
        o["disk"] = 0;
        o["netin"] = 0;
        o["netout"] = 0;
        o["diskread"] = 0;
        o["diskwrite"] = 0;
        o["uptime"] =
            vm.running
                ? std::chrono::duration_cast<std::chrono::seconds>(sim_clock::now() - vm.started)
                      .count()
                : 0;
      }
      out.push_back(std::move(o));
    }
  }
  if (type.empty() || type == "storage") {
    for (const auto& h : topo().hosts) {
      for (const auto& sname : h.storages) {
        const auto* s = topo().find_storage(sname);
        bool up = !faults().storage_unreachable(h.name, sname) && !faults().host_offline(h.name);
        std::string content;
        for (const auto& ct : s->content) content += (content.empty() ? "" : ",") + ct;
        json::object o{{"id", "storage/" + h.name + "/" + sname},
                       {"type", "storage"},
                       {"storage", sname},
                       {"node", h.name},
                       {"plugintype", s->type},
                       {"status", up ? "available" : "unknown"},
                       {"shared", s->shared ? 1 : 0},
                       {"content", content}};
        if (up) {
          o["maxdisk"] = static_cast<std::int64_t>(s->size);
          o["disk"] = static_cast<std::int64_t>(s->size / 10);
        }
        out.push_back(std::move(o));
      }
    }
  }
  if (type.empty() || type == "pool") {
    for (const auto& [id, p] : pools)
      out.push_back(json::object{{"id", "/pool/" + id}, {"type", "pool"}, {"pool", id}});
  }
  return api_reply::ok(out);
}

api_reply pve_world::get_nextid(api_call& c) {
  if (auto wanted = c.params.get("vmid")) {
    int id = 0;
    try {
      id = std::stoi(*wanted);
    } catch (...) {
      return api_reply::param("vmid", "type check ('integer') failed - got '" + *wanted + "'");
    }
    if (id < 100) return api_reply::param("vmid", "value must have a minimum value of 100");
    if (vms.count(id))
      return api_reply::param("vmid", "VM " + std::to_string(id) + " already exists");
    return api_reply::ok(std::to_string(id));
  }
  return api_reply::ok(std::to_string(next_free_vmid()));
}

api_reply pve_world::get_node_status(api_call& c) {
  const auto& h = *topo().find_host(c.path["node"]);
  auto u = usage_of(h.name);
  json::object cpuinfo{
      {"model", h.cpu_model},
      {"mhz", "3200.000"},
      {"cpus", h.logical_cpus()},
      {"sockets", h.sockets},
      {"cores", h.sockets * h.cores},  // total physical cores, not per socket
      {"flags",
       "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr "
       "sse sse2 ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology cpuid pni "
       "pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand "
       "hypervisor lahf_lm abm 3dnowprefetch avx2 bmi1 bmi2 avx512f"},
      {"hvm", "1"},
      {"user_hz", 100}};
  std::int64_t total = static_cast<std::int64_t>(h.memory);
  std::int64_t used = static_cast<std::int64_t>(u.mem);
  return api_reply::ok(json::object{
      {"uptime", 864000},
      {"idle", 0},
      {"loadavg", json::array{"0.15", "0.25", "0.30"}},
      {"kversion", "Linux 6.8.12-4-pve #1 SMP PREEMPT_DYNAMIC PMX 6.8.12-4 (2024-11-06T15:04Z)"},
      {"current-kernel",
       json::object{{"sysname", "Linux"},
                    {"release", "6.8.12-4-pve"},
                    {"version", "#1 SMP PREEMPT_DYNAMIC PMX 6.8.12-4 (2024-11-06T15:04Z)"},
                    {"machine", "x86_64"}}},
      {"boot-info", json::object{{"mode", "efi"}, {"secureboot", 0}}},
      {"cpuinfo", cpuinfo},
      {"cpu", u.cpu},
      {"wait", 0},
      {"memory", json::object{{"total", total}, {"used", used}, {"free", total - used}}},
      {"ksm", json::object{{"shared", 0}}},
      {"swap", json::object{{"total", 8ll << 30}, {"used", 0}, {"free", 8ll << 30}}},
      {"pveversion", "pve-manager/" + topo().version + "/2a5fa54a"},
      {"rootfs", json::object{{"total", host_disk_total},
                              {"avail", host_disk_total - (12ll << 30)},
                              {"used", 12ll << 30},
                              {"free", host_disk_total - (12ll << 30)}}}});
}

api_reply pve_world::get_node_network(api_call& c) {
  const auto& h = *topo().find_host(c.path["node"]);
  const std::string type = c.params.get_or("type", "");
  json::array out;
  bool want_bridges = type.empty() || type == "bridge" || type == "any_bridge";
  bool want_eth = type.empty() || type == "eth";
  int port = 0;
  for (const auto& b : h.bridges) {
    std::string phys = "eno" + std::to_string(++port);
    if (want_eth)
      out.push_back(json::object{{"iface", phys},
                                 {"type", "eth"},
                                 {"active", 1},
                                 {"exists", 1},
                                 {"method", "manual"},
                                 {"families", json::array{"inet"}},
                                 {"priority", port}});
    if (!want_bridges) continue;
    json::object o{{"iface", b.name},
                   {"type", "bridge"},
                   {"active", 1},
                   {"autostart", 1},
                   {"bridge_ports", phys},
                   {"bridge_stp", "off"},
                   {"bridge_fd", "0"},
                   {"method", b.cidr.empty() ? "manual" : "static"},
                   {"families", json::array{"inet"}},
                   {"priority", 10 + port}};
    if (!b.cidr.empty()) {
      o["cidr"] = b.cidr;
      auto slash = b.cidr.find('/');
      o["address"] = b.cidr.substr(0, slash);
      int prefix = slash == std::string::npos ? 24 : std::stoi(b.cidr.substr(slash + 1));
      std::uint32_t mask = prefix == 0 ? 0 : ~0u << (32 - prefix);
      o["netmask"] = std::to_string(mask >> 24) + "." + std::to_string((mask >> 16) & 255) + "." +
                     std::to_string((mask >> 8) & 255) + "." + std::to_string(mask & 255);
    }
    if (!b.gateway.empty()) o["gateway"] = b.gateway;
    out.push_back(std::move(o));
  }
  return api_reply::ok(out);
}

api_reply pve_world::get_cpu_capabilities(api_call&) {
  json::array out;
  for (const char* m :
       {"host", "kvm64", "qemu64", "x86-64-v2", "x86-64-v2-AES", "x86-64-v3", "x86-64-v4", "max"})
    out.push_back(json::object{{"name", m}, {"vendor", "default"}, {"custom", 0}});
  return api_reply::ok(out);
}

// --- pools -----------------------------------------------------------------------------------

namespace {
json::array pool_members(pve_world& w, const pool_state& p) {
  json::array members;
  for (int id : p.vms) {
    auto* vm = w.find_vm(id);
    if (!vm) continue;
    members.push_back(json::object{{"id", "qemu/" + std::to_string(id)},
                                   {"type", "qemu"},
                                   {"vmid", id},
                                   {"node", vm->node},
                                   {"name", vm->name()},
                                   {"status", vm->running ? "running" : "stopped"},
                                   {"template", vm->is_template() ? 1 : 0}});
  }
  return members;
}
}  // namespace

api_reply pve_world::get_pools(api_call& c) {
  json::array out;
  auto only = c.params.get("poolid");
  for (const auto& [id, p] : pools) {
    if (only && *only != id) continue;
    json::object o{{"poolid", id}};
    if (!p.comment.empty()) o["comment"] = p.comment;
    if (only) o["members"] = pool_members(*this, p);
    out.push_back(std::move(o));
  }
  return api_reply::ok(out);
}

api_reply pve_world::post_pool(api_call& c) {
  auto id = c.params.get("poolid");
  if (!id) return api_reply::param("poolid", "property is missing and it is not optional");
  if (pools.count(*id)) return api_reply::fail(500, "pool '" + *id + "' already exists");
  pools[*id].comment = c.params.get_or("comment", "");
  return api_reply::ok(nullptr);
}

api_reply pve_world::get_pool(api_call& c) {
  auto it = pools.find(c.path["poolid"]);
  if (it == pools.end())
    return api_reply::fail(500, "pool '" + c.path["poolid"] + "' does not exist");
  json::object o{{"members", pool_members(*this, it->second)}};
  if (!it->second.comment.empty()) o["comment"] = it->second.comment;
  return api_reply::ok(o);
}

api_reply pve_world::put_pool(api_call& c) {
  auto it = pools.find(c.path["poolid"]);
  if (it == pools.end())
    return api_reply::fail(500, "pool '" + c.path["poolid"] + "' does not exist");
  if (auto comment = c.params.get("comment")) it->second.comment = *comment;
  bool remove = c.params.get_bool("delete").value_or(false);
  bool allow_move = c.params.get_bool("allow-move").value_or(false);
  for (const auto& list : c.params.all("vms")) {
    auto ids = parse_cpu_list(list, ",; ");
    if (!ids)
      return api_reply::param("vms", "invalid format - value does not look like a valid VM ID");
    for (int id : *ids) {
      auto* vm = find_vm(id);
      if (!vm) return api_reply::fail(500, "no such VM ID '" + std::to_string(id) + "'");
      if (remove) {
        it->second.vms.erase(id);
        if (vm->pool == it->first) vm->pool.clear();
        continue;
      }
      if (!vm->pool.empty() && vm->pool != it->first) {
        if (!allow_move)
          return api_reply::fail(500, "VM " + std::to_string(id) + " is already a pool member");
        pools[vm->pool].vms.erase(id);
      }
      it->second.vms.insert(id);
      vm->pool = it->first;
    }
  }
  return api_reply::ok(nullptr);
}

api_reply pve_world::delete_pool(api_call& c) {
  auto it = pools.find(c.path["poolid"]);
  if (it == pools.end())
    return api_reply::fail(500, "pool '" + c.path["poolid"] + "' does not exist");
  if (!it->second.vms.empty()) return api_reply::fail(500, "pool '" + it->first + "' is not empty");
  pools.erase(it);
  return api_reply::ok(nullptr);
}

}  // namespace kp::sim::pve
