// The apps/v1 StatefulSet controller: pods <set>-<ordinal> for ordinals start..start+replicas-1
// (spec.ordinals.start, 0 by default), each with its PersistentVolumeClaims
// <template>-<set>-<ordinal> from volumeClaimTemplates made first and mounted in place of the
// template's volume of that name, hostname = pod name and subdomain = serviceName. OrderedReady
// (the default) creates the next pod only when every lower one is Running and Ready and removes
// surplus pods one at a time from the highest ordinal; Parallel does both at once. Template
// changes roll out with RollingUpdate from the highest ordinal down to the partition, one pod at
// a time, or wait for deletions (OnDelete). A recreated pod always gets the newest template
// (kube-sim keeps no ControllerRevision history). PVCs are kept, unless
// persistentVolumeClaimRetentionPolicy says Delete (whenDeleted: owned by the set; whenScaled:
// removed with their ordinal). Status: replicas, readyReplicas, availableReplicas,
// currentReplicas, updatedReplicas, currentRevision, updateRevision, observedGeneration.
#include <algorithm>
#include <charconv>
#include <map>

#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/controllers/workload_pods.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

constexpr const char* kRevisionLabel = "controller-revision-hash";

// The ordinal of "<set>-<n>", or -1.
std::int64_t ordinal_of(std::string_view pod_name, std::string_view set_name) {
  if (pod_name.size() <= set_name.size() + 1 || pod_name.substr(0, set_name.size()) != set_name ||
      pod_name[set_name.size()] != '-')
    return -1;
  auto digits = pod_name.substr(set_name.size() + 1);
  std::int64_t n = -1;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc{} || p != digits.data() + digits.size() || n < 0) return -1;
  if (digits.size() > 1 && digits[0] == '0') return -1;  // "web-01" is not an ordinal
  return n;
}

std::string revision_of(const json::object& pod) {
  if (const auto* labels = object_at(pod, {"metadata", "labels"}))
    if (const auto* v = labels->if_contains(kRevisionLabel); v && v->is_string())
      return std::string(v->get_string());
  return {};
}

class statefulset_controller final : public controller {
 public:
  const char* name() const override { return "statefulset"; }

  void reconcile(controller_context& ctx) override {
    auto& store = ctx.ops.store();
    const auto* sets = store.objects("apps/statefulsets");
    if (!sets || sets->empty()) return;
    std::vector<object_ptr> all;
    for (const auto& [k, s] : *sets) all.push_back(s);
    std::map<std::string, std::unordered_map<std::string, std::vector<object_ptr>>> pods_by_ns;
    for (const auto& s : all) {
      std::string ns(meta_namespace(s->object));
      auto found = pods_by_ns.find(ns);
      if (found == pods_by_ns.end())
        found = pods_by_ns.emplace(ns, objects_by_controller(store, "/pods", ns)).first;
      sync(ctx, s->object, found->second[std::string(meta_uid(s->object))]);
    }
  }

 private:
  static std::vector<std::string> claim_templates(const json::object& set) {
    std::vector<std::string> names;
    if (const auto* ts = array_at(set, {"spec", "volumeClaimTemplates"}))
      for (const auto& t : *ts)
        if (t.is_object() && !meta_name(t.get_object()).empty())
          names.emplace_back(meta_name(t.get_object()));
    return names;
  }

  static std::string claim_name(std::string_view tmpl, const json::object& set, std::int64_t ord) {
    return std::string(tmpl) + "-" + std::string(meta_name(set)) + "-" + std::to_string(ord);
  }

  static bool retention_deletes(const json::object& set, const char* when) {
    return string_at(set, {"spec", "persistentVolumeClaimRetentionPolicy", when}) == "Delete";
  }

  // The set's PVCs for an ordinal, created when missing.
  void ensure_claims(controller_context& ctx, const json::object& set, std::int64_t ord) {
    const auto* templates = array_at(set, {"spec", "volumeClaimTemplates"});
    if (!templates) return;
    const auto& pvc_type = builtin_type(ctx.ops, "", "persistentvolumeclaims");
    std::string ns(meta_namespace(set));
    for (const auto& t : *templates) {
      const auto* to = t.if_object();
      if (!to || meta_name(*to).empty()) continue;
      auto name = claim_name(meta_name(*to), set, ord);
      if (ctx.ops.store().get(pvc_type.storage_key(), ns, name)) continue;
      json::object labels;
      if (const auto* l = object_at(*to, {"metadata", "labels"})) labels = *l;
      if (const auto* ml = object_at(set, {"spec", "selector", "matchLabels"}))
        for (const auto& kv : *ml) labels[kv.key()] = kv.value();
      json::object meta{{"name", name}, {"namespace", ns}, {"labels", labels}};
      if (const auto* a = object_at(*to, {"metadata", "annotations"})) meta["annotations"] = *a;
      if (retention_deletes(set, "whenDeleted"))
        meta["ownerReferences"] = json::array{controller_reference(set, "apps/v1", "StatefulSet")};
      json::object pvc{
          {"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata", meta},
          {"spec", object_at(*to, {"spec"}) ? *object_at(*to, {"spec"}) : json::object{}},
          {"status", json::object{{"phase", "Pending"}}}};
      write_options wo;
      (void)ctx.ops.create(pvc_type, ns, std::move(pvc), controller_user("statefulset-controller"),
                           wo);
    }
  }

