// Places 1,000 (and 200) VMs on 50 hosts with 2 to 4 NUMA nodes each, under every strategy and both
// CPU policies, and prints one `key=value` line per case: time, hosts used, NUMA nodes spanned.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <set>
#include <vector>

#include "core/placement/place_vm.hpp"

namespace {

using namespace kp::placement;

// CPU time of this thread, so figures stay meaningful on a shared, loaded machine.
double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}
constexpr std::int64_t gib = std::int64_t{1} << 30;

std::vector<host_state> make_hosts() {
  std::vector<host_state> hosts;
  for (int i = 0; i < 50; ++i) {
    int numa = 2 + i % 3;  // 2, 3 or 4 NUMA nodes (one per socket)
    char name[16];
    std::snprintf(name, sizeof name, "pve%02d", i + 1);
    hosts.emplace_back(name, predict_topology(numa, numa * 16 * 2, 16, numa * 128 * gib));
  }
  return hosts;
}

std::vector<vm_request> make_vms(int count) {
  std::mt19937 rng(42);
  const int cpus[] = {1, 2, 4, 8};
  const std::int64_t mem_per_cpu[] = {2, 4, 8};
  std::vector<vm_request> vms;
  for (int i = 0; i < count; ++i) {
    int c = cpus[rng() % 4];
    vms.push_back({c, c * mem_per_cpu[rng() % 3] * gib});
  }
  return vms;
}

}  // namespace

int main() {
  // 1,000 VMs fill most of the 50 hosts; 200 show how each strategy spreads or packs.
  for (int count : {1000, 200}) {
    const auto vms = make_vms(count);
    double total_ms = 0, total_cpu_ms = 0;
    for (auto policy : {cpu_policy::simple, cpu_policy::static_pinning}) {
      for (auto s :
           {strategy::balanced, strategy::availability_first, strategy::spread,
            strategy::max_memory, strategy::max_cpu, strategy::round_robin, strategy::pack}) {
        auto hosts = make_hosts();
        placement_cursor cursor;
        int placed = 0, spanning = 0;
        std::set<std::size_t> used;
        auto start = std::chrono::steady_clock::now();
        double cpu_start = thread_cpu_ms();
        for (std::size_t i = 0; i < vms.size(); ++i) {
          auto d = place_vm(hosts, static_cast<int>(i) + 100, vms[i], {}, s, policy, cursor);
          if (!d) continue;
          ++placed;
          used.insert(d->host);
          if (d->pinned && d->pinned->numa.size() > 1) ++spanning;
        }
        double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        double cpu_ms = thread_cpu_ms() - cpu_start;
        total_ms += ms;
        total_cpu_ms += cpu_ms;
        std::printf(
            "case=placement policy=%s strategy=%s vms=%zu hosts=50 placed=%d ms=%.2f cpu_ms=%.2f "
            "hosts_used=%zu "
            "vms_spanning_numa=%d\n",
            policy == cpu_policy::simple ? "simple" : "static", std::string(to_string(s)).c_str(),
            vms.size(), placed, ms, cpu_ms, used.size(), spanning);
      }
    }
    std::printf("case=placement_total vms=%d ms=%.2f cpu_ms=%.2f\n", count, total_ms, total_cpu_ms);
  }
  return 0;
}
