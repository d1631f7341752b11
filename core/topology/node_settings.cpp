#include "core/topology/node_settings.hpp"

#include <algorithm>
#include <charconv>
#include <set>

namespace kp::topology {
namespace {

// Bounds that catch a typo (an extra digit, bytes where a count belongs) without limiting any
// real host.
constexpr std::int64_t max_sockets = 64;
constexpr std::int64_t max_cores = 4096;
constexpr std::int64_t max_threads = 8;

std::string where(std::string_view origin, int line, const host_settings& h) {
  std::string s(origin);
  if (line > 0) s += (s.empty() ? "line " : " line ") + std::to_string(line);
  if (!s.empty()) s += ": ";
  s += h.region + "/" + h.host + ": ";
  return s;
}

kp::error invalid(std::string_view origin, int line, const host_settings& h,
                  const std::string& what) {
  return make_error("invalid_node_settings", where(origin, line, h) + what);
}

status check_count(std::string_view origin, const host_settings& h, std::string_view field,
                   const std::optional<located<std::int64_t>>& v, std::int64_t max) {
  if (!v) return {};
  if (v->value < 0 || v->value > max) {
    return invalid(origin, v->line, h,
                   std::string(field) + " " + std::to_string(v->value) + ": must be 0 to " +
                       std::to_string(max));
  }
  return {};
}

result<int> numa_id(std::string_view origin, const host_settings& h, const numa_node_setting& n) {
  int id = -1;
  auto [end, ec] = std::from_chars(n.id.data(), n.id.data() + n.id.size(), id);
  if (ec != std::errc() || end != n.id.data() + n.id.size() || id < 0 || id > 1023) {
    return invalid(origin, n.line, h,
                   "nodes key \"" + n.id + "\": a NUMA node id must be an integer 0 to 1023");
  }
  return id;
}

// The NUMA nodes an entry lists, parsed and checked (ids distinct, CPU lists non-empty and
// disjoint, memory not negative); memory 0 when the file leaves it out.
result<std::vector<placement::numa_node>> parse_numa_nodes(std::string_view origin,
                                                           const host_settings& h) {
  std::vector<placement::numa_node> out;
  std::set<int> ids;
  placement::cpu_set seen;
  for (const auto& n : h.numa_nodes) {
    auto id = numa_id(origin, h, n);
    if (!id) return id.error();
    if (!ids.insert(*id).second) {
      return invalid(origin, n.line, h, "nodes." + n.id + ": NUMA node listed twice");
    }
    if (!n.cpus || n.cpus->value.empty()) {
      return invalid(origin, n.cpus ? n.cpus->line : n.line, h,
                     "nodes." + n.id + ".cpus: missing; list the node's CPUs, e.g. \"0-7,16-23\"");
    }
    auto cpus = placement::cpu_set::parse(n.cpus->value);
    if (!cpus) {
      return invalid(origin, n.cpus->line, h,
                     "nodes." + n.id + ".cpus \"" + n.cpus->value + "\": " + cpus.error().message);
    }
    if (cpus->empty()) {
      return invalid(origin, n.cpus->line, h, "nodes." + n.id + ".cpus: no CPU listed");
    }
    if (cpus->intersects(seen)) {
      return invalid(origin, n.cpus->line, h,
                     "nodes." + n.id + ".cpus \"" + n.cpus->value + "\": CPUs " +
                         (*cpus & seen).to_string() + " already belong to another NUMA node");
    }
    seen = seen | *cpus;
    placement::numa_node node;
    node.id = *id;
    node.cpus = *cpus;
    if (n.memory_bytes) {
      if (n.memory_bytes->value < 0) {
        return invalid(origin, n.memory_bytes->line, h,
                       "nodes." + n.id + ".memsize " + std::to_string(n.memory_bytes->value) +
                           ": must not be negative");
      }
      node.memory_bytes = n.memory_bytes->value;
    }
    out.push_back(std::move(node));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

result<placement::cpu_set> parse_reserved(std::string_view origin, const host_settings& h) {
  if (!h.reserved_cpus) return placement::cpu_set{};
  auto cpus = placement::cpu_set::parse(h.reserved_cpus->value);
  if (!cpus) {
    return invalid(origin, h.reserved_cpus->line, h,
                   "reservedcpus \"" + h.reserved_cpus->value + "\": " + cpus.error().message);
  }
  return *cpus;
}

// Fields checked without knowing the host: counts, sizes, CPU lists.
status check_entry(std::string_view origin, const host_settings& h) {
  if (auto s = check_count(origin, h, "sockets", h.sockets, max_sockets); !s) return s;
  if (auto s = check_count(origin, h, "cores", h.cores, max_cores); !s) return s;
  if (auto s = check_count(origin, h, "threads", h.threads, max_threads); !s) return s;
  if (auto s = check_count(origin, h, "uncorecaches", h.uncore_caches, max_cores); !s) return s;
  if (h.reserved_memory_bytes && h.reserved_memory_bytes->value < 0) {
    return invalid(origin, h.reserved_memory_bytes->line, h,
                   "reservedmemory " + std::to_string(h.reserved_memory_bytes->value) +
                       ": must not be negative");
  }
  auto reserved = parse_reserved(origin, h);
  if (!reserved) return reserved.error();
  auto nodes = parse_numa_nodes(origin, h);
  if (!nodes) return nodes.error();
  if (!nodes->empty()) {
    placement::cpu_set all;
    for (const auto& n : *nodes) all = all | n.cpus;
    if (!(*reserved - all).empty()) {
      return invalid(origin, h.reserved_cpus->line, h,
                     "reservedcpus: CPUs " + (*reserved - all).to_string() +
                         " are in none of the listed NUMA nodes");
    }
    if (h.sockets && h.cores && h.threads && h.sockets->value > 0 && h.cores->value > 0 &&
        h.threads->value > 0) {
      std::int64_t expected = h.sockets->value * h.cores->value * h.threads->value;
      if (expected != all.size()) {
        return invalid(origin, h.line, h,
                       "sockets x cores x threads = " + std::to_string(expected) +
                           " CPUs, but the NUMA nodes list " + std::to_string(all.size()));
      }
    }
  }
  return {};
}

bool set_nonzero(const std::optional<located<std::int64_t>>& v, int& target) {
  if (!v || v->value == 0) return false;
  target = static_cast<int>(v->value);
  return true;
}

}  // namespace

status validate_node_settings(const node_settings_file& file) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& h : file.hosts) {
    if (h.host.empty()) return invalid(file.origin, h.line, h, "empty host name");
    if (!seen.insert({h.region, h.host}).second) {
      return invalid(file.origin, h.line, h, "host listed twice in the region");
    }
    if (auto s = check_entry(file.origin, h); !s) return s;
  }
  return {};
}

const host_settings* find_host_settings(const node_settings_file& file, std::string_view region,
                                        std::string_view host) {
  const host_settings* wildcard = nullptr;
  for (const auto& h : file.hosts) {
    if (h.region != region) continue;
    if (h.host == host) return &h;
    if (h.host == "*") wildcard = &h;
  }
  return wildcard;
}

result<placement::host_topology> apply_host_settings(const placement::host_topology& discovered,
                                                     const host_settings& settings,
                                                     std::string_view origin) {
  if (auto s = check_entry(origin, settings); !s) return s.error();
  placement::host_topology t = discovered;
  bool shape_changed = false;
  auto nodes = parse_numa_nodes(origin, settings);
  if (!nodes) return nodes.error();
  if (!nodes->empty()) {
    // Memory the file leaves out: the discovered total, split evenly (as the prediction does).
    std::int64_t share = discovered.total_memory() / static_cast<std::int64_t>(nodes->size());
    for (auto& n : *nodes) {
      if (n.memory_bytes == 0) n.memory_bytes = share;
    }
    t.numa_nodes = std::move(*nodes);
    shape_changed = true;
  }
  shape_changed |= set_nonzero(settings.sockets, t.sockets);
  shape_changed |= set_nonzero(settings.threads, t.threads_per_core);
  bool cores_given = set_nonzero(settings.cores, t.cores_per_socket);
  shape_changed |= cores_given;
  if (shape_changed) {
    int cpus = t.total_cpus();
    int per_core = t.sockets * t.threads_per_core;
    if (!cores_given) {
      // The Go provider's file has no per-socket core count in its docs: derive it.
      if (per_core <= 0 || cpus % per_core != 0 || cpus == 0) {
        return invalid(origin, settings.line, settings,
                       std::to_string(cpus) + " CPUs do not divide into " +
                           std::to_string(t.sockets) + " sockets x " +
                           std::to_string(t.threads_per_core) +
                           " threads; set \"cores\" (physical cores per socket)");
      }
      t.cores_per_socket = cpus / per_core;
    } else if (t.sockets * t.cores_per_socket * t.threads_per_core != cpus) {
      return invalid(origin, settings.line, settings,
                     "sockets x cores x threads = " +
                         std::to_string(t.sockets * t.cores_per_socket * t.threads_per_core) +
                         " CPUs, but the host has " + std::to_string(cpus));
    }
  }
  if (settings.reserved_cpus) {
    auto reserved = parse_reserved(origin, settings);
    if (!reserved) return reserved.error();
    placement::cpu_set outside = *reserved - t.all_cpus();
    if (!outside.empty()) {
      return invalid(origin, settings.reserved_cpus->line, settings,
                     "reservedcpus: CPUs " + outside.to_string() + " do not exist on the host (" +
                         t.all_cpus().to_string() + ")");
    }
    t.reserved_cpus = *reserved;
  }
  // Unlike counts, an explicit reservedmemory of 0 means "reserve nothing".
  if (settings.reserved_memory_bytes)
    t.reserved_memory_bytes = settings.reserved_memory_bytes->value;
  return t;
}

result<placement::host_topology> topology_for_host(const node_settings_file& file,
                                                   std::string_view region, std::string_view host,
                                                   const placement::host_topology& discovered) {
  const host_settings* s = find_host_settings(file, region, host);
  if (s == nullptr) return discovered;
  return apply_host_settings(discovered, *s, file.origin);
}

}  // namespace kp::topology
