#include "sim/lab/scenario_runner.hpp"

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <thread>

#include "core/parse_number.hpp"
#include "sim/lab/controller_metrics.hpp"
#include "sim/lab/lab_world.hpp"

namespace kp::lab {

namespace json = boost::json;
using clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

double seconds_since(clock::time_point t) {
  return std::chrono::duration<double>(clock::now() - t).count();
}

std::string fixed(double v, int digits = 1) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string stamp(clock::time_point start) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "[%6.1fs] ", seconds_since(start));
  return buf;
}

// Host NUMA nodes named by a VM's numaN entries ("cpus=0-3,hostnodes=1,memory=4096").
std::vector<int> pinned_host_nodes(const json::object& config) {
  std::vector<int> nodes;
  for (const auto& [key, value] : config) {
    if (key.size() < 5 || key.substr(0, 4) != "numa" || !value.is_string()) continue;
    std::string v(value.as_string());
    auto pos = v.find("hostnodes=");
    if (pos == std::string::npos) continue;
    auto digits = std::string_view(v).substr(pos + 10);
    digits = digits.substr(0, digits.find_first_not_of("0123456789"));
    if (auto node = parse_integer<int>(digits)) nodes.push_back(*node);
  }
  return nodes;
}

std::vector<host_placement> read_placement(lab_world& world) {
  std::vector<host_placement> out;
  auto hosts = world.pve().call("GET", "/sim/v1/hosts");
  if (!hosts || !hosts->ok()) return out;
  auto v = hosts->json();
  if (!v.is_array()) return out;
  std::map<std::string, host_placement> by_host;
  for (const auto& h : v.as_array()) {
    const auto& o = h.as_object();
    host_placement p;
    p.host = std::string(o.at("node").as_string());
    p.vcpus = static_cast<long>(o.at("running_vcpus").to_number<double>());
    if (auto* numa = o.if_contains("numa"); numa && numa->is_array()) {
      for (const auto& n : numa->as_array()) {
        const auto& no = n.as_object();
        int id = static_cast<int>(no.at("id").to_number<double>());
        double total = no.at("memory").to_number<double>();
        double free = no.at("free").to_number<double>();
        p.numa_used_gib[id] = (total - free) / double(1ull << 30);
      }
    }
    by_host[p.host] = p;
  }
  if (auto vms = world.vms(true)) {
    for (const auto& vm : *vms) {
      if (vm.templated) continue;  // node VMs only
      auto& p = by_host[vm.node];
      p.host = vm.node;
      ++p.vms;
      auto cfg =
          world.pve_api("GET", "/nodes/" + vm.node + "/qemu/" + std::to_string(vm.vmid) + "/config",
                        "/nodes/{node}/qemu/{vmid}/config");
      std::vector<int> pinned;
      if (cfg && cfg->ok()) {
        auto c = cfg->json();
        if (c.is_object() && c.as_object().contains("data") && c.at("data").is_object())
          pinned = pinned_host_nodes(c.at("data").as_object());
      }
      if (pinned.empty()) ++p.unpinned;
      for (int n : pinned) ++p.vms_per_numa[n];
    }
  }
  for (auto& [_, p] : by_host) out.push_back(p);
  return out;
}

// The closing figures: Proxmox requests per VM, clone -> Ready per VM, the controller's RSS, CPU
// and a few counters.
void close_report(lab_world& world, run_report& report) {
  if (auto calls = read_proxmox_calls(world)) report.calls = *calls;
  std::vector<vm_launch_timing> timings;
  for (std::size_t i = 0; i < world.controller_count(); ++i) {
    const auto& c = world.controller(i);
    if (!c.process) continue;
    if (auto t = read_launch_timings(c.process->log_path())) {
      timings.insert(timings.end(), t->begin(), t->end());
    }
  }
  report.launch_timings = summarise_launch_timings(timings);
  if (world.controller_count() > 0) {
    auto& c = world.controller(0);
    std::optional<process_sample> end = c.last_sample;
    if (c.process && c.process->running()) end = sample_process(c.process->pid());
    if (end) {
      report.controller_peak_rss_mib = static_cast<double>(end->peak_rss_kib) / 1024.0;
      report.controller_average_cores = average_cores(c.first_sample, *end);
    }
    if (c.process && c.process->running()) {
      if (auto m = read_controller_metrics(c.metrics_port)) {
        for (const char* family :
             {"karpenter_nodeclaims_created_total", "karpenter_nodeclaims_terminated_total",
              "karpenter_nodes_created_total", "karpenter_cloudprovider_errors_total"})
          if (auto it = m->find(family); it != m->end())
            report.controller_counters[family] = it->second;
      }
    }
  }
}

}  // namespace

