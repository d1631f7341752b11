// Node endpoints: the node list, a node's status (cpuinfo counts total cores), its network
// (bridges and ports, type filters) and the CPU models qemu offers.
#include "sim/pve/node_api.hpp"

#include <algorithm>

#include "sim/pve/api_router.hpp"
#include "sim/pve/number_text.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {
constexpr std::int64_t host_disk_total = 100ll << 30;  // the root filesystem of a host
constexpr std::int64_t host_disk_used = 12ll << 30;
}  // namespace

json::object node_entry(const world_model& world, const host_spec& h, bool resources_form) {
  const bool online = world.host_online(h.name);
  json::object o{{"id", "node/" + h.name}, {"type", "node"}, {"node", h.name}};
  o["status"] = online ? "online" : "offline";
  // The last RRD data of an offline host keeps its maxima until it expires.
  if (world.host_stats_fresh(h.name)) {
    if (online) {
      auto u = world.usage_of(h.name);
      o["cpu"] = u.cpu;
      o["mem"] = static_cast<std::int64_t>(u.mem);
      o["disk"] = host_disk_used;
      o["uptime"] = 864000;
    }
    o["level"] = "";
    o["maxcpu"] = h.logical_cpus();
    o["maxmem"] = static_cast<std::int64_t>(h.memory);
    o["maxdisk"] = host_disk_total;
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

void node_api::add_routes(api_router& router) {
  router.add("GET", "/nodes", [this](api_call& c) { return list(c); });
  router.add("GET", "/nodes/{node}/status", [this](api_call& c) { return status_of(c); });
  router.add("GET", "/nodes/{node}/network", [this](api_call& c) { return network(c); });
  router.add("GET", "/nodes/{node}/capabilities/qemu/cpu", [](api_call&) {
    json::array out;
    for (const char* m :
         {"host", "kvm64", "qemu64", "x86-64-v2", "x86-64-v2-AES", "x86-64-v3", "x86-64-v4", "max"})
      out.push_back(json::object{{"name", m}, {"vendor", "default"}, {"custom", 0}});
    return api_reply::ok(out);
  });
}

api_reply node_api::list(api_call&) {
  json::array out;
  for (const auto& h : world_.topo().hosts) out.push_back(node_entry(world_, h, false));
  return api_reply::ok(out);
}

api_reply node_api::status_of(api_call& c) {
  const auto& h = *world_.topo().find_host(c.path["node"]);
  auto u = world_.usage_of(h.name);
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
  const std::string& version = world_.topo().version;
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
      {"pveversion", "pve-manager/" + version + "/2a5fa54a"},
      {"rootfs", json::object{{"total", host_disk_total},
                              {"avail", host_disk_total - host_disk_used},
                              {"used", host_disk_used},
                              {"free", host_disk_total - host_disk_used}}}});
}

api_reply node_api::network(api_call& c) {
  const auto& h = *world_.topo().find_host(c.path["node"]);
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
      int prefix = 24;
      if (slash != std::string::npos)
        prefix = parse_number<int>(b.cidr.substr(slash + 1)).value_or(24);
      prefix = std::clamp(prefix, 0, 32);
      std::uint32_t mask = prefix == 0 ? 0 : ~0u << (32 - prefix);
      o["netmask"] = std::to_string(mask >> 24) + "." + std::to_string((mask >> 16) & 255) + "." +
                     std::to_string((mask >> 8) & 255) + "." + std::to_string(mask & 255);
    }
    if (!b.gateway.empty()) o["gateway"] = b.gateway;
    out.push_back(std::move(o));
  }
  return api_reply::ok(out);
}

}  // namespace kp::sim::pve
