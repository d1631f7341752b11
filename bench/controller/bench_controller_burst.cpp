// bench-controller-burst: issue 6's burst target. pve-sim with 16 hosts x 64 CPUs x 512 GiB and
// every task duration, the boot delay and the resource lag at zero; 1,000 pending pods of
// 250m / 512Mi; prints the time from the batch window's close to all pods Running, the
// controller's peak RSS and average CPU through the burst, and Proxmox requests per VM.
// Figures only, no asserts.
//   bench-controller-burst [--pods N] [--hosts N] [--bin-dir DIR] [--keep] [--set FLAG=VALUE]...
// (--set passes a controller setting, e.g. --set proxmox-max-inflight=32)
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "sim/lab/lab_world.hpp"
#include "sim/lab/process_sample.hpp"
#include "sim/lab/proxmox_calls.hpp"
#include "sim/lab/scenario.hpp"
#include "sim/lab/scenario_runner.hpp"
#include "sim/lab/world_observation.hpp"

namespace {

void on_signal(int) {
  kp::lab::terminate_children_from_signal();
  _exit(130);
}

using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

double since(clock_type::time_point a, clock_type::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

int main(int argc, char** argv) {
  int pods = 1000, hosts = 16;
  std::map<std::string, std::string> extra;  // --set flag=value: controller settings
  bool keep = false;
  std::string bin_dir;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--pods" && i + 1 < argc)
      pods = std::atoi(argv[++i]);
    else if (a == "--hosts" && i + 1 < argc)
      hosts = std::atoi(argv[++i]);
    else if (a == "--bin-dir" && i + 1 < argc)
      bin_dir = argv[++i];
    else if (a == "--set" && i + 1 < argc &&
             std::string(argv[i + 1]).find('=') != std::string::npos) {
      std::string kv = argv[++i];
      extra[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    } else if (a == "--keep")
      keep = true;
    else {
      std::fprintf(stderr,
                   "usage: bench-controller-burst [--pods N] [--hosts N] [--bin-dir DIR] [--keep] "
                   "[--set FLAG=VALUE]...\n");
      return 2;
    }
  }
  if (bin_dir.empty()) {
    std::error_code ec;
    bin_dir = std::filesystem::canonical("/proc/self/exe", ec).parent_path().string();
  }
  const auto batch_idle = 1s;  // Karpenter's default BATCH_IDLE_DURATION
  kp::lab::lab_options options;
  options.bin_dir = bin_dir;
  options.keep_work_dir = keep;
  options.topology_yaml = kp::lab::uniform_topology_yaml(hosts, 64, 512, true);
  options.kube_sim_args = {"--pod-termination-ms", "100"};
  options.consolidate_after = "";
  options.nodepool_cpu_limit = "100000";
  options.controller_settings = {{"batch-idle-duration", "1s"},
                                 {"batch-max-duration", "10s"},
                                 {"disable-leader-election", "true"}};
  for (const auto& [k, v] : extra) options.controller_settings[k] = v;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  kp::lab::lab_world world(options);
  if (auto s = world.start(); !s) {
    std::fprintf(stderr, "bench-controller-burst: %s\n", s.error().message.c_str());
    return 1;
  }
  auto index = world.start_controller();
  if (!index) {
    std::fprintf(stderr, "bench-controller-burst: %s\n", index.error().message.c_str());
    return 1;
  }
  auto& controller = world.controller(*index);
  std::printf(
      "bench-controller-burst: %d pods of 250m/512Mi on %d hosts x 64 CPUs x 512 GiB, "
      "zero task durations; work dir %s\n",
      pods, hosts, world.work_dir().c_str());
  std::fflush(stdout);

  kp::lab::scale_step burst;
  burst.name = "burst";
  burst.replicas = pods;
  burst.cpu = "250m";
  burst.memory = "512Mi";
  auto start = clock_type::now();
  auto before = kp::lab::sample_process(controller.process->pid());
  if (auto s = world.apply_yaml(kp::lab::replica_set_manifest(burst)); !s) {
    std::fprintf(stderr, "bench-controller-burst: %s\n", s.error().message.c_str());
    return 1;
  }
  std::optional<clock_type::time_point> all_created, all_running;
  auto deadline = start + 300s;
  long last_running = -1;
  struct point {
    clock_type::time_point at;
    long nodeclaims, vms, nodes_ready, nodes_untainted;
  };
  std::vector<point> history;  // for the phases: NodeClaims, VMs, Nodes
  while (clock_type::now() < deadline) {
    auto o = kp::lab::observe(world);
    if (o) {
      history.push_back(
          {clock_type::now(), o->nodeclaims, o->vms, o->nodes_ready, o->nodes_untainted});
      if (!all_created && o->pods >= pods) {
        all_created = clock_type::now();
        std::printf("[%6.2fs] all %d pods created\n", since(start, *all_created), pods);
        std::fflush(stdout);
      }
      if (o->pods_running != last_running) {
        std::printf("[%6.2fs] %s\n", since(start, clock_type::now()), o->line().c_str());
        std::fflush(stdout);
        last_running = o->pods_running;
      }
      if (o->pods_running >= pods) {
        all_running = clock_type::now();
        break;
      }
    }
    // Each look lists every pod; 200 ms keeps the lab's own load small beside the controller's.
    std::this_thread::sleep_for(200ms);
  }
  auto after = controller.process->running() ? kp::lab::sample_process(controller.process->pid())
                                             : std::nullopt;
  auto calls = kp::lab::read_proxmox_calls(world);
  auto final_view = kp::lab::observe(world);

  std::printf("\n== bench-controller-burst: %d pods ==\n", pods);
  if (all_created)
    std::printf("  pods created (ReplicaSet filled) after   %.2f s\n", since(start, *all_created));
  if (all_running) {
    std::printf("  all pods Running after                     %.2f s from the burst\n",
                since(start, *all_running));
    if (all_created)
      std::printf(
          "  all pods Running after the batch window    %.2f s (last pod + BATCH_IDLE_DURATION "
          "%.1f s)\n",
          since(*all_created + batch_idle, *all_running),
          std::chrono::duration<double>(batch_idle).count());
  } else {
    std::printf("  NOT all pods Running within 300 s\n");
  }
  if (!history.empty()) {
    // The first moment each count reached its final value.
    auto reached = [&](auto field) -> std::optional<double> {
      long final_value = field(history.back());
      if (final_value <= 0) return std::nullopt;
      for (const auto& p : history)
        if (field(p) >= final_value) return since(start, p.at);
      return std::nullopt;
    };
    auto claims = reached([](const point& p) { return p.nodeclaims; });
    auto vms = reached([](const point& p) { return p.vms; });
    auto nodes = reached([](const point& p) { return p.nodes_ready; });
    if (claims)
      std::printf("  all %ld NodeClaims existed after          %.2f s\n", history.back().nodeclaims,
                  *claims);
    if (vms)
      std::printf("  all %ld VMs existed after                 %.2f s\n", history.back().vms, *vms);
    if (nodes)
      std::printf("  all %ld Nodes Ready after                 %.2f s\n",
                  history.back().nodes_ready, *nodes);
    auto untainted = reached([](const point& p) { return p.nodes_untainted; });
    if (untainted)
      std::printf("  all %ld Nodes untainted after             %.2f s\n",
                  history.back().nodes_untainted, *untainted);
  }
  if (before && after) {
    std::printf("  controller peak RSS                        %.1f MiB\n",
                after->peak_rss_kib / 1024.0);
    std::printf("  controller average CPU through the burst   %.3f cores (%.2f s CPU in %.2f s)\n",
                kp::lab::average_cores(*before, *after), after->cpu_seconds - before->cpu_seconds,
                since(before->at, after->at));
  }
  if (final_view)
    std::printf("  VMs %ld, nodes %ld, nodeclaims %ld\n", final_view->vms, final_view->nodes,
                final_view->nodeclaims);
  if (calls) std::printf("  Proxmox: %s\n", calls->summary().c_str());
  // The key=value lines every benchmark prints (bench/README.md).
  std::printf("pods=%d\n", pods);
  if (all_running && all_created)
    std::printf("seconds_after_batch_window=%.3f\n",
                since(*all_created + batch_idle, *all_running));
  if (all_running) std::printf("seconds_from_burst=%.3f\n", since(start, *all_running));
  if (before && after) {
    std::printf("controller_peak_rss_mib=%.1f\n", after->peak_rss_kib / 1024.0);
    std::printf("controller_average_cores=%.3f\n", kp::lab::average_cores(*before, *after));
    std::printf("controller_cpu_seconds=%.3f\n", after->cpu_seconds - before->cpu_seconds);
  }
  if (calls) {
    std::printf("vms_created=%ld\n", calls->vms_created);
    std::printf("proxmox_creation_requests_per_vm=%.2f\n", calls->creation_per_vm());
    // Every request the controller made (reads, polls, ownership re-reads and deletions too).
    std::printf("proxmox_requests_per_vm_total=%.2f\n",
                calls->vms_created > 0
                    ? static_cast<double>(calls->total) / static_cast<double>(calls->vms_created)
                    : 0.0);
    // Where the requests go, per VM, so that the next saving is plain to see.
    for (const auto& [request, n] : calls->by_request) {
      if (calls->vms_created == 0) break;
      std::printf("proxmox_requests_per_vm{request=\"%s\"}=%.2f\n", request.c_str(),
                  static_cast<double>(n) / static_cast<double>(calls->vms_created));
    }
  }
  return 0;
}
