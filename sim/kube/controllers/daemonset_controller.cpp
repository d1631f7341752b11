// The apps/v1 DaemonSet controller: one pod on every eligible node, nodes that appear later
// included. A node is eligible when the template's nodeSelector and required node affinity match
// it and its NoSchedule/NoExecute taints are tolerated, counting the tolerations every DaemonSet
// pod gets (not-ready and unreachable NoExecute; disk-, memory-, pid-pressure and unschedulable
// NoSchedule; network-unavailable for hostNetwork pods). A pod stays on a node that gained an
// untolerated NoSchedule taint and goes when the taint is NoExecute. As Kubernetes does since
// 1.12, each pod targets its node through required node affinity on metadata.name and the
// scheduler binds it, so a pod that does not fit stays Pending. Template changes roll out with
// RollingUpdate (maxUnavailable, 1 by default) or wait for deletions (OnDelete). Status:
// desiredNumberScheduled, currentNumberScheduled, numberMisscheduled, numberReady,
// numberAvailable, numberUnavailable, updatedNumberScheduled, observedGeneration.
#include <algorithm>
#include <map>
#include <set>

#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/controllers/workload_pods.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

constexpr const char* kHashLabel = "controller-revision-hash";
constexpr const char* kGenerationLabel = "pod-template-generation";

struct node_fit {
  bool should_run = false;       // a pod may be placed here
  bool should_continue = false;  // a pod already here may stay
};

node_fit fit(const json::object& pod, const json::object& node) {
  auto wanted_node = string_at(pod, {"spec", "nodeName"});
  if (!wanted_node.empty() && wanted_node != meta_name(node)) return {};
  if (!node_affinity_matches(pod, node)) return {};
  node_fit f{true, true};
  if (const auto* taints = array_at(node, {"spec", "taints"}))
    for (const auto& t : *taints) {
      const auto* to = t.if_object();
      if (!to) continue;
      auto effect = string_at(*to, {"effect"});
      if ((effect != "NoSchedule" && effect != "NoExecute") || tolerates(pod, *to)) continue;
      f.should_run = false;
      if (effect == "NoExecute") f.should_continue = false;
    }
  return f;
}

// The template's pod with the tolerations Kubernetes adds to every DaemonSet pod.
json::object daemon_pod_spec(const json::object& pod_template) {
  json::object spec;
  if (const auto* s = object_at(pod_template, {"spec"})) spec = *s;
  auto& tolerations = ensure_array(spec, "tolerations");
  auto add = [&](const char* key, const char* effect) {
    for (const auto& t : tolerations)
      if (t.is_object() && string_at(t.get_object(), {"key"}) == key &&
          string_at(t.get_object(), {"effect"}) == effect &&
          string_at(t.get_object(), {"operator"}) == "Exists")
        return;
    tolerations.push_back(json::object{{"key", key}, {"operator", "Exists"}, {"effect", effect}});
  };
  add("node.kubernetes.io/not-ready", "NoExecute");
  add("node.kubernetes.io/unreachable", "NoExecute");
  add("node.kubernetes.io/disk-pressure", "NoSchedule");
  add("node.kubernetes.io/memory-pressure", "NoSchedule");
  add("node.kubernetes.io/pid-pressure", "NoSchedule");
  add("node.kubernetes.io/unschedulable", "NoSchedule");
  const auto* host_network = spec.if_contains("hostNetwork");
  if (host_network && host_network->is_bool() && host_network->get_bool())
    add("node.kubernetes.io/network-unavailable", "NoSchedule");
  return spec;
}

// The node a DaemonSet pod is for: where it is bound, else its metadata.name affinity.
std::string target_node(const json::object& pod) {
  auto bound = string_at(pod, {"spec", "nodeName"});
  if (!bound.empty()) return std::string(bound);
  if (const auto* terms =
          array_at(pod, {"spec", "affinity", "nodeAffinity",
                         "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"}))
    for (const auto& t : *terms)
      if (const auto* fields = t.is_object() ? array_at(t.get_object(), {"matchFields"}) : nullptr)
        for (const auto& f : *fields) {
          const auto* fo = f.if_object();
          if (!fo || string_at(*fo, {"key"}) != "metadata.name") continue;
          const auto* values = array_at(*fo, {"values"});
          if (values && values->size() == 1 && (*values)[0].is_string())
            return std::string((*values)[0].get_string());
        }
  return {};
}

