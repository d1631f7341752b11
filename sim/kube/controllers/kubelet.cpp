// The simulated kubelets of every node: start pods bound to a reachable node (Running, Ready,
// container statuses, IPs) and finish graceful deletions by removing the pod once its containers
// would have stopped (the grace period, capped by settings.pod_termination). Pods on a node
// whose Ready condition is Unknown or False are left alone, as a dead kubelet would.
// Pods whose restartPolicy is Never or OnFailure finish when their run time is over: the
// annotation sim.karpenter.proxmox.sinextra.dev/run-duration ("30s", "1m30s"; Go durations)
// gives it, and a Job's pods without it run settings.job_pod_run_time. They end Succeeded, or
// Failed when the annotation sim.karpenter.proxmox.sinextra.dev/exit-code is not 0. Other pods
// run until deleted.
#include <charconv>
#include <map>
#include <optional>

#include "core/time/go_duration.hpp"

#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

constexpr const char* kRunDuration = "sim.karpenter.proxmox.sinextra.dev/run-duration";
constexpr const char* kExitCode = "sim.karpenter.proxmox.sinextra.dev/exit-code";

std::string_view annotation(const json::object& pod, std::string_view key) {
  if (const auto* a = object_at(pod, {"metadata", "annotations"}))
    if (const auto* v = a->if_contains(key); v && v->is_string()) return v->get_string();
  return {};
}

bool owned_by_job(const json::object& pod) {
  if (const auto* refs = array_at(pod, {"metadata", "ownerReferences"}))
    for (const auto& r : *refs)
      if (r.is_object() && string_at(r.get_object(), {"kind"}) == "Job" &&
          string_at(r.get_object(), {"apiVersion"}) == "batch/v1")
        return true;
  return false;
}

// How long a pod's containers run before they exit; nullopt: until deleted.
std::optional<std::chrono::milliseconds> run_time(const json::object& pod,
                                                  const controller_settings& settings) {
  auto policy = string_at(pod, {"spec", "restartPolicy"});
  if (policy != "Never" && policy != "OnFailure") return std::nullopt;
  auto text = annotation(pod, kRunDuration);
  if (!text.empty()) {
    // An unreadable duration is ignored, as the real kubelet ignores annotations it does not know.
    if (auto d = time::parse_go_duration(text); d && d->count() >= 0)
      return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
    return std::nullopt;
  }
  if (owned_by_job(pod)) return settings.job_pod_run_time;
  return std::nullopt;
}

class kubelet final : public controller {
 public:
  const char* name() const override { return "kubelet"; }

