// The node lifecycle controller: a node whose heartbeat (its Lease in kube-node-lease, else its
// Ready condition's lastHeartbeatTime, else its creation) is older than the monitor grace period
// gets Ready=Unknown and the unreachable taints; Ready=False gets the not-ready taints; pods that
// do not tolerate a NoExecute taint are evicted (after their tolerationSeconds). When a node's
// lease renews again after it was marked Unknown, it is Ready again (the kubelet's own report).
#include <map>

#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

constexpr const char* kUnreachable = "node.kubernetes.io/unreachable";
constexpr const char* kNotReady = "node.kubernetes.io/not-ready";
constexpr const char* kUnknownReason = "NodeStatusUnknown";

void set_managed_taints(json::object& node, const char* key, const std::string& now) {
  auto& spec = ensure_object(node, "spec");
  json::array kept;
  bool have_schedule = false, have_execute = false;
  if (const auto* taints = spec.if_contains("taints"); taints && taints->is_array())
    for (const auto& t : taints->get_array()) {
      if (!t.is_object()) continue;
      auto k = string_at(t.get_object(), {"key"});
      if (k == kUnreachable || k == kNotReady) {
        if (key == nullptr || k != key) continue;
        auto effect = string_at(t.get_object(), {"effect"});
        have_schedule |= effect == "NoSchedule";
        have_execute |= effect == "NoExecute";
      }
      kept.push_back(t);
    }
  if (key) {
    if (!have_schedule) kept.push_back(json::object{{"key", key}, {"effect", "NoSchedule"}});
    if (!have_execute)
      kept.push_back(json::object{{"key", key}, {"effect", "NoExecute"}, {"timeAdded", now}});
  }
  if (kept.empty())
    spec.erase("taints");
  else
    spec["taints"] = std::move(kept);
}

class node_lifecycle final : public controller {
 public:
  const char* name() const override { return "node-lifecycle"; }

  void reconcile(controller_context& ctx) override {
    auto& store = ctx.ops.store();
    const auto* nodes = store.objects("/nodes");
    if (!nodes || nodes->empty()) return;
    const auto& node_type = builtin_type(ctx.ops, "", "nodes");
    auto now_text = format_time(ctx.now);
    std::vector<object_ptr> snapshot;
    for (const auto& [k, n] : *nodes) snapshot.push_back(n);
    std::map<std::string, object_ptr> current;
    for (const auto& n : snapshot) {
      const auto& o = n->object;
      std::string name(meta_name(o));
      std::optional<sys_time> heartbeat =
          parse_time(string_at(o, {"metadata", "creationTimestamp"}));
      bool has_lease = false;
      if (auto lease = store.get("coordination.k8s.io/leases", "kube-node-lease", name)) {
        if (auto t = parse_time(string_at(lease->object, {"spec", "renewTime"}))) {
          has_lease = true;
          if (!heartbeat || *t > *heartbeat) heartbeat = t;
        }
      }
      if (const auto* cs = array_at(o, {"status", "conditions"}))
        for (const auto& c : *cs)
          if (c.is_object() && string_at(c.get_object(), {"type"}) == "Ready")
            if (auto t = parse_time(string_at(c.get_object(), {"lastHeartbeatTime"})))
              if (!heartbeat || *t > *heartbeat) heartbeat = t;
      bool stale = heartbeat && ctx.now - *heartbeat > ctx.settings.node_monitor_grace;
      json::object next = o;
      auto ready = condition_status(o, "Ready");
      std::string reason;
      if (const auto* cs = array_at(o, {"status", "conditions"}))
        for (const auto& c : *cs)
          if (c.is_object() && string_at(c.get_object(), {"type"}) == "Ready")
            reason = std::string(string_at(c.get_object(), {"reason"}));
      if (stale && ready != "Unknown") {
        for (const char* c : {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure"})
          set_condition(next, c, "Unknown", kUnknownReason, "Kubelet stopped posting node status.",
                        now_text);
        ready = "Unknown";
      } else if (!stale && has_lease && ready == "Unknown" && reason == kUnknownReason) {
        set_condition(next, "Ready", "True", "KubeletReady", "kubelet is posting ready status",
                      now_text);
        for (const char* c : {"MemoryPressure", "DiskPressure", "PIDPressure"})
          set_condition(next, c, "False", "KubeletHasSufficientResources", "", now_text);
        ready = "True";
      }
      if (ready == "Unknown")
        set_managed_taints(next, kUnreachable, now_text);
      else if (ready == "False")
        set_managed_taints(next, kNotReady, now_text);
      else if (ready == "True")
        set_managed_taints(next, nullptr, now_text);
      current[name] = ctx.ops.write(node_type, std::move(next));
    }
    evict_untolerated(ctx, current);
  }

 private:
  // Taint-based eviction (NoExecute), as the taint eviction controller does.
  void evict_untolerated(controller_context& ctx, const std::map<std::string, object_ptr>& nodes) {
    std::map<std::string, std::vector<json::object>> no_execute;
    for (const auto& [name, n] : nodes)
      if (const auto* taints = array_at(n->object, {"spec", "taints"}))
        for (const auto& t : *taints)
          if (t.is_object() && string_at(t.get_object(), {"effect"}) == "NoExecute")
            no_execute[name].push_back(t.get_object());
    if (no_execute.empty()) return;
    const auto* pods = ctx.ops.store().objects("/pods");
    if (!pods) return;
    std::vector<object_ptr> doomed;
    for (const auto& [k, p] : *pods) {
      const auto& pod = p->object;
      auto it = no_execute.find(std::string(string_at(pod, {"spec", "nodeName"})));
      if (it == no_execute.end() || has_deletion_timestamp(pod) || is_pod_terminal(pod)) continue;
      for (const auto& taint : it->second) {
        if (!tolerates(pod, taint)) {
          doomed.push_back(p);
          break;
        }
        // Tolerated for a while only: evict once tolerationSeconds have passed since the taint.
        auto seconds = toleration_seconds(pod, taint);
        auto added = parse_time(string_at(taint, {"timeAdded"}));
        if (seconds && added && ctx.now >= *added + std::chrono::seconds(*seconds)) {
          doomed.push_back(p);
          break;
        }
      }
    }
    const auto& pod_type = builtin_type(ctx.ops, "", "pods");
    for (const auto& p : doomed)
      (void)ctx.ops.remove(pod_type, meta_namespace(p->object), meta_name(p->object), {});
  }

  static std::optional<std::int64_t> toleration_seconds(const json::object& pod,
                                                        const json::object& taint) {
    std::optional<std::int64_t> best;
    const auto* tols = array_at(pod, {"spec", "tolerations"});
    if (!tols) return best;
    for (const auto& tv : *tols) {
      if (!tv.is_object()) continue;
      json::object single_pod{{"spec", json::object{{"tolerations", json::array{tv}}}}};
      if (!tolerates(single_pod, taint)) continue;
      const auto* s = tv.get_object().if_contains("tolerationSeconds");
      if (!s) return std::nullopt;  // tolerated forever by this one
      auto v = as_int(*s).value_or(0);
      best = best ? std::max(*best, v) : v;
    }
    return best;
  }
};

}  // namespace

std::unique_ptr<controller> make_node_lifecycle() {
  return std::make_unique<node_lifecycle>();
}

}  // namespace kp::sim::kube
