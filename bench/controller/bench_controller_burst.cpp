// bench-controller-burst: issue 6's burst target. pve-sim with 16 hosts x 64 CPUs x 512 GiB and
// every task duration, the boot delay and the resource lag at zero; 1,000 pending pods of
// 250m / 512Mi; prints the time from the batch window's close to all pods Running, the
// controller's peak RSS and average CPU through the burst, Proxmox requests per VM, and clone ->
// Ready per VM (median and p95 of clone, configure, boot and join). Figures only, no asserts.
//   bench-controller-burst [--pods N] [--hosts N] [--bin-dir DIR] [--keep] [--set FLAG=VALUE]...
//                          [--clone-mode linked|full|both]
// (--set passes a controller setting, e.g. --set proxmox-max-inflight=32). --clone-mode sets the
// node class's cloneMode and gives pve-sim its default task durations with a realistic full-clone
// cost (clone_cost_durations); `both` runs the burst twice, linked then full.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/parse_number.hpp"
#include "sim/lab/lab_world.hpp"
#include "sim/lab/launch_timings.hpp"
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

struct bench_options {
  int pods = 1000, hosts = 16;
  std::map<std::string, std::string> extra;  // --set flag=value: controller settings
  bool keep = false;
  std::string bin_dir;
};

// With a clone mode: pve-sim's default task durations (config 0.1 s, resize 0.2 s, start 0.4 s,
// boot 1 s, ...), a linked clone 1 s (a thin snapshot plus the task's own work), and a full
// clone 1 s + 2 s per GiB of the template's disks: qemu-img copying the image at about
// 500 MiB/s, a local SSD's pace, so the 10 GiB template takes 21 s. No resource lag, as in the
// zero-duration burst.
constexpr const char* clone_cost_durations =
    "durations: {qmclone: 1000, full_clone_per_gib_ms: 2000, rrd_lag: 0}\n";

// The controller logs a VM's "clone to ready" line once its NodeClaim is Initialized, which may
// come just after its pods run: waits up to 30 s for one line per VM created.
std::vector<kp::lab::vm_launch_timing> launch_timings(kp::lab::lab_world& world, long vms) {
  std::vector<kp::lab::vm_launch_timing> out;
  auto deadline = clock_type::now() + 30s;
  while (true) {
    out.clear();
    for (std::size_t i = 0; i < world.controller_count(); ++i) {
      const auto& c = world.controller(i);
      if (!c.process) continue;
      if (auto t = kp::lab::read_launch_timings(c.process->log_path()))
        out.insert(out.end(), t->begin(), t->end());
    }
    if (static_cast<long>(out.size()) >= vms || clock_type::now() >= deadline) return out;
    std::this_thread::sleep_for(200ms);
  }
}

// The controller's requests once it synced (its first inventory with every host's facts): the
// count stays the same for 1 s (15 s at most). What it read by then it reads once per life, not
// per VM; the burst's figures are also given without it.
std::optional<kp::lab::proxmox_calls> calls_once_synced(kp::lab::lab_world& world) {
  std::optional<kp::lab::proxmox_calls> last;
  auto deadline = clock_type::now() + 15s;
  int still = 0;
  while (clock_type::now() < deadline) {
    auto now = kp::lab::read_proxmox_calls(world);
    if (now && last && now->total == last->total && now->total > 0) {
      if (++still >= 4) return *now;
    } else {
      still = 0;
    }
    if (now) last = *now;
    std::this_thread::sleep_for(250ms);
  }
  return last;
}