  void reconcile(controller_context& ctx) override {
    auto& store = ctx.ops.store();
    const auto* pods = store.objects("/pods");
    if (!pods) return;
    std::map<std::string, std::pair<bool, std::string>> nodes;  // name -> (alive, InternalIP)
    if (const auto* ns = store.objects("/nodes"))
      for (const auto& [k, n] : *ns) {
        auto ready = condition_status(n->object, "Ready");
        std::string ip;
        if (const auto* as = array_at(n->object, {"status", "addresses"}))
          for (const auto& a : *as)
            if (a.is_object() && string_at(a.get_object(), {"type"}) == "InternalIP")
              ip = std::string(string_at(a.get_object(), {"address"}));
        nodes[std::string(meta_name(n->object))] = {ready != "Unknown" && ready != "False", ip};
      }
    const auto& pod_type = builtin_type(ctx.ops, "", "pods");
    std::vector<object_ptr> to_start;
    std::vector<object_ptr> to_remove;
    std::vector<object_ptr> to_finish;
    for (const auto& [k, p] : *pods) {
      const auto& o = p->object;
      auto node = string_at(o, {"spec", "nodeName"});
      if (node.empty()) continue;
      auto it = nodes.find(std::string(node));
      if (it == nodes.end() || !it->second.first) continue;
      if (has_deletion_timestamp(o)) {
        auto deadline = parse_time(string_at(o, {"metadata", "deletionTimestamp"}));
        std::int64_t grace = 0;
        if (const auto* g = find_path(o, {"metadata", "deletionGracePeriodSeconds"}))
          grace = as_int(*g).value_or(0);
        if (!deadline) continue;
        // Stopping starts when this kubelet first sees the deletion: deletionTimestamp has whole
        // seconds only, so the time it implies may be up to a second early.
        auto started =
            std::max(*deadline - std::chrono::seconds(grace),
                     stopping_since_.emplace(std::string(meta_uid(o)), ctx.now).first->second);
        auto stop_after = std::min<std::chrono::system_clock::duration>(
            std::chrono::seconds(grace), ctx.settings.pod_termination);
        if (ctx.now >= started + stop_after) to_remove.push_back(p);
        continue;
      }
      auto phase = string_at(o, {"status", "phase"});
      if (phase == "Pending") {
        to_start.push_back(p);
      } else if (phase == "Running") {
        auto run = run_time(o, ctx.settings);
        if (!run) continue;
        std::string uid(meta_uid(o));
        auto since = started_.find(uid);
        auto start = since != started_.end() ? std::optional<sys_time>(since->second)
                                             : parse_time(string_at(o, {"status", "startTime"}));
        if (start && ctx.now >= *start + *run) to_finish.push_back(p);
      }
    }
    auto now = format_time(ctx.now);
    for (const auto& p : to_start) {
      json::object next = p->object;
      auto& status = ensure_object(next, "status");
      status["phase"] = "Running";
      auto ip = nodes[std::string(string_at(next, {"spec", "nodeName"}))].second;
      status["hostIP"] = ip.empty() ? "10.0.0.1" : ip;
      auto pod_ip = next_pod_ip();
      status["podIP"] = pod_ip;
      status["podIPs"] = json::array{json::object{{"ip", pod_ip}}};
      status["startTime"] = now;
      for (const char* c :
           {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"})
        set_condition(next, c, "True", "", "", now);
      json::array statuses;
      if (const auto* cs = array_at(next, {"spec", "containers"}))
        for (const auto& c : *cs) {
          if (!c.is_object()) continue;
          const auto& co = c.get_object();
          statuses.push_back(
              json::object{{"name", co.contains("name") ? co.at("name") : json::value("")},
                           {"image", co.contains("image") ? co.at("image") : json::value("")},
                           {"imageID", ""},
                           {"containerID", "containerd://" + make_uid()},
                           {"ready", true},
                           {"started", true},
                           {"restartCount", 0},
                           {"state", json::object{{"running", json::object{{"startedAt", now}}}}}});
        }
      status["containerStatuses"] = std::move(statuses);
      if (run_time(next, ctx.settings)) started_[std::string(meta_uid(next))] = ctx.now;
      ctx.ops.write(pod_type, std::move(next));
    }
    for (const auto& p : to_finish) finish(ctx, pod_type, p->object, now);
    for (const auto& p : to_remove) stopping_since_.erase(std::string(meta_uid(p->object)));
    for (auto it = stopping_since_.begin(); it != stopping_since_.end();)
      it = ctx.ops.store().find_uid(it->first) ? std::next(it) : stopping_since_.erase(it);
    // Forget start times of pods that are gone or finished.
    for (auto it = started_.begin(); it != started_.end();) {
      auto found = ctx.ops.store().find_uid(it->first);
      it = found && string_at(found->object, {"status", "phase"}) == "Running" ? std::next(it)
                                                                               : started_.erase(it);
    }
    for (const auto& p : to_remove) {
      delete_options d;
      d.grace_period_seconds = 0;
      (void)ctx.ops.remove(pod_type, meta_namespace(p->object), meta_name(p->object), d);
    }
  }

 private:
  // Containers exit: the pod ends Succeeded (exit code 0) or Failed.
  void finish(controller_context& ctx, const resource_type& pod_type, const json::object& pod,
              const std::string& now) {
    std::int64_t code = 0;
    if (auto text = annotation(pod, kExitCode); !text.empty()) {
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), code);
      if (ec != std::errc{} || p != text.data() + text.size()) code = 1;
    }
    json::object next = pod;
    auto& status = ensure_object(next, "status");
    status["phase"] = code == 0 ? "Succeeded" : "Failed";
    for (const char* c : {"PodReadyToStartContainers", "Ready", "ContainersReady"})
      set_condition(next, c, "False", "PodCompleted", "", now);
    std::string started_at(string_at(pod, {"status", "startTime"}));
    if (auto* cs = status.if_contains("containerStatuses"); cs && cs->is_array())
      for (auto& c : cs->get_array()) {
        if (!c.is_object()) continue;
        auto& co = c.get_object();
        co["ready"] = false;
        co["started"] = false;
        co["state"] =
            json::object{{"terminated", json::object{{"exitCode", code},
                                                     {"reason", code == 0 ? "Completed" : "Error"},
                                                     {"startedAt", started_at},
                                                     {"finishedAt", now},
                                                     {"containerID", co.contains("containerID")
                                                                         ? co.at("containerID")
                                                                         : json::value("")}}}};
      }
    ctx.ops.write(pod_type, std::move(next));
  }

  std::string next_pod_ip() {
    auto n = ++ip_counter_;
    return "10.244." + std::to_string((n / 250) % 250) + "." + std::to_string(n % 250 + 2);
  }
  std::uint64_t ip_counter_ = 0;
  std::map<std::string, sys_time> started_;         // pod uid -> when this kubelet started it
  std::map<std::string, sys_time> stopping_since_;  // pod uid -> when it saw the deletion
};

}  // namespace

std::unique_ptr<controller> make_kubelet() {
  return std::make_unique<kubelet>();
}

}  // namespace kp::sim::kube
