// The apps/v1 ReplicaSet controller: keeps spec.replicas live pods from the template (recreating
// evicted or deleted ones), removes surplus pods (unscheduled first, then not ready, then newest)
// and reports replicas, readyReplicas, availableReplicas (ready for minReadySeconds) and
// observedGeneration in status.
#include <algorithm>
#include <map>

#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/controllers/workload_pods.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

class replicaset_controller final : public controller {
 public:
  const char* name() const override { return "replicaset"; }

  void reconcile(controller_context& ctx) override {
    auto& store = ctx.ops.store();
    const auto* sets = store.objects("apps/replicasets");
    if (!sets || sets->empty()) return;
    std::vector<object_ptr> all(sets->size());
    std::transform(sets->begin(), sets->end(), all.begin(),
                   [](const auto& kv) { return kv.second; });
    const auto& pod_type = builtin_type(ctx.ops, "", "pods");
    const auto& rs_type = builtin_type(ctx.ops, "apps", "replicasets");
    auto system = controller_user("replicaset-controller");
    std::map<std::string, std::unordered_map<std::string, std::vector<object_ptr>>> pods_by_ns;
    for (const auto& rs : all) {
      const auto& o = rs->object;
      std::string ns(meta_namespace(o));
      auto found = pods_by_ns.find(ns);
      if (found == pods_by_ns.end())
        found = pods_by_ns.emplace(ns, objects_by_controller(store, "/pods", ns)).first;
      std::vector<object_ptr> active;
      for (const auto& p : found->second[std::string(meta_uid(o))])
        if (pod_active(p->object)) active.push_back(p);
      auto want = int_at(o, {"spec", "replicas"}, 1);
      auto have = static_cast<std::int64_t>(active.size());
      if (!has_deletion_timestamp(o) && have < want) {
        auto n = std::min<std::int64_t>(want - have,
                                        static_cast<std::int64_t>(ctx.settings.replicaset_burst));
        const auto* tmpl = object_at(o, {"spec", "template"});
        for (std::int64_t i = 0; i < n && tmpl; ++i) {
          write_options wo;
          auto r = ctx.ops.create(pod_type, ns,
                                  pod_from_template(o, "apps/v1", "ReplicaSet", *tmpl), system, wo);
          if (r) active.push_back(r.value());
        }
      } else if (have > want) {
        std::stable_sort(active.begin(), active.end(),
                         [](const object_ptr& a, const object_ptr& b) {
                           auto rank = [](const json::object& p) {
                             if (string_at(p, {"spec", "nodeName"}).empty()) return 0;
                             if (!pod_ready(p)) return 1;
                             return 2;
                           };
                           int ra = rank(a->object), rb = rank(b->object);
                           if (ra != rb) return ra < rb;
                           return string_at(a->object, {"metadata", "creationTimestamp"}) >
                                  string_at(b->object, {"metadata", "creationTimestamp"});
                         });
        for (std::int64_t i = 0; i < have - want; ++i)
          (void)ctx.ops.remove(pod_type, ns, meta_name(active[static_cast<std::size_t>(i)]->object),
                               {});
        active.erase(active.begin(), active.begin() + (have - want));
      }
      auto min_ready = int_at(o, {"spec", "minReadySeconds"}, 0);
      std::int64_t ready = 0, available = 0;
      for (const auto& p : active) {
        ready += pod_ready(p->object) ? 1 : 0;
        available += pod_available(p->object, min_ready, ctx.now) ? 1 : 0;
      }
      json::object next = o;
      auto& st = ensure_object(next, "status");
      st["replicas"] = static_cast<std::int64_t>(active.size());
      st["fullyLabeledReplicas"] = static_cast<std::int64_t>(active.size());
      st["readyReplicas"] = ready;
      st["availableReplicas"] = available;
      if (const auto* g = find_path(o, {"metadata", "generation"})) st["observedGeneration"] = *g;
      ctx.ops.write(rs_type, std::move(next));
    }
  }
};

}  // namespace

std::unique_ptr<controller> make_replicaset_controller() {
  return std::make_unique<replicaset_controller>();
}

}  // namespace kp::sim::kube