std::string label_of(const json::object& o, std::string_view key) {
  if (const auto* labels = object_at(o, {"metadata", "labels"}))
    if (const auto* v = labels->if_contains(key); v && v->is_string())
      return std::string(v->get_string());
  return {};
}

class daemonset_controller final : public controller {
 public:
  const char* name() const override { return "daemonset"; }

  void reconcile(controller_context& ctx) override {
    auto& store = ctx.ops.store();
    const auto* sets = store.objects("apps/daemonsets");
    if (!sets || sets->empty()) return;
    std::vector<object_ptr> all;
    for (const auto& [k, d] : *sets) all.push_back(d);
    std::vector<object_ptr> nodes;
    if (const auto* ns = store.objects("/nodes"))
      for (const auto& [k, n] : *ns) nodes.push_back(n);
    std::map<std::string, std::unordered_map<std::string, std::vector<object_ptr>>> pods_by_ns;
    for (const auto& d : all) {
      std::string ns(meta_namespace(d->object));
      auto found = pods_by_ns.find(ns);
      if (found == pods_by_ns.end())
        found = pods_by_ns.emplace(ns, objects_by_controller(store, "/pods", ns)).first;
      sync(ctx, d->object, nodes, found->second[std::string(meta_uid(d->object))]);
    }
  }

