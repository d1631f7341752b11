#include "core/placement/strategy.hpp"

#include <algorithm>
#include <array>

namespace kp::placement {

namespace {

struct strategy_name {
  std::string_view crd;
  std::string_view kproximate;
  strategy value;
};

constexpr std::array<strategy_name, 7> names{{
    {"Balanced", "balanced", strategy::balanced},
    {"AvailabilityFirst", "", strategy::availability_first},
    {"Spread", "spread", strategy::spread},
    {"MaxMemory", "max-memory", strategy::max_memory},
    {"MaxCPU", "max-cpu", strategy::max_cpu},
    {"RoundRobin", "round-robin", strategy::round_robin},
    {"Pack", "", strategy::pack},
}};

bool contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

std::uint64_t next_random(std::uint64_t& state) {
  // splitmix64: small, seedable, and the same on every platform.
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::string gib(std::int64_t bytes) {
  auto tenths = bytes * 10 / (std::int64_t{1} << 30);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "GiB";
}

}  // namespace

result<strategy> parse_strategy(std::string_view text) {
  for (const auto& n : names) {
    if (text == n.crd || (!n.kproximate.empty() && text == n.kproximate)) return n.value;
  }
  return make_error("invalid_placement_strategy",
                    "unknown placement strategy \"" + std::string(text) +
                        "\"; allowed: Balanced, AvailabilityFirst, Spread, MaxMemory, MaxCPU, "
                        "RoundRobin, Pack");
}

std::string_view to_string(strategy s) {
  for (const auto& n : names) {
    if (n.value == s) return n.crd;
  }
  return "Balanced";
}

namespace {

// The reason as a code, so ranking thousands of hosts builds no strings.
enum class verdict {
  eligible,
  offline,
  excluded,
  not_allowed,
  cpu,
  memory,
  min_free_cpu,
  min_free_memory,
  pci
};

verdict judge(const host_state& host, const vm_request& vm, const host_filter& filter) {
  if (!host.online) return verdict::offline;
  if (!filter.excluded_hosts.empty() && contains(filter.excluded_hosts, host.name()))
    return verdict::excluded;
  if (!filter.allowed_hosts.empty() && !contains(filter.allowed_hosts, host.name()))
    return verdict::not_allowed;
  int free_cpus = host.free_cpus();
  std::int64_t free_memory = host.free_memory();
  if (free_cpus < vm.vcpus) return verdict::cpu;
  if (free_memory < vm.memory_bytes) return verdict::memory;
  if (free_cpus - vm.vcpus < filter.min_free_cpu) return verdict::min_free_cpu;
  if (free_memory - vm.memory_bytes < filter.min_free_memory) return verdict::min_free_memory;
  if (!vm.pci.empty() && !pci_fits(vm.pci, host.free_pci())) return verdict::pci;
  return verdict::eligible;
}

// Sort keys computed once per host and ranking, not once per comparison.
struct host_key {
  std::size_t index;
  const std::string* name;
  double committed_load;
  double reported_load;
  std::int64_t free_memory;
  int free_cpus;
  bool has_managed_vm;
};

}  // namespace

std::string ineligibility(const host_state& host, const vm_request& vm, const host_filter& filter) {
  switch (judge(host, vm, filter)) {
    case verdict::eligible:
      return {};
    case verdict::offline:
      return "offline";
    case verdict::excluded:
      return "excluded";
    case verdict::not_allowed:
      return "not allowed";
    case verdict::cpu:
      return std::to_string(host.free_cpus()) + " free CPUs";
    case verdict::memory:
      return gib(host.free_memory()) + " free memory";
    case verdict::min_free_cpu:
      return "would leave fewer than " + std::to_string(filter.min_free_cpu) + " free CPUs";
    case verdict::min_free_memory:
      return "would leave less than " + gib(filter.min_free_memory) + " free memory";
    case verdict::pci:
      return pci_shortfall(vm.pci, host.free_pci());
  }
  return {};
}

std::vector<std::size_t> rank_hosts(const std::vector<host_state>& hosts, const vm_request& vm,
                                    const host_filter& filter, strategy s,
                                    placement_cursor& cursor) {
  std::vector<host_key> keys;
  keys.reserve(hosts.size());
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const auto& h = hosts[i];
    if (judge(h, vm, filter) != verdict::eligible) continue;
    keys.push_back({i, &h.name(), h.committed_load(), h.reported_cpu_load, h.free_memory(),
                    h.free_cpus(), h.managed_vms() > 0});
  }
  std::sort(keys.begin(), keys.end(),
            [](const host_key& a, const host_key& b) { return *a.name < *b.name; });

  auto order_by = [&](auto better) { std::stable_sort(keys.begin(), keys.end(), better); };
  switch (s) {
    case strategy::balanced:
      order_by([](const host_key& a, const host_key& b) {
        if (a.committed_load != b.committed_load) return a.committed_load < b.committed_load;
        if (a.reported_load != b.reported_load) return a.reported_load < b.reported_load;
        return a.free_memory > b.free_memory;
      });
      break;
    case strategy::availability_first:
      // Fisher-Yates with the cursor's generator: random, yet reproducible from a seed.
      for (std::size_t i = keys.size(); i > 1; --i) {
        std::swap(keys[i - 1], keys[next_random(cursor.random_state) % i]);
      }
      break;
    case strategy::spread:
      order_by([](const host_key& a, const host_key& b) {
        if (a.has_managed_vm != b.has_managed_vm) return !a.has_managed_vm;
        if (!a.has_managed_vm) return false;  // both without: name order
        return a.free_memory > b.free_memory;
      });
      break;
    case strategy::max_memory:
      order_by([](const host_key& a, const host_key& b) { return a.free_memory > b.free_memory; });
      break;
    case strategy::max_cpu:
      order_by([](const host_key& a, const host_key& b) { return a.free_cpus > b.free_cpus; });
      break;
    case strategy::round_robin:
      if (!keys.empty()) {
        std::rotate(keys.begin(),
                    keys.begin() + static_cast<std::ptrdiff_t>(cursor.round_robin % keys.size()),
                    keys.end());
      }
      break;
    case strategy::pack:
      order_by([](const host_key& a, const host_key& b) {
        if (a.committed_load != b.committed_load) return a.committed_load > b.committed_load;
        return a.free_memory < b.free_memory;
      });
      break;
  }
  std::vector<std::size_t> ranked;
  ranked.reserve(keys.size());
  for (const auto& k : keys) ranked.push_back(k.index);
  return ranked;
}

}  // namespace kp::placement
