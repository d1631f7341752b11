// The apps/v1 Deployment controller: each template gets a ReplicaSet named
// <deployment>-<pod-template-hash> (the hash label on its selector, template and pods), rolled
// out with RollingUpdate (maxSurge / maxUnavailable, 25% / 25% by default) or Recreate (old pods
// gone before new ones start); spec.replicas scales the current ReplicaSet; old ReplicaSets beyond
// revisionHistoryLimit are deleted. Status carries replicas, updatedReplicas, readyReplicas,
// availableReplicas, unavailableReplicas, observedGeneration and the Available and Progressing
// conditions with Kubernetes' reasons (NewReplicaSetCreated, ReplicaSetUpdated,
// NewReplicaSetAvailable, ProgressDeadlineExceeded, DeploymentPaused), so `kubectl rollout status`
// follows it.
#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/controllers/workload_pods.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

constexpr const char* kHashLabel = "pod-template-hash";
constexpr const char* kRevision = "deployment.kubernetes.io/revision";
constexpr const char* kDesired = "deployment.kubernetes.io/desired-replicas";
constexpr const char* kMaxReplicas = "deployment.kubernetes.io/max-replicas";

std::int64_t revision_of(const json::object& o) {
  if (const auto* a = object_at(o, {"metadata", "annotations"}))
    if (const auto* v = a->if_contains(kRevision); v && v->is_string()) {
      std::int64_t n = 0;
      std::string_view s = v->get_string();
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
      if (ec == std::errc{} && p == s.data() + s.size()) return n;
    }
  return 0;
}

// A Deployment condition: lastUpdateTime moves when anything is set, lastTransitionTime only
// when the status changes (DeploymentCondition has both).
void put_condition(json::object& status, std::string_view type, std::string_view value,
                   std::string_view reason, std::string_view message, const std::string& now,
                   std::optional<std::string> keep_transition = std::nullopt) {
  auto& conds = ensure_array(status, "conditions");
  json::object c{{"type", type},          {"status", value},
                 {"lastUpdateTime", now}, {"lastTransitionTime", now},
                 {"reason", reason},      {"message", message}};
  for (auto it = conds.begin(); it != conds.end(); ++it) {
    if (!it->is_object() || string_at(it->get_object(), {"type"}) != type) continue;
    if (keep_transition) c["lastTransitionTime"] = *keep_transition;
    *it = std::move(c);
    return;
  }
  conds.push_back(std::move(c));
}

const json::object* find_condition(const json::object& o, std::string_view type) {
  if (const auto* cs = array_at(o, {"status", "conditions"}))
    for (const auto& c : *cs)
      if (c.is_object() && string_at(c.get_object(), {"type"}) == type) return &c.get_object();
  return nullptr;
}

struct replica_set {
  object_ptr stored;
  json::object object;  // with the replicas this pass decided
  bool changed = false;

  std::int64_t replicas() const { return int_at(object, {"spec", "replicas"}, 1); }
  std::int64_t status(const char* field) const { return int_at(object, {"status", field}, 0); }
  std::string name() const { return std::string(meta_name(object)); }
};

class deployment_controller final : public controller {
 public:
  const char* name() const override { return "deployment"; }

  void reconcile(controller_context& ctx) override {
    auto& store = ctx.ops.store();
    const auto* deployments = store.objects("apps/deployments");
    if (!deployments || deployments->empty()) return;
    std::vector<object_ptr> all;
    for (const auto& [k, d] : *deployments) all.push_back(d);
    std::map<std::string, std::unordered_map<std::string, std::vector<object_ptr>>> sets_by_ns;
    for (const auto& d : all) {
      std::string ns(meta_namespace(d->object));
      auto found = sets_by_ns.find(ns);
      if (found == sets_by_ns.end())
        found = sets_by_ns.emplace(ns, objects_by_controller(store, "apps/replicasets", ns)).first;
      sync(ctx, d->object, found->second[std::string(meta_uid(d->object))]);
    }
  }

 private:
  struct fenceposts {
    std::int64_t surge = 0;
    std::int64_t unavailable = 0;
  };

  static bool rolling(const json::object& d) {
    return string_at(d, {"spec", "strategy", "type"}) != "Recreate";
  }