run_report run_scenario(lab_world& world, const scenario& s, const progress_sink& progress) {
  run_report report;
  report.scenario = s.name;
  auto start = clock::now();
  std::optional<clock::time_point> pods_created;
  std::optional<world_observation> last;
  auto say = [&](const std::string& text) {
    if (progress) progress(stamp(start) + text);
  };
  // One observation; prints a line when anything changed and notes when all pods first run.
  auto look = [&]() -> std::optional<world_observation> {
    auto o = observe(world);
    if (!o) return std::nullopt;
    if (!last || !o->same_as(*last)) say(o->line());
    if (pods_created && !report.seconds_to_all_running && o->pods > 0 &&
        o->pods_running == o->pods) {
      report.seconds_to_all_running =
          std::chrono::duration<double>(clock::now() - *pods_created).count();
      report.pods_at_all_running = o->pods;
      report.placement = read_placement(world);
      if (auto sizes = read_node_sizes(world)) report.nodes = *sizes;
      say("all " + std::to_string(o->pods) + " pods Running after " +
          fixed(*report.seconds_to_all_running) + " s");
    }
    last = *o;
    return *o;
  };

  say("scenario \"" + s.name + "\": " + std::to_string(s.steps.size()) + " steps");
  for (const auto& step : s.steps) {
    step_outcome out;
    out.label = step.label;
    auto step_start = clock::now();
    status done;
    switch (step.type) {
      case scenario_step::kind::apply:
        done = world.apply_yaml(step.manifest);
        break;
      case scenario_step::kind::scale: {
        const auto& sc = step.scale;
        std::string requests = sc.cpu.empty() && sc.memory.empty()
                                   ? std::string()
                                   : " of " + sc.cpu + " / " + sc.memory;
        if (sc.kind == "DaemonSet")
          say(step.label + ": DaemonSet " + sc.name + ", one pod per node" + requests);
        else
          say(step.label + ": " + (sc.kind == "ReplicaSet" ? "" : sc.kind + " ") + sc.name +
              " -> " + std::to_string(sc.replicas) + " pods" + requests);
        if (sc.replicas > 0 && !pods_created) pods_created = clock::now();
        done = apply_scale_step(world, sc);
        break;
      }
      case scenario_step::kind::rollout: {
        const auto& r = step.rollout;
        say(step.label + ": " + r.kind + " " + r.name + " rolls to" +
            (r.image.empty() ? "" : " image " + r.image) +
            (r.cpu.empty() && r.memory.empty() ? "" : " requests " + r.cpu + " / " + r.memory));
        done = apply_rollout_step(world, r);
        break;
      }
      case scenario_step::kind::remove: {
        const auto& d = step.remove;
        if (d.all) {
          auto path = world.collection_path(d.api_version, d.kind, d.ns);
          if (!path) {
            done = path.error();
            break;
          }
          auto items = world.list(*path);
          if (!items) {
            done = items.error();
            break;
          }
          for (const auto& item : *items) {
            const auto& meta = item.as_object().at("metadata").as_object();
            std::string ns =
                meta.contains("namespace") ? std::string(meta.at("namespace").as_string()) : "";
            if (auto r = world.remove(d.api_version, d.kind,
                                      std::string(meta.at("name").as_string()), ns);
                !r) {
              done = r;
              break;
            }
          }
        } else {
          done = world.remove(d.api_version, d.kind, d.name, d.ns);
        }
        break;
      }
      case scenario_step::kind::fault:
        say(step.label + (step.faults.empty() ? ": clearing faults" : ": injecting faults"));
        done = world.set_faults(step.faults);
        break;
      case scenario_step::kind::expect: {
        std::string want;
        for (const auto& [name, c] : step.expect.conditions)
          want += (want.empty() ? "" : ", ") + name + " " + c.text();
        out.optional = step.expect.optional;
        say(step.label + ": waiting up to " + fixed(step.expect.within.count() / 1000.0) +
            " s for " + want);
        auto deadline = clock::now() + step.expect.within;
        std::string unmet;
        for (;;) {
          auto o = look();
          unmet.clear();
          if (!o) {
            unmet = "the simulators did not answer";
          } else {
            for (const auto& [name, c] : step.expect.conditions)
              if (!c.holds(o->metric(name)))
                unmet += (unmet.empty() ? "" : ", ") + name + " is " +
                         std::to_string(o->metric(name)) + " (want " + c.text() + ")";
          }
          if (unmet.empty() || clock::now() >= deadline) break;
          std::this_thread::sleep_for(100ms);
        }
        if (!unmet.empty())
          done = make_error("expect_failed",
                            "after " + fixed(step.expect.within.count() / 1000.0) + " s: " + unmet);
        break;
      }
    }
    out.seconds = seconds_since(step_start);
    out.passed = done.ok();
    if (!done) out.message = done.error().message;
    report.steps.push_back(out);
    if (!out.passed) {
      say(step.label + (out.optional ? " not met (optional): " : " FAILED: ") + out.message);
      if (!out.optional) {
        report.passed = false;
        report.failed_step = step.label + ": " + out.message;
        break;
      }
    } else if (step.type == scenario_step::kind::expect) {
      say(step.label + " met after " + fixed(out.seconds) + " s");
    }
    if (step.type != scenario_step::kind::expect) look();
  }
  report.total_seconds = seconds_since(start);
  close_report(world, report);
  return report;
}

