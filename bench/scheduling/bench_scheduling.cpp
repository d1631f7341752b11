// bench-scheduling: the provisioning simulation on Karpenter's own benchmark shape and on
// packing workloads against the Proxmox built-in types. Each case runs in a child process of its
// own so peak RSS is per case. Output: one `key=value` line per case.
//
//   bench-scheduling                 all cases
//   bench-scheduling diverse 5000    one case in this process
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench/scheduling/packing_bound.hpp"
#include "core/instance_types/instance_type.hpp"
#include "core/instance_types/right_sized.hpp"
#include "core/model/labels.hpp"
#include "core/scheduling/provision.hpp"

namespace {

namespace L = kp::model::labels;
using kp::model::quantity;
using kp::model::quantity_format;
using namespace kp::scheduling;

constexpr std::int64_t kMi = 1024LL * 1024;
constexpr std::int64_t kGi = 1024 * kMi;

quantity bytes(std::int64_t b) {
  return quantity{b * 1000, quantity_format::binary_si};
}

kp::model::pod make_pod(int i, std::int64_t cpu_m, std::int64_t mem_bytes) {
  kp::model::pod p;
  p.name = "pod-" + std::to_string(i);
  p.namespace_ = "default";
  p.uid = "uid-" + std::to_string(i);
  p.creation_unix_ms = i;
  p.unschedulable = true;
  kp::model::container c;
  c.name = "app";
  c.requests.set("cpu", quantity::from_milli(cpu_m));
  c.requests.set("memory", bytes(mem_bytes));
  p.containers.push_back(std::move(c));
  return p;
}

kp::model::nodepool default_pool(bool limited) {
  kp::model::nodepool np;
  np.name = "default";
  np.template_.node_class = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass", "default"};
  if (limited) {
    np.limits.set("cpu", quantity::from_units(10'000'000));
    // Karpenter uses 10,000,000Gi; 8,000,000Gi is about the most 64-bit milli-bytes hold.
    np.limits.set("memory", bytes(8'000'000 * kGi));
  }
  return np;
}

// Karpenter's benchmark instance types: fake-it-i with cpu i+1, memory 2(i+1)Gi, pods 10(i+1),
// kube-reserved 100m/10Mi, on-demand in every zone, price 0.1/vCPU + 0.1/GB.
std::vector<kp::instance_types::instance_type> fake_types(int n, int zones) {
  std::vector<kp::instance_types::instance_type> out;
  for (int i = 0; i < n; ++i) {
    kp::instance_types::instance_type t;
    t.name = "fake-it-" + std::to_string(i);
    t.family = "fake";
    t.vm_cpus = i + 1;
    t.vm_memory_bytes = 2LL * (i + 1) * kGi;
    t.capacity.set("cpu", quantity::from_units(i + 1));
    t.capacity.set("memory", bytes(t.vm_memory_bytes));
    t.capacity.set("pods", quantity::from_units(10 * (i + 1)));
    t.overhead.kube_reserved.set("cpu", quantity::from_milli(100));
    t.overhead.kube_reserved.set("memory", bytes(10 * kMi));
    t.requirements = {{std::string(L::arch), kp::model::selector_operator::in, {"amd64"}, {}},
                      {std::string(L::os), kp::model::selector_operator::in, {"linux"}, {}}};
    for (int z = 0; z < zones; ++z)
      t.offerings.push_back({"region", "test-zone-" + std::to_string(z + 1), "on-demand",
                             0.1 * (i + 1) + 0.1 * static_cast<double>(t.vm_memory_bytes) / 1e9,
                             true});
    out.push_back(std::move(t));
  }
  return out;
}

kp::model::label_selector select(const std::string& k, const std::string& v) {
  return kp::model::label_selector{{{k, v}}, {}};
}

// Five equal shares: generic, zonal spread, hostname spread, zonal self-affinity, hostname
// anti-affinity; CPU and memory from Karpenter's value sets; seed 42.
std::vector<kp::model::pod> diverse_pods(int n) {
  std::mt19937 rng(42);
  const std::array<std::int64_t, 5> cpus{100, 250, 500, 1000, 1500};
  const std::array<std::int64_t, 6> mems{100, 256, 512, 1024, 2048, 4096};
  auto pick_cpu = [&] { return cpus[rng() % cpus.size()]; };
  auto pick_mem = [&] { return mems[rng() % mems.size()] * kMi; };
  auto label_value = [&] { return "value-" + std::to_string(rng() % 7); };
  std::vector<kp::model::pod> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    auto p = make_pod(i, pick_cpu(), pick_mem());
    int kind = i % 5;
    using kp::model::inclusion_policy;
    using kp::model::when_unsatisfiable;
    if (kind == 1 || kind == 2) {
      std::string v = label_value();
      p.labels = {{"my-label", v}};
      std::string key(kind == 1 ? L::zone : L::hostname);
      p.topology_spread = {{1,
                            key,
                            when_unsatisfiable::do_not_schedule,
                            select("my-label", v),
                            std::nullopt,
                            inclusion_policy::honor,
                            inclusion_policy::ignore,
                            {}}};
    } else if (kind == 3) {
      std::string v = label_value();
      p.labels = {{"my-affinity", v}};
      p.pod_affinity.required = {
          {select("my-affinity", v), {}, std::nullopt, std::string(L::zone), {}}};
    } else if (kind == 4) {
      p.labels = {{"app", "nginx"}};
      p.pod_anti_affinity.required = {
          {select("app", "nginx"), {}, std::nullopt, std::string(L::hostname), {}}};
    }
    out.push_back(std::move(p));
  }
  return out;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct timing {
  double wall_ms;  // median wall-clock time of one solve
  double cpu_ms;   // median CPU time of the solving thread: what the solve costs on a loaded host
};

// Times provision() alone; freeing the previous plan happens outside the clock.
timing measure(const snapshot& s, plan& last, int min_runs, double budget_ms) {
  std::vector<double> wall, cpu;
  double spent = 0;
  while (static_cast<int>(wall.size()) < min_runs || (spent < budget_ms && wall.size() < 50)) {
    last = plan{};  // one plan alive at a time, as in the controller
    auto t0 = std::chrono::steady_clock::now();
    double c0 = thread_cpu_ms();
    plan p = provision(s);
    double c1 = thread_cpu_ms();
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    last = std::move(p);
    wall.push_back(ms);
    cpu.push_back(c1 - c0);
    spent += ms;
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

int run_diverse(int pods) {
  snapshot s;
  s.instance_types = fake_types(400, 5);
  s.nodepools.push_back(default_pool(true));
  s.pods = diverse_pods(pods);
  plan last;
  timing t = measure(s, last, 5, 3000);
  std::printf(
      "case=diverse pods=%d ms=%.3f cpu_ms=%.3f pods_per_s=%.0f nodeclaims=%zu errors=%zu "
      "rss_mib=%.1f\n",
      pods, t.wall_ms, t.cpu_ms, pods / (t.cpu_ms / 1000.0), last.nodeclaims.size(),
      last.errors.size(), peak_rss_mib());
  return last.errors.empty() ? 0 : 1;
}

// An existing cluster: 1,000 nodes (16 vCPU / 32Gi, 5 zones) running 10,000 pods of the diverse
// kinds (without anti-affinity, so the running pods are valid), plus 5,000 pending diverse pods.
int run_existing() {
  snapshot s;
  s.instance_types = fake_types(400, 5);
  s.nodepools.push_back(default_pool(true));
  const int nodes = 1000;
  for (int n = 0; n < nodes; ++n) {
    kp::model::node node;
    node.name = "node-" + std::to_string(n);
    node.labels = {{std::string(L::zone), "test-zone-" + std::to_string(n % 5 + 1)},
                   {std::string(L::hostname), node.name},
                   {std::string(L::instance_type), "fake-it-15"},
                   {std::string(L::nodepool), "default"},
                   {std::string(L::initialized), "true"}};
    node.allocatable.set("cpu", quantity::from_milli(15900));
    node.allocatable.set("memory", bytes(32 * kGi - 10 * kMi));
    node.allocatable.set("pods", quantity::from_units(160));
    node.capacity = node.allocatable;
    node.ready = true;
    s.nodes.push_back(kp::model::share(std::move(node)));
  }
  auto running = diverse_pods(10000);
  for (std::size_t i = 0; i < running.size(); ++i) {
    auto& p = running[i];
    p.name = "running-" + std::to_string(i);
    p.uid = "running-uid-" + std::to_string(i);
    p.pod_anti_affinity = {};
    p.node_name = "node-" + std::to_string(i % nodes);
    p.phase = "Running";
    p.unschedulable = false;
  }
  for (auto& p : running) s.bound_pods.push_back(kp::model::share(std::move(p)));
  s.pods = diverse_pods(5000);
  plan last;
  timing t = measure(s, last, 3, 3000);
  std::printf(
      "case=existing nodes=%d bound=%zu pods=%zu ms=%.3f cpu_ms=%.3f bindings=%zu nodeclaims=%zu "
      "errors=%zu rss_mib=%.1f\n",
      nodes, s.bound_pods.size(), s.pods.size(), t.wall_ms, t.cpu_ms, last.bindings.size(),
      last.nodeclaims.size(), last.errors.size(), peak_rss_mib());
  return last.errors.empty() ? 0 : 1;
}

// Lower bound of any packing over a list of types (bench/scheduling/packing_bound.hpp).
double lower_bound(const std::vector<kp::instance_types::instance_type>& types,
                   const std::array<double, 3>& need) {
  std::vector<kp::bench::lp_type> rows;
  for (const auto& t : types) {
    auto al = t.allocatable();
    double price = 1e300;
    for (const auto& o : t.offerings)
      if (o.available) price = std::min(price, o.price);
    rows.push_back(
        {{al.milli("cpu") / 1000.0, al.milli("memory") / 1000.0 / kGi, al.milli("pods") / 1000.0},
         price});
  }
  return kp::bench::lp_dual_max(rows, need).value;
}

// The pods of packing workload a, b, c or d.
std::vector<kp::model::pod> packing_pods(char workload) {
  std::vector<kp::model::pod> pods;
  std::mt19937 rng(42);
  int i = 0;
  if (workload == 'a') {
    for (; i < 500; ++i) pods.push_back(make_pod(i, 900, 3100 * kMi));
    for (; i < 1000; ++i) pods.push_back(make_pod(i, 3500, 28 * kGi));
  } else if (workload == 'b') {
    for (; i < 10000; ++i) pods.push_back(make_pod(i, 100, 128 * kMi));
  } else if (workload == 'd') {
    // The controller burst benchmark's pods (bench/controller): 1,000 of 250m / 512Mi.
    for (; i < 1000; ++i) pods.push_back(make_pod(i, 250, 512 * kMi));
  } else {
    const std::array<std::int64_t, 5> cpus{250, 500, 1000, 2000, 4000};
    const std::array<std::int64_t, 6> mems{256 * kMi, kGi, 2 * kGi, 4 * kGi, 8 * kGi, 16 * kGi};
    for (; i < 2000; ++i) pods.push_back(make_pod(i, cpus[rng() % 5], mems[rng() % 6]));
  }
  return pods;
}

std::array<double, 3> total_requests(const std::vector<kp::model::pod>& pods) {
  std::array<double, 3> need{0, 0, 0};
  for (const auto& p : pods) {
    auto r = kp::model::pod_requests(p);
    need[0] += r.milli("cpu") / 1000.0;
    need[1] += r.milli("memory") / 1000.0 / kGi;
    need[2] += 1;
  }
  return need;
}

// The hosts of the packing workloads: room for everything.
std::vector<kp::instance_types::zone_capacity> packing_zones() {
  std::vector<kp::instance_types::zone_capacity> zones;
  for (int z = 0; z < 3; ++z)
    zones.push_back({"region1", "pve-" + std::to_string(z + 1), 1024, 4096 * kGi, true});
  return zones;
}

void print_packing(const char* catalogue, char workload, const snapshot& s, const plan& last,
                   const timing& t, double lb) {
  auto need = total_requests(s.pods);
  double cost = 0, alloc_cpu = 0, alloc_mem = 0;
  for (const auto& nc : last.nodeclaims) {
    cost += nc.price;
    auto a = instance_type_options(nc, s).front()->allocatable();
    alloc_cpu += a.milli("cpu") / 1000.0;
    alloc_mem += a.milli("memory") / 1000.0 / kGi;
  }
  double cpu_util = need[0] / alloc_cpu, mem_util = need[1] / alloc_mem;
  std::printf(
      "case=packing%s workload=%c pods=%zu ms=%.3f cpu_ms=%.3f nodeclaims=%zu errors=%zu "
      "cost=%.3f lower_bound=%.3f cost_ratio=%.3f cpu_util=%.3f mem_util=%.3f utilisation=%.3f "
      "rss_mib=%.1f\n",
      catalogue, workload, s.pods.size(), t.wall_ms, t.cpu_ms, last.nodeclaims.size(),
      last.errors.size(), cost, lb, cost / lb, cpu_util, mem_util, std::max(cpu_util, mem_util),
      peak_rss_mib());
}

int run_packing(char workload) {
  snapshot s;
  s.instance_types = kp::instance_types::builtin_instance_types();
  kp::instance_types::build_offerings(s.instance_types, packing_zones());
  s.nodepools.push_back(default_pool(false));
  s.pods = packing_pods(workload);
  plan last;
  timing t = measure(s, last, 3, 1000);
  print_packing("", workload, s, last, t, lower_bound(s.instance_types, total_requests(s.pods)));
  return last.errors.empty() ? 0 : 1;
}

// A NodePool that opts into right-sized VMs only (family f1).
kp::model::nodepool right_sized_pool(bool limited) {
  auto np = default_pool(limited);
  np.template_.requirements.push_back({std::string(L::instance_family),
                                       kp::model::selector_operator::in,
                                       {std::string(kp::instance_types::right_sized_family)},
                                       std::nullopt});
  return np;
}

// The f1 column: the same pods, right-sized VMs on the same hosts; the lower bound is the LP
// over every f1 size those hosts hold.
int run_packing_f1(char workload) {
  snapshot s;
  s.right_sized.zones = packing_zones();
  s.nodepools.push_back(right_sized_pool(false));
  s.pods = packing_pods(workload);
  plan last;
  timing t = measure(s, last, 3, 1000);
  double lb = kp::bench::right_sized_lower_bound(total_requests(s.pods), 1024, 4096 * 1024, 0);
  print_packing("-f1", workload, s, last, t, lb);
  return last.errors.empty() ? 0 : 1;
}

// Karpenter's diverse pods against right-sized VMs instead of the 400 fake types, in the same
// five zones.
int run_diverse_f1(int pods) {
  snapshot s;
  for (int z = 0; z < 5; ++z)
    s.right_sized.zones.push_back(
        {"region", "test-zone-" + std::to_string(z + 1), 1024, 4096 * kGi, true});
  s.nodepools.push_back(right_sized_pool(true));
  s.pods = diverse_pods(pods);
  plan last;
  timing t = measure(s, last, 5, 3000);
  std::printf(
      "case=diverse-f1 pods=%d ms=%.3f cpu_ms=%.3f pods_per_s=%.0f nodeclaims=%zu errors=%zu "
      "rss_mib=%.1f\n",
      pods, t.wall_ms, t.cpu_ms, pods / (t.cpu_ms / 1000.0), last.nodeclaims.size(),
      last.errors.size(), peak_rss_mib());
  return last.errors.empty() ? 0 : 1;
}

int run_child(const std::string& kind, const std::string& arg) {
  if (kind == "diverse") return run_diverse(std::atoi(arg.c_str()));
  if (kind == "packing" && arg.size() == 1) return run_packing(arg[0]);
  if (kind == "existing") return run_existing();
  if (kind == "packing-f1" && arg.size() == 1) return run_packing_f1(arg[0]);
  if (kind == "diverse-f1") return run_diverse_f1(std::atoi(arg.c_str()));
  std::fprintf(stderr,
               "usage: bench-scheduling [diverse N | packing a|b|c|d | existing 1000 | "
               "packing-f1 a|b|c|d | diverse-f1 N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3) return run_child(argv[1], argv[2]);
  if (argc != 1) return run_child("", "");
  std::vector<std::pair<std::string, std::string>> cases = {
      {"diverse", "1"},     {"diverse", "100"},   {"diverse", "1000"},  {"diverse", "5000"},
      {"diverse", "20000"}, {"diverse", "50000"}, {"packing", "a"},     {"packing", "b"},
      {"packing", "c"},     {"packing", "d"},     {"existing", "1000"}, {"packing-f1", "a"},
      {"packing-f1", "b"},  {"packing-f1", "c"},  {"packing-f1", "d"},  {"diverse-f1", "5000"}};
  int status = 0;
  for (const auto& [kind, arg] : cases) {
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      execl("/proc/self/exe", argv[0], kind.c_str(), arg.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    int ws = 0;
    waitpid(pid, &ws, 0);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) status = 1;
  }
  return status;
}