 private:
  void sync(controller_context& ctx, const json::object& ds, const std::vector<object_ptr>& nodes,
            const std::vector<object_ptr>& owned) {
    const auto* tmpl = object_at(ds, {"spec", "template"});
    if (!tmpl) return;
    const auto& pod_type = builtin_type(ctx.ops, "", "pods");
    std::string ns(meta_namespace(ds));
    auto hash = template_hash(*tmpl, int_at(ds, {"status", "collisionCount"}, 0));
    auto generation = int_at(ds, {"metadata", "generation"}, 1);
    auto min_ready = int_at(ds, {"spec", "minReadySeconds"}, 0);
    json::object proto{{"spec", daemon_pod_spec(*tmpl)}};
    bool deleting = has_deletion_timestamp(ds);

    std::map<std::string, std::vector<object_ptr>> by_node;  // every pod, oldest first
    for (const auto& p : owned) by_node[target_node(p->object)].push_back(p);
    for (auto& [n, pods] : by_node)
      std::stable_sort(pods.begin(), pods.end(), [](const object_ptr& a, const object_ptr& b) {
        return string_at(a->object, {"metadata", "creationTimestamp"}) <
               string_at(b->object, {"metadata", "creationTimestamp"});
      });
    std::set<std::string> existing;
    std::vector<object_ptr> doomed;
    std::vector<std::string> wanted_on;
    struct placed {
      object_ptr pod;  // the oldest live pod on a node that should run one
      bool current = false;
      bool available = false;
    };
    std::vector<placed> running;
    std::int64_t desired = 0, scheduled = 0, misscheduled = 0, ready = 0, available = 0,
                 updated = 0;
    for (const auto& n : nodes) {
      std::string node(meta_name(n->object));
      existing.insert(node);
      auto f = fit(proto, n->object);
      auto it = by_node.find(node);
      std::vector<object_ptr> live;
      bool any = false;
      if (it != by_node.end())
        for (const auto& p : it->second) {
          any = true;
          if (has_deletion_timestamp(p->object)) continue;
          if (is_pod_terminal(p->object)) {
            doomed.push_back(p);  // a failed daemon pod is replaced
            continue;
          }
          live.push_back(p);
        }
      if (f.should_run) {
        ++desired;
        if (!live.empty()) {
          ++scheduled;
          const auto& first = live.front()->object;
          bool is_ready = pod_ready(first);
          bool is_available = pod_available(first, min_ready, ctx.now);
          bool is_current = label_of(first, kHashLabel) == hash;
          ready += is_ready ? 1 : 0;
          available += is_available ? 1 : 0;
          updated += is_current ? 1 : 0;
          running.push_back({live.front(), is_current, is_available});
          for (std::size_t i = 1; i < live.size(); ++i) doomed.push_back(live[i]);
        } else if (!any && !deleting) {
          wanted_on.push_back(node);
        }
      } else {
        if (!live.empty()) ++misscheduled;
        if (!f.should_continue)
          for (const auto& p : live) doomed.push_back(p);
      }
    }
    // Pods for nodes that are gone: unbound ones are the DaemonSet's to delete (bound ones are
    // the pod garbage collector's).
    for (const auto& [node, pods] : by_node)
      if (!existing.count(node))
        for (const auto& p : pods)
          if (string_at(p->object, {"spec", "nodeName"}).empty() &&
              !has_deletion_timestamp(p->object))
            doomed.push_back(p);

    if (!deleting && string_at(ds, {"spec", "updateStrategy", "type"}) != "OnDelete") {
      const auto* mu = find_path(ds, {"spec", "updateStrategy", "rollingUpdate", "maxUnavailable"});
      json::value one(1);
      auto max_unavailable =
          std::max<std::int64_t>(1, scaled_value(mu ? mu : &one, desired, true, 1));
      auto unavailable = desired - available;
      // Old pods that are not available anyway go first; then available ones within the budget.
      for (const auto& r : running)
        if (!r.current && !r.available) doomed.push_back(r.pod);
      for (const auto& r : running)
        if (!r.current && r.available && unavailable < max_unavailable) {
          doomed.push_back(r.pod);
          ++unavailable;
        }
    }

    auto system = controller_user("daemon-set-controller");
    for (const auto& node : wanted_on) {
      json::object pod_tmpl = *tmpl;
      auto& labels = ensure_object(ensure_object(pod_tmpl, "metadata"), "labels");
      labels[kHashLabel] = hash;
      labels[kGenerationLabel] = std::to_string(generation);
      json::object spec = proto.at("spec").get_object();
      auto& node_affinity = ensure_object(ensure_object(spec, "affinity"), "nodeAffinity");
      // The DaemonSet controller replaces the required terms with its node (already matched).
      node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = json::object{
          {"nodeSelectorTerms",
           json::array{json::object{
               {"matchFields",
                json::array{json::object{{"key", "metadata.name"},
                                         {"operator", "In"},
                                         {"values", json::array{json::value(node)}}}}}}}}};
      pod_tmpl["spec"] = std::move(spec);
      write_options wo;
      (void)ctx.ops.create(pod_type, ns, pod_from_template(ds, "apps/v1", "DaemonSet", pod_tmpl),
                           system, wo);
    }
    for (const auto& p : doomed) (void)ctx.ops.remove(pod_type, ns, meta_name(p->object), {});

    json::object next = ds;
    auto& st = ensure_object(next, "status");
    st["desiredNumberScheduled"] = desired;
    st["currentNumberScheduled"] = scheduled;
    st["numberMisscheduled"] = misscheduled;
    st["numberReady"] = ready;
    st["numberAvailable"] = available;
    st["numberUnavailable"] = desired - available;
    st["updatedNumberScheduled"] = updated;
    st["observedGeneration"] = generation;
    for (const char* zero : {"numberAvailable", "numberUnavailable", "updatedNumberScheduled"})
      if (int_at(st, {zero}, 0) == 0) st.erase(zero);  // omitempty, as the API does
    ctx.ops.write(builtin_type(ctx.ops, "apps", "daemonsets"), std::move(next));
  }
};

}  // namespace

std::unique_ptr<controller> make_daemonset_controller() {
  return std::make_unique<daemonset_controller>();
}

}  // namespace kp::sim::kube