  static fenceposts resolve(const json::object& d, std::int64_t replicas) {
    json::value quarter("25%");
    const auto* ru = object_at(d, {"spec", "strategy", "rollingUpdate"});
    const auto* s = ru ? ru->if_contains("maxSurge") : nullptr;
    const auto* u = ru ? ru->if_contains("maxUnavailable") : nullptr;
    fenceposts f{scaled_value(s ? s : &quarter, replicas, true, 0),
                 scaled_value(u ? u : &quarter, replicas, false, 0)};
    if (f.surge == 0 && f.unavailable == 0) f.unavailable = 1;  // a rollout must move
    return f;
  }

  static std::int64_t max_unavailable(const json::object& d, std::int64_t replicas) {
    if (!rolling(d) || replicas == 0) return 0;
    return std::min(resolve(d, replicas).unavailable, replicas);
  }

  void scale(replica_set& rs, std::int64_t replicas, std::int64_t desired, std::int64_t max) {
    auto& spec = ensure_object(rs.object, "spec");
    auto& ann = ensure_object(ensure_object(rs.object, "metadata"), "annotations");
    if (rs.replicas() != replicas || !spec.contains("replicas")) {
      spec["replicas"] = replicas;
      rs.changed = true;
    }
    auto d = std::to_string(desired), m = std::to_string(max);
    if (string_at(ann, {kDesired}) != d || string_at(ann, {kMaxReplicas}) != m) {
      ann[kDesired] = d;
      ann[kMaxReplicas] = m;
      rs.changed = true;
    }
  }

  void commit(controller_context& ctx, std::vector<replica_set>& sets) {
    const auto& rs_type = builtin_type(ctx.ops, "apps", "replicasets");
    for (auto& rs : sets) {
      if (!rs.changed) continue;
      write_options wo;
      auto r = ctx.ops.update(rs_type, meta_namespace(rs.object), rs.name(), rs.object,
                              write_scope::main, wo);
      if (r) rs.stored = r.value();
      rs.changed = false;
    }
  }