  json::object make_pod(const json::object& set, const json::object& tmpl, std::int64_t ord,
                        const std::string& revision) {
    std::string name = std::string(meta_name(set)) + "-" + std::to_string(ord);
    json::object pod_tmpl = tmpl;
    auto& labels = ensure_object(ensure_object(pod_tmpl, "metadata"), "labels");
    labels["statefulset.kubernetes.io/pod-name"] = name;
    labels["apps.kubernetes.io/pod-index"] = std::to_string(ord);
    labels[kRevisionLabel] = revision;
    auto& spec = ensure_object(pod_tmpl, "spec");
    spec["hostname"] = name;
    auto service = string_at(set, {"spec", "serviceName"});
    if (!service.empty()) spec["subdomain"] = service;
    auto claims = claim_templates(set);
    if (!claims.empty()) {
      auto& volumes = ensure_array(spec, "volumes");
      for (const auto& c : claims) {
        json::object volume{
            {"name", c},
            {"persistentVolumeClaim", json::object{{"claimName", claim_name(c, set, ord)}}}};
        auto it = std::find_if(volumes.begin(), volumes.end(), [&](const json::value& v) {
          return v.is_object() && string_at(v.get_object(), {"name"}) == c;
        });
        if (it != volumes.end())
          *it = std::move(volume);
        else
          volumes.push_back(std::move(volume));
      }
    }
    return pod_from_template(set, "apps/v1", "StatefulSet", pod_tmpl, name);
  }

