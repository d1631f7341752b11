// bench-chaos: issue 13's chaos benchmark. kube-sim, pve-sim and the controller as processes;
// ReplicaSets scaled up and down at random while the controller is SIGKILLed at random moments
// (and restarted each time), Proxmox answers 10% of writes with a 5xx, clones run slow and one
// host goes offline for a while. Then the faults stop, the workload holds, and the bench waits
// for the world to converge (bench/chaos/README.md). A foreign VM made up front must come out
// untouched. Figures only, no asserts.
//   bench-chaos [--kills N] [--seed S] [--kill-interval SECONDS] [--scale-interval SECONDS]
//               [--converge-timeout SECONDS] [--time-scale X] [--bin-dir DIR] [--keep]
//               [--set FLAG=VALUE]...
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "bench/chaos/chaos_snapshot.hpp"
#include "core/parse_number.hpp"
#include "sim/lab/json_fields.hpp"
#include "sim/lab/lab_world.hpp"
#include "sim/lab/proxmox_calls.hpp"
#include "sim/lab/scenario.hpp"
#include "sim/lab/workload_steps.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

void on_signal(int) {
  kp::lab::terminate_children_from_signal();
  _exit(130);
}

double since(clock_type::time_point a, clock_type::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

clock_type::duration seconds(double s) {
  return std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(s));
}

struct chaos_options {
  int kills = 200;
  unsigned seed = 1;
  double kill_interval = 2.5;   // mean seconds a replica lives before its SIGKILL
  double scale_interval = 2.0;  // mean seconds between two scalings
  double converge_timeout = 300;
  std::string time_scale = "0.25";
  std::string bin_dir;
  bool keep = false;
  std::map<std::string, std::string> settings;  // --set flag=value: controller settings
};

std::optional<double> positive(const char* text) {
  auto v = kp::parse_decimal(text);
  if (!v || *v <= 0) return std::nullopt;
  return v;
}

std::optional<chaos_options> parse_flags(int argc, char** argv) {
  chaos_options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool has_value = i + 1 < argc;
    if (a == "--keep") {
      o.keep = true;
      continue;
    }
    if (!has_value) return std::nullopt;
    const char* v = argv[++i];
    if (a == "--kills") {
      auto n = kp::parse_integer<int>(v);
      if (!n || *n < 1) return std::nullopt;
      o.kills = *n;
    } else if (a == "--seed") {
      auto n = kp::parse_integer<unsigned>(v);
      if (!n) return std::nullopt;
      o.seed = *n;
    } else if (a == "--kill-interval" || a == "--scale-interval" || a == "--converge-timeout") {
      auto d = positive(v);
      if (!d) return std::nullopt;
      (a == "--kill-interval"    ? o.kill_interval
       : a == "--scale-interval" ? o.scale_interval
                                 : o.converge_timeout) = *d;
    } else if (a == "--time-scale" && positive(v)) {
      o.time_scale = v;
    } else if (a == "--bin-dir") {
      o.bin_dir = v;
    } else if (a == "--set" && std::string(v).find('=') != std::string::npos) {
      std::string kv = v;
      o.settings[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    } else {
      return std::nullopt;
    }
  }
  return o;
}

// The foreign VM: not ours, on the first VMID our allocator could hand out, named and described
// like one of our nodes but marked for another cluster.
constexpr const char* foreign_node = "pve1";
constexpr const char* foreign_name = "default-chaos";
// "karpenter-proxmox: cluster=neighbour, nodeclaim=default-chaos, nodepool=default", form-encoded.
constexpr const char* foreign_description =
    "karpenter-proxmox%3A%20cluster%3Dneighbour%2C%20nodeclaim%3Ddefault-chaos%2C%20nodepool%"
    "3Ddefault";

kp::status wait_task(kp::lab::lab_world& world, const std::string& upid) {
  std::string exit_status;
  bool done = kp::lab::lab_world::eventually(
      [&] {
        // A UPID's characters (':', '@', '!') are allowed in a path segment as they are.
        auto t = world.pve_api("GET",
                               std::string("/nodes/") + foreign_node + "/tasks/" + upid + "/status",
                               "/nodes/{node}/tasks/{upid}/status");
        if (!t || !t->ok()) return false;
        auto body = t->json();
        if (!body.is_object() || !body.at("data").is_object()) return false;
        const auto& data = body.at("data").as_object();
        if (kp::lab::string_at(data, {"status"}) != "stopped") return false;
        exit_status = kp::lab::string_at(data, {"exitstatus"});
        return true;
      },
      20s);
  if (!done) return kp::make_error("timeout", "task " + upid + " did not finish");
  if (exit_status != "OK") return kp::make_error("task_failed", upid + ": " + exit_status);
  return {};
}

