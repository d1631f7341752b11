// The apps/v1 ReplicaSet controller: keeps spec.replicas live pods from the template (recreating
// evicted or deleted ones), removes surplus pods (unscheduled first, then not ready, then newest)
// and reports replicas, readyReplicas and availableReplicas in status.
#include <algorithm>

#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/json_util.hpp"
#include "sim/kube/pdb.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

bool controlled_by(const json::object& pod, std::string_view uid) {
  if (const auto* refs = array_at(pod, {"metadata", "ownerReferences"}))
    for (const auto& r : *refs)
      if (r.is_object() && string_at(r.get_object(), {"uid"}) == uid) {
        const auto* c = r.get_object().if_contains("controller");
        if (c && c->is_bool() && c->get_bool()) return true;
      }
  return false;
}

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
    user_info system{
        "system:serviceaccount:kube-system:replicaset-controller", "", {"system:serviceaccounts"}};
    for (const auto& rs : all) {
      const auto& o = rs->object;
      std::string ns(meta_namespace(o));
      std::string uid(meta_uid(o));
      std::vector<object_ptr> active;
      if (const auto* pods = store.objects("/pods")) {
        std::string prefix = ns + "/";
        for (auto it = pods->lower_bound(prefix); it != pods->end(); ++it) {
          if (it->first.compare(0, prefix.size(), prefix) != 0) break;
          const auto& p = it->second->object;
          if (is_pod_terminal(p) || has_deletion_timestamp(p) || !controlled_by(p, uid)) continue;
          active.push_back(it->second);
        }
      }
      std::int64_t want = 1;
      if (const auto* r = find_path(o, {"spec", "replicas"})) want = as_int(*r).value_or(1);
      auto have = static_cast<std::int64_t>(active.size());
      if (!has_deletion_timestamp(o) && have < want) {
        auto n = std::min<std::int64_t>(want - have,
                                        static_cast<std::int64_t>(ctx.settings.replicaset_burst));
        for (std::int64_t i = 0; i < n; ++i) {
          json::object pod{{"apiVersion", "v1"}, {"kind", "Pod"}};
          json::object meta;
          if (const auto* tm = object_at(o, {"spec", "template", "metadata"})) meta = *tm;
          meta.erase("name");
          meta["generateName"] = std::string(meta_name(o)) + "-";
          meta["namespace"] = ns;
          meta["ownerReferences"] = json::array{json::object{{"apiVersion", "apps/v1"},
                                                             {"kind", "ReplicaSet"},
                                                             {"name", meta_name(o)},
                                                             {"uid", uid},
                                                             {"controller", true},
                                                             {"blockOwnerDeletion", true}}};
          pod["metadata"] = std::move(meta);
          if (const auto* ts = object_at(o, {"spec", "template", "spec"})) pod["spec"] = *ts;
          write_options wo;
          auto r = ctx.ops.create(pod_type, ns, std::move(pod), system, wo);
          if (r) active.push_back(r.value());
        }
      } else if (have > want) {
        std::stable_sort(active.begin(), active.end(),
                         [](const object_ptr& a, const object_ptr& b) {
                           auto rank = [](const json::object& p) {
                             if (string_at(p, {"spec", "nodeName"}).empty()) return 0;
                             if (!pod_healthy(p)) return 1;
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
      std::int64_t ready = 0;
      for (const auto& p : active) ready += pod_healthy(p->object) ? 1 : 0;
      json::object next = o;
      auto& st = ensure_object(next, "status");
      st["replicas"] = static_cast<std::int64_t>(active.size());
      st["fullyLabeledReplicas"] = static_cast<std::int64_t>(active.size());
      st["readyReplicas"] = ready;
      st["availableReplicas"] = ready;
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