void watch_world(lab_world& world, run_report& report, const std::function<bool()>& stop,
                 const progress_sink& progress) {
  auto start = clock::now();
  std::optional<world_observation> last;
  bool all_ran = false;
  while (!stop()) {
    if (auto o = observe(world)) {
      if (!last || !o->same_as(*last)) {
        if (progress) progress(stamp(start) + o->line());
        all_ran = false;  // a change: take the sizes again once everything runs
      }
      if (!all_ran && o->pods > 0 && o->pods_running == o->pods && o->pods_pending == 0) {
        all_ran = true;
        if (!report.seconds_to_all_running) {
          report.seconds_to_all_running = seconds_since(start);
          report.pods_at_all_running = o->pods;
        }
        report.placement = read_placement(world);
        if (auto sizes = read_node_sizes(world)) report.nodes = *sizes;
      }
      last = *o;
    }
    std::this_thread::sleep_for(100ms);
  }
  report.total_seconds += seconds_since(start);
  close_report(world, report);
}

std::string run_report::summary() const {
  std::string s = "\n== summary: " + scenario + " ==\n";
  for (const auto& st : steps)
    s += "  " +
         std::string(st.passed     ? "ok    "
                     : st.optional ? "miss  "
                                   : "FAIL  ") +
         st.label + " (" + fixed(st.seconds) + " s)" +
         (st.message.empty() ? "" : ": " + st.message) + "\n";
  s += "  time to all pods Running: " +
       (seconds_to_all_running ? fixed(*seconds_to_all_running, 2) + " s (" +
                                     std::to_string(pods_at_all_running) + " pods)"
                               : std::string("never")) +
       "\n";
  if (!placement.empty()) {
    s += "  VMs per host and NUMA node (when all pods ran):\n";
    for (const auto& p : placement) {
      s += "    " + p.host + ": " + std::to_string(p.vms) + " VMs, " + std::to_string(p.vcpus) +
           " vCPUs running";
      for (const auto& [id, gib] : p.numa_used_gib) {
        s += "; NUMA " + std::to_string(id) + ": ";
        auto it = p.vms_per_numa.find(id);
        s += std::to_string(it == p.vms_per_numa.end() ? 0 : it->second) + " pinned VMs, " +
             fixed(gib) + " GiB used";
      }
      if (p.unpinned > 0) s += "; " + std::to_string(p.unpinned) + " VMs unpinned (memory spread)";
      s += "\n";
    }
  }
  if (!nodes.empty()) {
    s += "  nodes when all pods ran (requests of app + DaemonSet pods, of allocatable):\n";
    for (const auto& n : nodes) s += "    " + n.line() + "\n";
  }
  s += launch_timing_table(launch_timings);
  if (calls) s += "  Proxmox API: " + calls->summary() + "\n";
  if (controller_peak_rss_mib)
    s += "  controller: peak RSS " + fixed(*controller_peak_rss_mib) + " MiB, average CPU " +
         fixed(controller_average_cores.value_or(0), 3) + " cores\n";
  if (!controller_counters.empty()) {
    s += "  controller counters:";
    for (const auto& [name, value] : controller_counters) s += " " + name + "=" + fixed(value, 0);
    s += "\n";
  }
  s += "  total " + fixed(total_seconds) +
       " s: " + (passed ? std::string("PASSED") : "FAILED at " + failed_step) + "\n";
  return s;
}

}  // namespace kp::lab