// One burst. `clone_mode` empty: the node class as the lab makes it and every task duration at
// zero; otherwise that cloneMode, clone_cost_durations, and every key=value line labelled with it.
int run_burst(const bench_options& opts, const std::string& clone_mode) {
  const int pods = opts.pods, hosts = opts.hosts;
  // The key of a key=value line, with clone_mode="..." among its labels when a mode was given.
  auto key = [&](const std::string& name) {
    if (clone_mode.empty()) return name;
    const std::string label = "clone_mode=\"" + clone_mode + "\"";
    auto brace = name.find('{');
    if (brace == std::string::npos) return name + "{" + label + "}";
    return name.substr(0, brace + 1) + label + "," + name.substr(brace + 1);
  };
  const auto batch_idle = 1s;  // Karpenter's default BATCH_IDLE_DURATION
  kp::lab::lab_options options;
  options.bin_dir = opts.bin_dir;
  options.keep_work_dir = opts.keep;
  options.topology_yaml = kp::lab::uniform_topology_yaml(hosts, 64, 512, clone_mode.empty());
  if (!clone_mode.empty()) options.topology_yaml += clone_cost_durations;
  options.clone_mode = clone_mode;
  options.kube_sim_args = {"--pod-termination-ms", "100"};
  options.consolidate_after = "";
  options.nodepool_cpu_limit = "100000";
  options.controller_settings = {{"batch-idle-duration", "1s"},
                                 {"batch-max-duration", "10s"},
                                 {"disable-leader-election", "true"}};
  for (const auto& [k, v] : opts.extra) options.controller_settings[k] = v;
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
      "bench-controller-burst: %d pods of 250m/512Mi on %d hosts x 64 CPUs x 512 GiB, %s; work "
      "dir %s\n",
      pods, hosts,
      clone_mode.empty() ? "zero task durations"
                         : ("cloneMode " + clone_mode + ", pve-sim task durations").c_str(),
      world.work_dir().c_str());
  std::fflush(stdout);

  auto synced = calls_once_synced(world);
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
  auto timings =
      kp::lab::summarise_launch_timings(launch_timings(world, calls        ? calls->vms_created
                                                              : final_view ? final_view->vms
                                                                           : 0));
  std::printf("%s", kp::lab::launch_timing_table(timings).c_str());
  // The key=value lines every benchmark prints (bench/README.md).
  auto line = [&](const std::string& name, const char* format, auto value) {
    std::printf("%s=", key(name).c_str());
    std::printf(format, value);
    std::printf("\n");
  };
  line("pods", "%d", pods);
  if (all_running && all_created)
    line("seconds_after_batch_window", "%.3f", since(*all_created + batch_idle, *all_running));
  if (all_running) line("seconds_from_burst", "%.3f", since(start, *all_running));
  if (before && after) {
    line("controller_peak_rss_mib", "%.1f", after->peak_rss_kib / 1024.0);
    line("controller_average_cores", "%.3f", kp::lab::average_cores(*before, *after));
    line("controller_cpu_seconds", "%.3f", after->cpu_seconds - before->cpu_seconds);
  }
  if (calls) {
    line("vms_created", "%ld", calls->vms_created);
    line("proxmox_creation_requests_per_vm", "%.2f", calls->creation_per_vm());
    // Every request the controller made (reads, polls, ownership re-reads and deletions too).
    line("proxmox_requests_per_vm_total", "%.2f",
         calls->vms_created > 0
             ? static_cast<double>(calls->total) / static_cast<double>(calls->vms_created)
             : 0.0);
    if (synced && calls->vms_created > 0) {
      // Without the start-up sync (host facts, the first listing, the version): per VM burst.
      line("proxmox_startup_requests", "%ld", synced->total);
      line("proxmox_requests_per_vm_after_sync", "%.2f",
           static_cast<double>(calls->total - synced->total) /
               static_cast<double>(calls->vms_created));
    }
    // Where the requests go, per VM, so that the next saving is plain to see.
    for (const auto& [request, n] : calls->by_request) {
      if (calls->vms_created == 0) break;
      line("proxmox_requests_per_vm{request=\"" + request + "\"}", "%.2f",
           static_cast<double>(n) / static_cast<double>(calls->vms_created));
    }
  }
  // Clone -> Ready per VM: these lines carry their clone_mode already.
  for (const auto& t : timings)
    for (const auto& kv : kp::lab::launch_timing_key_values(t)) std::printf("%s\n", kv.c_str());
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bench_options o;
  std::vector<std::string> modes{""};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    // A positive count for --pods and --hosts; anything else is a usage error.
    auto count = [&](int& out) {
      auto n = kp::parse_integer<int>(argv[++i]);
      if (n && *n > 0) out = *n;
      return n && *n > 0;
    };
    if (a == "--pods" && i + 1 < argc && count(o.pods))
      continue;
    else if (a == "--hosts" && i + 1 < argc && count(o.hosts))
      continue;
    else if (a == "--bin-dir" && i + 1 < argc)
      o.bin_dir = argv[++i];
    else if (a == "--set" && i + 1 < argc &&
             std::string(argv[i + 1]).find('=') != std::string::npos) {
      std::string kv = argv[++i];
      o.extra[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    } else if (a == "--keep")
      o.keep = true;
    else if (a == "--clone-mode" && i + 1 < argc &&
             (std::string(argv[i + 1]) == "linked" || std::string(argv[i + 1]) == "full" ||
              std::string(argv[i + 1]) == "both")) {
      std::string m = argv[++i];
      modes = m == "both" ? std::vector<std::string>{"linked", "full"} : std::vector{m};
    } else {
      std::fprintf(stderr,
                   "usage: bench-controller-burst [--pods N] [--hosts N] [--bin-dir DIR] [--keep] "
                   "[--set FLAG=VALUE]... [--clone-mode linked|full|both]\n");
      return 2;
    }
  }
  if (o.bin_dir.empty()) {
    std::error_code ec;
    o.bin_dir = std::filesystem::canonical("/proc/self/exe", ec).parent_path().string();
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  int rc = 0;
  for (const auto& mode : modes) rc = std::max(rc, run_burst(o, mode));
  return rc;
}