kp::status pve_task(kp::lab::lab_world& world, const std::string& path,
                    const std::string& templated, const std::string& body) {
  auto r = world.pve_api("POST", path, templated, body);
  if (!r) return r.error();
  auto reply = r->json();
  if (!r->ok() || !reply.is_object() || !reply.at("data").is_string())
    return kp::make_error("proxmox",
                          "POST " + path + ": HTTP " + std::to_string(r->status) + " " + r->body);
  return wait_task(world, std::string(reply.at("data").as_string()));
}

kp::result<int> make_foreign_vm(kp::lab::lab_world& world) {
  auto next = world.pve_api("GET", "/cluster/nextid", "/cluster/nextid");
  if (!next || !next->ok()) return kp::make_error("proxmox", "GET /cluster/nextid failed");
  auto body = next->json();
  std::optional<int> vmid;
  if (body.is_object() && body.at("data").is_string())
    vmid = kp::parse_integer<int>(std::string(body.at("data").as_string()));
  if (body.is_object() && body.at("data").is_int64())
    vmid = static_cast<int>(body.at("data").as_int64());
  if (!vmid) return kp::make_error("proxmox", "/cluster/nextid: " + next->body);
  auto id = std::to_string(*vmid);
  std::string node = foreign_node;
  if (auto s = pve_task(world, "/nodes/" + node + "/qemu", "/nodes/{node}/qemu",
                        "vmid=" + id + "&name=" + foreign_name +
                            "&memory=2048&cores=2&tags=lab&description=" + foreign_description);
      !s)
    return s.error();
  if (auto s = pve_task(world, "/nodes/" + node + "/qemu/" + id + "/status/start",
                        "/nodes/{node}/qemu/{vmid}/status/start", "");
      !s)
    return s.error();
  return *vmid;
}

// The foreign VM's config digest and power state: "digest/running", or "gone".
std::string foreign_state(kp::lab::lab_world& world, int vmid) {
  auto base = std::string("/nodes/") + foreign_node + "/qemu/" + std::to_string(vmid);
  auto config = world.pve_api("GET", base + "/config", "/nodes/{node}/qemu/{vmid}/config");
  auto status =
      world.pve_api("GET", base + "/status/current", "/nodes/{node}/qemu/{vmid}/status/current");
  if (!config || !config->ok() || !status || !status->ok()) return "gone";
  auto c = config->json();
  auto s = status->json();
  if (!c.is_object() || !c.at("data").is_object() || !s.is_object() || !s.at("data").is_object())
    return "gone";
  return std::string(kp::lab::string_at(c.at("data").as_object(), {"digest"})) + "/" +
         std::string(kp::lab::string_at(s.at("data").as_object(), {"status"}));
}

// The workload: three ReplicaSets of different pod sizes, each scaled between 0 and its maximum.
struct replica_set {
  const char* name;
  const char* cpu;
  const char* memory;
  int max;
};
constexpr std::array<replica_set, 3> workload{
    {{"web", "500m", "1Gi", 12}, {"api", "1", "2Gi", 8}, {"batch", "250m", "512Mi", 16}}};

kp::status scale(kp::lab::lab_world& world, const replica_set& rs, int replicas) {
  kp::lab::scale_step step;
  step.name = rs.name;
  step.cpu = rs.cpu;
  step.memory = rs.memory;
  step.replicas = replicas;
  return kp::lab::scale_replica_set(world, step);
}

std::string fault_plan(unsigned seed, const std::string& offline_host, double offline_ms) {
  std::string plan = "seed: " + std::to_string(seed) +
                     "\nerrors:\n  - {path: \"*\", method: write, rate: 0.1, status: 500, "
                     "message: \"chaos: injected write error\"}\nslow_clone_factor: 4\n";
  if (!offline_host.empty())
    plan += "offline_hosts: [{node: " + offline_host +
            ", status: 595, duration_ms: " + std::to_string(static_cast<long>(offline_ms)) + "}]\n";
  return plan;
}