  void sync(controller_context& ctx, const json::object& d, const std::vector<object_ptr>& owned) {
    const auto* tmpl = object_at(d, {"spec", "template"});
    if (!tmpl) return;
    auto now = format_time(ctx.now);
    auto replicas = int_at(d, {"spec", "replicas"}, 1);
    bool paused = find_path(d, {"spec", "paused"}) && find_path(d, {"spec", "paused"})->is_bool() &&
                  find_path(d, {"spec", "paused"})->get_bool();
    std::vector<replica_set> sets;
    for (const auto& o : owned)
      if (!has_deletion_timestamp(o->object)) sets.push_back({o, o->object});
    std::sort(sets.begin(), sets.end(), [](const replica_set& a, const replica_set& b) {
      auto ca = string_at(a.object, {"metadata", "creationTimestamp"});
      auto cb = string_at(b.object, {"metadata", "creationTimestamp"});
      return ca != cb ? ca < cb : a.name() < b.name();
    });
    json::object wanted = *tmpl;
    std::optional<std::size_t> current;
    std::int64_t max_old_revision = 0;
    for (std::size_t i = 0; i < sets.size(); ++i) {
      const auto* t = object_at(sets[i].object, {"spec", "template"});
      if (!current && t && template_without_label(*t, kHashLabel) == wanted)
        current = i;
      else
        max_old_revision = std::max(max_old_revision, revision_of(sets[i].object));
    }
    json::object next = d;
    auto& status = ensure_object(next, "status");
    std::optional<std::string> progress_reason, progress_message;
    auto surge = rolling(d) ? resolve(d, replicas).surge : 0;

    if (has_deletion_timestamp(d)) {
      // Being deleted: only the status follows the ReplicaSets.
    } else if (paused) {
      if (current && sets.size() == 1) scale(sets[*current], replicas, replicas, replicas + surge);
    } else if (!rolling(d)) {
      bool old_scaled = false, old_pods = false;
      for (std::size_t i = 0; i < sets.size(); ++i) {
        if (current && i == *current) continue;
        if (sets[i].replicas() > 0) old_scaled = true;
        scale(sets[i], 0, replicas, replicas);
        old_pods |= sets[i].status("replicas") > 0 || old_pods_remain(ctx, sets[i]);
      }
      if (!old_scaled && !old_pods) {
        if (!current) {
          current = create_replica_set(ctx, d, wanted, replicas, max_old_revision, sets, next);
          if (current) progress_reason = "NewReplicaSetCreated";
        } else {
          scale(sets[*current], replicas, replicas, replicas);
        }
      }
    } else {
      if (!current) {
        std::int64_t total = 0;
        for (const auto& rs : sets) total += rs.replicas();
        auto start = std::clamp<std::int64_t>(replicas + surge - total, 0, replicas);
        current = create_replica_set(ctx, d, wanted, start, max_old_revision, sets, next);
        if (current) progress_reason = "NewReplicaSetCreated";
      } else {
        roll(d, replicas, sets, *current);
      }
    }
    if (current) {
      // The current ReplicaSet carries the newest revision, also when an old template returns.
      auto& rs = sets[*current];
      auto rev = revision_of(rs.object);
      if (rev <= max_old_revision || rev == 0) {
        rev = max_old_revision + 1;
        ensure_object(ensure_object(rs.object, "metadata"), "annotations")[kRevision] =
            std::to_string(rev);
        rs.changed = true;
      }
      ensure_object(ensure_object(next, "metadata"), "annotations")[kRevision] =
          std::to_string(rev);
    }
    commit(ctx, sets);
    if (!has_deletion_timestamp(d)) clean_history(ctx, d, sets, current);

    // Status from the ReplicaSets as they are now.
    std::int64_t total = 0, spec_total = 0, ready = 0, available = 0, updated = 0;
    for (std::size_t i = 0; i < sets.size(); ++i) {
      total += sets[i].status("replicas");
      spec_total += sets[i].replicas();
      ready += sets[i].status("readyReplicas");
      available += sets[i].status("availableReplicas");
      if (current && i == *current) updated = sets[i].status("replicas");
    }
    auto before = d.contains("status") && d.at("status").is_object() ? d.at("status").get_object()
                                                                     : json::object{};
    status["replicas"] = total;
    status["updatedReplicas"] = updated;
    status["readyReplicas"] = ready;
    status["availableReplicas"] = available;
    status["unavailableReplicas"] = std::max<std::int64_t>(0, spec_total - available);
    status["observedGeneration"] = int_at(d, {"metadata", "generation"}, 1);
    for (const char* zero : {"readyReplicas", "availableReplicas", "unavailableReplicas",
                             "updatedReplicas", "replicas"})
      if (int_at(status, {zero}, 0) == 0) status.erase(zero);  // omitempty, as the API does

    if (available >= replicas - max_unavailable(d, replicas))
      set_if_changed(status, "Available", "True", "MinimumReplicasAvailable",
                     "Deployment has minimum availability.", now);
    else
      set_if_changed(status, "Available", "False", "MinimumReplicasUnavailable",
                     "Deployment does not have minimum availability.", now);

    std::string rs_name = current ? sets[*current].name() : std::string();
    const auto* progressing = find_condition(d, "Progressing");
    std::string old_reason = progressing ? std::string(string_at(*progressing, {"reason"})) : "";
    bool complete = current && updated == replicas && available == replicas && total == replicas;
    auto deadline = int_at(d, {"spec", "progressDeadlineSeconds"}, 600);
    auto counter = [&](const json::object& s, const char* f) { return int_at(s, {f}, 0); };
    bool moved = counter(status, "updatedReplicas") > counter(before, "updatedReplicas") ||
                 counter(status, "readyReplicas") > counter(before, "readyReplicas") ||
                 counter(status, "availableReplicas") > counter(before, "availableReplicas") ||
                 counter(status, "replicas") - counter(status, "updatedReplicas") <
                     counter(before, "replicas") - counter(before, "updatedReplicas");
    if (paused) {
      if (old_reason != "DeploymentPaused")
        set_if_changed(status, "Progressing", "Unknown", "DeploymentPaused", "Deployment is paused",
                       now);
    } else if (old_reason == "DeploymentPaused") {
      set_if_changed(status, "Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed",
                     now);
    } else if (progress_reason) {
      set_if_changed(status, "Progressing", "True", *progress_reason,
                     "Created new replica set \"" + rs_name + "\"", now);
    } else if (complete) {
      set_if_changed(status, "Progressing", "True", "NewReplicaSetAvailable",
                     "ReplicaSet \"" + rs_name + "\" has successfully progressed.", now);
    } else if (moved && current) {
      std::optional<std::string> since;
      if (progressing && string_at(*progressing, {"status"}) == "True")
        since = std::string(string_at(*progressing, {"lastTransitionTime"}));
      put_condition(status, "Progressing", "True", "ReplicaSetUpdated",
                    "ReplicaSet \"" + rs_name + "\" is progressing.", now, since);
    } else if (!progressing && current) {
      set_if_changed(status, "Progressing", "True", "FoundNewReplicaSet",
                     "Found new replica set \"" + rs_name + "\"", now);
    } else if (progressing && old_reason != "NewReplicaSetAvailable" &&
               old_reason != "ProgressDeadlineExceeded") {
      auto from = parse_time(string_at(*progressing, {"lastUpdateTime"}));
      if (from && *from + std::chrono::seconds(deadline) < ctx.now)
        set_if_changed(status, "Progressing", "False", "ProgressDeadlineExceeded",
                       "ReplicaSet \"" + rs_name + "\" has timed out progressing.", now);
    }
    ctx.ops.write(builtin_type(ctx.ops, "apps", "deployments"), std::move(next));
  }

