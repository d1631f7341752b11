#include "core/placement/cpu_pinning.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace kp::placement {

namespace {

// Takes `count` CPUs from `free` (all on one NUMA node): whole cores first, then hole-filling.
cpu_set take_cpus(const host_topology& topology, const cpu_set& free, const cpu_set& node_cpus,
                  int count) {
  std::map<int, std::vector<int>> free_by_core;  // physical core -> its free CPUs
  std::map<int, int> size_by_core;               // physical core -> all its CPUs on this node
  for (int cpu : node_cpus.members()) {
    int core = topology.physical_core_of(cpu);
    ++size_by_core[core];
    if (free.contains(cpu)) free_by_core[core].push_back(cpu);
  }
  cpu_set chosen;
  // Whole cores, ascending, while at least a whole core is still wanted.
  for (auto& [core, cpus] : free_by_core) {
    if (count <= 0) break;
    if (static_cast<int>(cpus.size()) == size_by_core[core] &&
        static_cast<int>(cpus.size()) <= count) {
      for (int cpu : cpus) chosen.insert(cpu);
      count -= static_cast<int>(cpus.size());
      cpus.clear();
    }
  }
  // Then threads: cores already partly used first, then the rest, ascending.
  std::vector<int> partial, rest;
  for (auto& [core, cpus] : free_by_core) {
    bool partly_used = static_cast<int>(cpus.size()) < size_by_core[core];
    for (int cpu : cpus) (partly_used ? partial : rest).push_back(cpu);
  }
  for (auto* list : {&partial, &rest}) {
    for (int cpu : *list) {
      if (count <= 0) break;
      chosen.insert(cpu);
      --count;
    }
  }
  return chosen;
}

constexpr std::int64_t mib = std::int64_t{1} << 20;

}  // namespace

std::optional<pinning> choose_pinning(const host_state& host, int vcpus,
                                      std::int64_t memory_bytes) {
  if (vcpus <= 0 || host.free_cpus() < vcpus || host.free_memory() < memory_bytes)
    return std::nullopt;
  const auto& topology = host.topology();
  const cpu_set free = host.unpinned_cpus();

  struct node_room {
    std::size_t index;
    cpu_set free_cpus;
    std::int64_t free_memory;
  };
  std::vector<node_room> rooms;
  for (std::size_t i = 0; i < topology.numa_nodes.size(); ++i) {
    rooms.push_back({i, free & topology.numa_nodes[i].cpus, host.numa_free_memory(i)});
  }

  // 1. The fullest single node that fits.
  const node_room* best = nullptr;
  for (const auto& room : rooms) {
    if (room.free_cpus.size() < vcpus || room.free_memory < memory_bytes) continue;
    if (!best || room.free_cpus.size() < best->free_cpus.size()) best = &room;
  }
  if (best) {
    const auto& node = topology.numa_nodes[best->index];
    pinning p;
    p.cpus = take_cpus(topology, best->free_cpus, node.cpus, vcpus);
    p.numa.push_back({0, vcpus - 1, node.id, memory_bytes});
    return p;
  }

  // 3. Span nodes, emptiest first; memory follows the vCPUs, in whole MiB.
  std::vector<const node_room*> order;
  for (const auto& room : rooms) {
    if (!room.free_cpus.empty()) order.push_back(&room);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](auto* a, auto* b) { return a->free_cpus.size() > b->free_cpus.size(); });
  pinning p;
  int remaining = vcpus;
  int next_guest_cpu = 0;
  std::int64_t memory_left = memory_bytes;
  for (const auto* room : order) {
    if (remaining == 0) break;
    int take = std::min(remaining, room->free_cpus.size());
    const auto& node = topology.numa_nodes[room->index];
    bool last = take == remaining;
    std::int64_t share = last ? memory_left : (memory_bytes / mib * take / vcpus) * mib;
    if (share > room->free_memory) return std::nullopt;
    p.cpus = p.cpus | take_cpus(topology, room->free_cpus, node.cpus, take);
    p.numa.push_back({next_guest_cpu, next_guest_cpu + take - 1, node.id, share});
    next_guest_cpu += take;
    remaining -= take;
    memory_left -= share;
  }
  if (remaining > 0) return std::nullopt;
  return p;
}

}  // namespace kp::placement