int fail(const std::string& what) {
  std::fprintf(stderr, "bench-chaos: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = parse_flags(argc, argv);
  if (!parsed) {
    std::fprintf(stderr,
                 "usage: bench-chaos [--kills N] [--seed S] [--kill-interval SECONDS] "
                 "[--scale-interval SECONDS] [--converge-timeout SECONDS] [--time-scale X] "
                 "[--bin-dir DIR] [--keep] [--set FLAG=VALUE]...\n");
    return 2;
  }
  auto opt = *parsed;
  if (opt.bin_dir.empty()) {
    std::error_code ec;
    opt.bin_dir = std::filesystem::canonical("/proc/self/exe", ec).parent_path().string();
  }
  kp::lab::lab_options options;
  options.bin_dir = opt.bin_dir;
  options.keep_work_dir = opt.keep;
  options.pve_sim_args = {"--time-scale", opt.time_scale};
  options.kube_sim_args = {"--pod-termination-ms", "200"};
  // Consolidation on (WhenEmpty after 2 s, the lab's default); the lifecycle timeouts at the
  // controller's defaults, not the lab's short ones. One replica: each restart acts at once.
  options.controller_settings = {{"launch-timeout", "5m"},
                                 {"registration-timeout", "15m"},
                                 {"disable-leader-election", "true"}};
  for (const auto& [k, v] : opt.settings) options.controller_settings[k] = v;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  kp::lab::lab_world world(options);
  if (auto s = world.start(); !s) return fail(s.error().message);
  auto foreign_vmid = make_foreign_vm(world);
  if (!foreign_vmid) return fail("foreign VM: " + foreign_vmid.error().message);
  const auto foreign_before = foreign_state(world, *foreign_vmid);
  std::printf(
      "bench-chaos: seed %u, %d kills every ~%.1f s, scaling every ~%.1f s, time scale %s; "
      "foreign VM %d on %s; work dir %s\n",
      opt.seed, opt.kills, opt.kill_interval, opt.scale_interval, opt.time_scale.c_str(),
      *foreign_vmid, foreign_node, world.work_dir().c_str());
  std::fflush(stdout);

  std::mt19937 rng(opt.seed);
  auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<>(lo, hi)(rng);
  };
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<>(lo, hi)(rng); };
  // One host goes offline for a while: from a third of the expected chaos phase, for a fifth of
  // it (at least 10 s). pve-sim heals it itself.
  const double expected = opt.kills * opt.kill_interval;
  const auto offline_host = "pve" + std::to_string(pick(1, 3));
  const double offline_ms = std::max(10.0, expected / 5) * 1000;
  if (auto s = world.set_faults(fault_plan(opt.seed, "", 0)); !s) return fail(s.error().message);

  auto replica = world.start_controller();
  if (!replica) return fail(replica.error().message);
  std::array<int, workload.size()> replicas{};
  const auto start = clock_type::now();
  auto offline_at = start + seconds(expected / 3);
  bool offline_done = false;
  auto next_kill = clock_type::now() + seconds(uniform(0.1, 2 * opt.kill_interval));
  auto next_scale = start;
  int kills = 0, crashes = 0, scalings = 0;
  clock_type::time_point last_kill = start;
  while (kills < opt.kills) {
    auto wake = std::min(next_kill, next_scale);
    if (!offline_done) wake = std::min(wake, offline_at);
    std::this_thread::sleep_until(wake);
    auto now = clock_type::now();
    if (!offline_done && now >= offline_at) {
      offline_done = true;
      if (auto s = world.set_faults(fault_plan(opt.seed, offline_host, offline_ms)); !s)
        return fail(s.error().message);
      std::printf("[%7.2fs] %s offline for %.0f s\n", since(start, now), offline_host.c_str(),
                  offline_ms / 1000);
    }
    if (now >= next_scale) {
      auto i = static_cast<std::size_t>(pick(0, workload.size() - 1));
      replicas[i] = pick(0, workload[i].max);
      if (auto s = scale(world, workload[i], replicas[i]); !s) return fail(s.error().message);
      ++scalings;
      next_scale = now + seconds(uniform(0.2, 2 * opt.scale_interval));
    }
    if (now >= next_kill) {
      auto& current = world.controller(*replica);
      if (!current.process->running()) {
        ++crashes;  // it ended on its own: worth a look at its log
        std::printf("[%7.2fs] controller %zu exited by itself (%d): %s\n", since(start, now),
                    *replica, current.process->exit_code().value_or(-1),
                    current.process->log_path().c_str());
      }
      if (kills + 1 == opt.kills) {
        // Just before the last kill, the final workload: every ReplicaSet at least 1.
        for (std::size_t i = 0; i < workload.size(); ++i) {
          replicas[i] = pick(1, workload[i].max);
          if (auto s = scale(world, workload[i], replicas[i]); !s) return fail(s.error().message);
        }
        ++scalings;
      }
      world.kill_controller(*replica);
      ++kills;
      last_kill = clock_type::now();
      if (kills == opt.kills) {
        // The faults stop with the last kill; the workload holds from here on.
        if (auto s = world.set_faults(""); !s) return fail(s.error().message);
      }
      replica = world.start_controller();
      if (!replica) return fail(replica.error().message);
      next_kill = clock_type::now() + seconds(uniform(0.1, 2 * opt.kill_interval));
      if (kills % 10 == 0 || kills == opt.kills) {
        auto snap = kp::bench::take_snapshot(world, *foreign_vmid);
        std::printf("[%7.2fs] %d kills | %s\n", since(start, last_kill), kills,
                    snap ? snap->line().c_str() : snap.error().message.c_str());
        std::fflush(stdout);
      }
    }
  }
  long wanted = 0;
  for (int r : replicas) wanted += r;
  std::printf(
      "[%7.2fs] last kill; faults cleared; final workload %ld pods (web %d, api %d, "
      "batch %d)\n",
      since(start, last_kill), wanted, replicas[0], replicas[1], replicas[2]);
  std::fflush(stdout);

  std::optional<kp::bench::chaos_snapshot> last;
  std::optional<double> converged_after;
  std::string last_line;
  const auto deadline = last_kill + seconds(opt.converge_timeout);
  while (clock_type::now() < deadline) {
    auto snap = kp::bench::take_snapshot(world, *foreign_vmid);
    if (snap) {
      last = *snap;
      if (snap->line() != last_line) {
        last_line = snap->line();
        std::printf("[%7.2fs] %s\n", since(start, clock_type::now()), last_line.c_str());
        std::fflush(stdout);
      }
      if (snap->converged(wanted)) {
        converged_after = since(last_kill, clock_type::now());
        break;
      }
    }
    // Each look lists every pod, NodeClaim, Node and VM; 250 ms keeps the bench's load small.
    std::this_thread::sleep_for(250ms);
  }
  const auto foreign_after = foreign_state(world, *foreign_vmid);
  const bool foreign_touched = foreign_after != foreign_before;
  auto calls = kp::lab::read_proxmox_calls(world);
  if (!converged_after || foreign_touched) world.keep_files();

  std::printf("\n== bench-chaos: seed %u ==\n", opt.seed);
  if (converged_after)
    std::printf("  converged %.2f s after the last kill\n", *converged_after);
  else
    std::printf("  NOT converged within %.0f s of the last kill; logs kept in %s\n",
                opt.converge_timeout, world.work_dir().c_str());
  if (last) std::printf("  at the end: %s\n", last->line().c_str());
  std::printf("  foreign VM %d: %s -> %s\n", *foreign_vmid, foreign_before.c_str(),
              foreign_after.c_str());
  std::printf("  chaos phase %.1f s, %d scalings, %d controller exits not caused by the bench\n",
              since(start, last_kill), scalings, crashes);
  if (calls) std::printf("  Proxmox: %s; %ld errors\n", calls->summary().c_str(), calls->errors);
  // The key=value lines every benchmark prints (bench/README.md).
  std::printf("kills=%d\n", kills);
  std::printf("seed=%u\n", opt.seed);
  if (converged_after)
    std::printf("converge_seconds=%.2f\n", *converged_after);
  else
    std::printf("converge_seconds=none\n");
  std::printf("pods_running=%ld\n", last ? last->pods_running : 0);
  std::printf("pods_wanted=%ld\n", wanted);
  std::printf("leaked_vms=%ld\n", last ? last->leaked_vms() : -1);
  std::printf("duplicate_vms=%ld\n", last ? last->duplicate_vms() : -1);
  std::printf("foreign_vms_touched=%d\n", foreign_touched ? 1 : 0);
  std::printf("stuck_nodeclaims=%ld\n", last ? last->stuck_nodeclaims() : -1);
  std::printf("controller_exits_unprovoked=%d\n", crashes);
  if (calls) {
    std::printf("vms_created=%ld\n", calls->vms_created);
    std::printf("proxmox_errors=%ld\n", calls->errors);
  }
  return 0;
}