  static void set_if_changed(json::object& status, std::string_view type, std::string_view value,
                             std::string_view reason, std::string_view message,
                             const std::string& now) {
    if (const auto* cs = status.if_contains("conditions"); cs && cs->is_array())
      for (const auto& c : cs->get_array())
        if (c.is_object() && string_at(c.get_object(), {"type"}) == type) {
          const auto& co = c.get_object();
          // Same status and reason: nothing new to say (Kubernetes keeps the condition as is).
          if (string_at(co, {"status"}) == value && string_at(co, {"reason"}) == reason) return;
          std::optional<std::string> since;
          if (string_at(co, {"status"}) == value)
            since = std::string(string_at(co, {"lastTransitionTime"}));
          put_condition(status, type, value, reason, message, now, since);
          return;
        }
    put_condition(status, type, value, reason, message, now);
  }

  // Rolling update: grow the current ReplicaSet within maxSurge, shrink old ones within
  // maxUnavailable (unhealthy pods first), as the Deployment controller's rolloutRolling does.
  void roll(const json::object& d, std::int64_t replicas, std::vector<replica_set>& sets,
            std::size_t current) {
    auto f = resolve(d, replicas);
    auto& cur = sets[current];
    std::int64_t total = 0;
    for (const auto& rs : sets) total += rs.replicas();
    if (cur.replicas() > replicas) {
      scale(cur, replicas, replicas, replicas + f.surge);
    } else if (cur.replicas() < replicas) {
      auto room = replicas + f.surge - total;
      if (room > 0)
        scale(cur, cur.replicas() + std::min(room, replicas - cur.replicas()), replicas,
              replicas + f.surge);
    } else {
      scale(cur, replicas, replicas, replicas + f.surge);
    }
    std::int64_t old_total = 0;
    for (std::size_t i = 0; i < sets.size(); ++i)
      if (i != current) old_total += sets[i].replicas();
    if (old_total == 0) return;
    total = 0;
    for (const auto& rs : sets) total += rs.replicas();
    auto min_available = replicas - std::min(f.unavailable, replicas);
    auto new_unavailable = cur.replicas() - cur.status("availableReplicas");
    auto budget = total - min_available - std::max<std::int64_t>(0, new_unavailable);
    if (budget <= 0) return;
    // Unhealthy replicas of old sets go first: removing them costs no availability.
    for (std::size_t i = 0; i < sets.size() && budget > 0; ++i) {
      if (i == current) continue;
      auto& rs = sets[i];
      auto unhealthy = rs.replicas() - rs.status("availableReplicas");
      if (rs.replicas() == 0 || unhealthy <= 0) continue;
      auto cut = std::min(budget, unhealthy);
      scale(rs, rs.replicas() - cut, replicas, replicas + f.surge);
      budget -= cut;
    }
    std::int64_t available = 0;
    for (const auto& rs : sets) available += rs.status("availableReplicas");
    if (available <= min_available) return;
    auto cut_total = available - min_available;
    for (std::size_t i = 0; i < sets.size() && cut_total > 0; ++i) {
      if (i == current || sets[i].replicas() == 0) continue;
      auto cut = std::min(sets[i].replicas(), cut_total);
      scale(sets[i], sets[i].replicas() - cut, replicas, replicas + f.surge);
      cut_total -= cut;
    }
  }

