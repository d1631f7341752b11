// The simulated kubelets of every node: start pods bound to a reachable node (Running, Ready,
// container statuses, IPs) and finish graceful deletions by removing the pod once its containers
// would have stopped (the grace period, capped by settings.pod_termination). Pods on a node
// whose Ready condition is Unknown or False are left alone, as a dead kubelet would.
#include <map>

#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

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
        auto started = *deadline - std::chrono::seconds(grace);
        auto stop_after = std::min<std::chrono::system_clock::duration>(
            std::chrono::seconds(grace), ctx.settings.pod_termination);
        if (ctx.now >= started + stop_after) to_remove.push_back(p);
        continue;
      }
      if (string_at(o, {"status", "phase"}) == "Pending") to_start.push_back(p);
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
      ctx.ops.write(pod_type, std::move(next));
    }
    for (const auto& p : to_remove) {
      delete_options d;
      d.grace_period_seconds = 0;
      (void)ctx.ops.remove(pod_type, meta_namespace(p->object), meta_name(p->object), d);
    }
  }

 private:
  std::string next_pod_ip() {
    auto n = ++ip_counter_;
    return "10.244." + std::to_string((n / 250) % 250) + "." + std::to_string(n % 250 + 2);
  }
  std::uint64_t ip_counter_ = 0;
};

}  // namespace

std::unique_ptr<controller> make_kubelet() {
  return std::make_unique<kubelet>();
}

}  // namespace kp::sim::kube