  void sync(controller_context& ctx, const json::object& set,
            const std::vector<object_ptr>& owned) {
    const auto* tmpl = object_at(set, {"spec", "template"});
    if (!tmpl) return;
    const auto& pod_type = builtin_type(ctx.ops, "", "pods");
    std::string ns(meta_namespace(set));
    std::string set_name(meta_name(set));
    auto replicas = int_at(set, {"spec", "replicas"}, 1);
    auto start = int_at(set, {"spec", "ordinals", "start"}, 0);
    auto end = start + replicas;
    bool ordered = string_at(set, {"spec", "podManagementPolicy"}) != "Parallel";
    auto min_ready = int_at(set, {"spec", "minReadySeconds"}, 0);
    auto update_revision =
        set_name + "-" + template_hash(*tmpl, int_at(set, {"status", "collisionCount"}, 0));
    std::string current_revision(string_at(set, {"status", "currentRevision"}));
    if (current_revision.empty()) current_revision = update_revision;

    std::map<std::int64_t, object_ptr> pods;  // by ordinal
    for (const auto& p : owned) {
      auto ord = ordinal_of(meta_name(p->object), set_name);
      if (ord >= 0) pods[ord] = p;
    }
    auto healthy = [](const object_ptr& p) {
      return p && !has_deletion_timestamp(p->object) && pod_ready(p->object);
    };
    auto system = controller_user("statefulset-controller");
    bool deleting = has_deletion_timestamp(set);
    bool blocked = false;  // OrderedReady: a lower ordinal is not Running and Ready yet

    if (!deleting) {
      for (auto ord = start; ord < end; ++ord) {
        auto it = pods.find(ord);
        if (it == pods.end()) {
          ensure_claims(ctx, set, ord);
          write_options wo;
          auto r =
              ctx.ops.create(pod_type, ns, make_pod(set, *tmpl, ord, update_revision), system, wo);
          if (r) pods[ord] = r.value();
          if (ordered) {
            blocked = true;
            break;
          }
          continue;
        }
        const auto& pod = it->second->object;
        if (is_pod_terminal(pod) && !has_deletion_timestamp(pod)) {
          // A finished pod of a set is replaced under the same name.
          (void)ctx.ops.remove(pod_type, ns, meta_name(pod), {});
          if (ordered) {
            blocked = true;
            break;
          }
          continue;
        }
        if (ordered && !healthy(it->second)) {
          blocked = true;
          break;
        }
      }
      // Surplus ordinals, highest first.
      std::vector<std::int64_t> condemned;
      for (const auto& [ord, p] : pods)
        if (ord < start || ord >= end) condemned.push_back(ord);
      std::sort(condemned.rbegin(), condemned.rend());
      for (auto ord : condemned) {
        const auto& pod = pods[ord]->object;
        if (has_deletion_timestamp(pod)) {
          if (ordered) break;
          continue;
        }
        if (ordered && blocked) break;
        (void)ctx.ops.remove(pod_type, ns, meta_name(pod), {});
        if (ordered) break;
      }
      if (retention_deletes(set, "whenScaled")) remove_scaled_claims(ctx, set, pods, start, end);
      // RollingUpdate: once every pod is up, replace the highest one of an older revision.
      if (!blocked && string_at(set, {"spec", "updateStrategy", "type"}) != "OnDelete") {
        auto partition = int_at(set, {"spec", "updateStrategy", "rollingUpdate", "partition"}, 0);
        bool all_up = true;
        for (auto ord = start; ord < end; ++ord)
          all_up &= healthy(pods.count(ord) ? pods[ord] : nullptr);
        for (auto ord = end - 1; all_up && ord >= start + partition; --ord) {
          const auto& pod = pods[ord]->object;
          if (revision_of(pod) == update_revision) continue;
          (void)ctx.ops.remove(pod_type, ns, meta_name(pod), {});
          break;
        }
      }
    }

    std::int64_t count = 0, ready = 0, available = 0, current = 0, updated = 0;
    for (const auto& p : owned) {
      const auto& pod = p->object;
      if (is_pod_terminal(pod) || ordinal_of(meta_name(pod), set_name) < 0) continue;
      ++count;
      if (pod_ready(pod)) ++ready;
      if (pod_available(pod, min_ready, ctx.now)) ++available;
      auto rev = revision_of(pod);
      if (rev == current_revision) ++current;
      if (rev == update_revision) ++updated;
    }
    if (updated == count && ready == count && count == replicas) {
      current_revision = update_revision;  // the rollout is complete
      current = updated;
    }
    json::object next = set;
    auto& st = ensure_object(next, "status");
    st["observedGeneration"] = int_at(set, {"metadata", "generation"}, 1);
    st["replicas"] = count;
    st["readyReplicas"] = ready;
    st["availableReplicas"] = available;
    st["currentReplicas"] = current;
    st["updatedReplicas"] = updated;
    st["currentRevision"] = current_revision;
    st["updateRevision"] = update_revision;
    st["collisionCount"] = int_at(set, {"status", "collisionCount"}, 0);
    for (const char* zero : {"readyReplicas", "currentReplicas", "updatedReplicas"})
      if (int_at(st, {zero}, 0) == 0) st.erase(zero);  // omitempty, as the API does
    ctx.ops.write(builtin_type(ctx.ops, "apps", "statefulsets"), std::move(next));
  }

  // whenScaled: Delete: the claims of ordinals that left the range go once their pod is gone.
  void remove_scaled_claims(controller_context& ctx, const json::object& set,
                            const std::map<std::int64_t, object_ptr>& pods, std::int64_t start,
                            std::int64_t end) {
    const auto& pvc_type = builtin_type(ctx.ops, "", "persistentvolumeclaims");
    const auto* claims = ctx.ops.store().objects(pvc_type.storage_key());
    if (!claims) return;
    std::string prefix = std::string(meta_namespace(set)) + "/";
    std::vector<std::string> doomed;
    for (const auto& tmpl : claim_templates(set)) {
      auto base = tmpl + "-" + std::string(meta_name(set));
      for (auto it = claims->lower_bound(prefix + base); it != claims->end(); ++it) {
        if (it->first.compare(0, prefix.size() + base.size(), prefix + base) != 0) break;
        auto ord = ordinal_of(meta_name(it->second->object), base);
        if (ord < 0 || (ord >= start && ord < end) || pods.count(ord)) continue;
        if (!has_deletion_timestamp(it->second->object))
          doomed.emplace_back(meta_name(it->second->object));
      }
    }
    for (const auto& name : doomed) (void)ctx.ops.remove(pvc_type, meta_namespace(set), name, {});
  }
};

}  // namespace

std::unique_ptr<controller> make_statefulset_controller() {
  return std::make_unique<statefulset_controller>();
}

}  // namespace kp::sim::kube