  // Recreate waits until no pod of an old ReplicaSet is left running (terminating counts).
  static bool old_pods_remain(controller_context& ctx, const replica_set& rs) {
    const auto* pods = ctx.ops.store().objects("/pods");
    if (!pods) return false;
    std::string prefix = std::string(meta_namespace(rs.object)) + "/";
    auto uid = meta_uid(rs.object);
    for (auto it = pods->lower_bound(prefix); it != pods->end(); ++it) {
      if (it->first.compare(0, prefix.size(), prefix) != 0) break;
      if (controlled_by(it->second->object, uid) && !is_pod_terminal(it->second->object))
        return true;
    }
    return false;
  }

  std::optional<std::size_t> create_replica_set(controller_context& ctx, const json::object& d,
                                                const json::object& wanted, std::int64_t replicas,
                                                std::int64_t max_revision,
                                                std::vector<replica_set>& sets,
                                                json::object& next) {
    auto collisions = int_at(d, {"status", "collisionCount"}, -1);
    auto hash = template_hash(wanted, collisions);
    std::string ns(meta_namespace(d));
    std::string name = std::string(meta_name(d)) + "-" + hash;
    json::object tmpl = wanted;
    ensure_object(ensure_object(tmpl, "metadata"), "labels")[kHashLabel] = hash;
    json::object selector;
    if (const auto* s = object_at(d, {"spec", "selector"})) selector = *s;
    ensure_object(selector, "matchLabels")[kHashLabel] = hash;
    json::object labels;
    if (const auto* l = object_at(wanted, {"metadata", "labels"})) labels = *l;
    labels[kHashLabel] = hash;
    auto surge = rolling(d) ? resolve(d, int_at(d, {"spec", "replicas"}, 1)).surge : 0;
    auto desired = int_at(d, {"spec", "replicas"}, 1);
    json::object spec{{"replicas", replicas}, {"selector", selector}, {"template", tmpl}};
    if (const auto* m = find_path(d, {"spec", "minReadySeconds"})) spec["minReadySeconds"] = *m;
    json::object rs{
        {"apiVersion", "apps/v1"},
        {"kind", "ReplicaSet"},
        {"metadata",
         json::object{
             {"name", name},
             {"namespace", ns},
             {"labels", labels},
             {"annotations", json::object{{kRevision, std::to_string(max_revision + 1)},
                                          {kDesired, std::to_string(desired)},
                                          {kMaxReplicas, std::to_string(desired + surge)}}},
             {"ownerReferences", json::array{controller_reference(d, "apps/v1", "Deployment")}}}},
        {"spec", spec}};
    write_options wo;
    auto r = ctx.ops.create(builtin_type(ctx.ops, "apps", "replicasets"), ns, std::move(rs),
                            controller_user("deployment-controller"), wo);
    if (r) {
      sets.push_back({r.value(), r.value()->object});
      return sets.size() - 1;
    }
    if (r.error().code == 409) {
      // Another object holds the name: hash again with a higher collision count next pass.
      ensure_object(next, "status")["collisionCount"] = std::max<std::int64_t>(collisions, 0) + 1;
    }
    return std::nullopt;
  }

  void clean_history(controller_context& ctx, const json::object& d, std::vector<replica_set>& sets,
                     std::optional<std::size_t> current) {
    auto limit = int_at(d, {"spec", "revisionHistoryLimit"}, 10);
    std::vector<const replica_set*> old;
    for (std::size_t i = 0; i < sets.size(); ++i)
      if (!current || i != *current) old.push_back(&sets[i]);
    auto surplus = static_cast<std::int64_t>(old.size()) - limit;
    if (surplus <= 0) return;
    std::sort(old.begin(), old.end(), [](const replica_set* a, const replica_set* b) {
      return revision_of(a->object) < revision_of(b->object);
    });
    const auto& rs_type = builtin_type(ctx.ops, "apps", "replicasets");
    for (std::int64_t i = 0; i < surplus; ++i) {
      const auto& rs = *old[static_cast<std::size_t>(i)];
      if (rs.replicas() != 0 || rs.status("replicas") != 0) continue;
      (void)ctx.ops.remove(rs_type, meta_namespace(rs.object), rs.name(), {});
    }
  }
};

}  // namespace

std::unique_ptr<controller> make_deployment_controller() {
  return std::make_unique<deployment_controller>();
}

}  // namespace kp::sim::kube
