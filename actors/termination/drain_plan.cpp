#include "actors/termination/drain_plan.hpp"

#include <algorithm>
#include <chrono>

#include "core/disruption/do_not_disrupt.hpp"
#include "core/time/go_duration.hpp"
#include "protocol/kube/model_translation.hpp"

namespace kp::actors::termination {

namespace {

// Karpenter stops waiting for a pod that has been terminating this long past its deletion
// timestamp (a kubelet that is gone never finishes it).
constexpr std::int64_t stuck_terminating_ms = 60'000;
constexpr std::int64_t default_pod_grace_seconds = 30;

bool tolerates(const model::toleration& t, const std::string& key, const std::string& value,
               const std::string& effect) {
  if (!t.effect.empty() && t.effect != effect) return false;
  if (t.op == "Exists") return t.key.empty() || t.key == key;
  return t.key == key && t.value == value;
}

}  // namespace

bool is_mirror(const model::pod& p) {
  return p.annotations.count("kubernetes.io/config.mirror") > 0;
}

bool is_critical(const model::pod& p) {
  return p.priority_class_name == "system-cluster-critical" ||
         p.priority_class_name == "system-node-critical";
}

drain_tier tier_of(const model::pod& p) {
  const bool daemon = model::is_daemonset_pod(p);
  if (is_critical(p)) return daemon ? drain_tier::critical_daemon : drain_tier::critical;
  return daemon ? drain_tier::non_critical_daemon : drain_tier::non_critical;
}

bool tolerates_disrupted_taint(const model::pod& p) {
  return std::any_of(p.tolerations.begin(), p.tolerations.end(), [](const model::toleration& t) {
    return tolerates(t, disrupted_taint_key, "", "NoSchedule");
  });
}

bool do_not_disrupt_active(const model::pod& p, std::int64_t now_ms) {
  auto it = p.annotations.find(do_not_disrupt_annotation);
  if (it == p.annotations.end()) return false;
  return disruption::read_pod_do_not_disrupt(it->second, p.start_unix_ms, now_ms).active();
}

bool drain_waits_for(const model::pod& p, std::int64_t now_ms) {
  if (model::is_terminal(p) || is_mirror(p) || tolerates_disrupted_taint(p)) return false;
  if (p.deletion_unix_ms && now_ms > *p.deletion_unix_ms + stuck_terminating_ms) return false;
  return true;
}

drain_plan plan_drain(const std::vector<const model::pod*>& pods_on_node, std::int64_t now_ms,
                      std::optional<std::int64_t> deadline_ms) {
  drain_plan plan;
  std::vector<const model::pod*> candidates;
  for (const model::pod* p : pods_on_node) {
    if (!drain_waits_for(*p, now_ms)) continue;
    plan.waiting.push_back(p);
    if (deadline_ms) {
      // Karpenter deletes a pod outright once the deadline leaves it no more than its own
      // grace period, unless it is already terminating and will be gone by the deadline.
      std::int64_t grace = p->termination_grace_seconds.value_or(default_pod_grace_seconds);
      const bool ends_in_time = p->deletion_unix_ms && *p->deletion_unix_ms <= *deadline_ms;
      if (now_ms >= *deadline_ms - grace * 1000 && !ends_in_time) {
        plan.force_delete.push_back(p);
        continue;
      }
    }
    if (p->terminating) continue;  // already on its way out
    candidates.push_back(p);
  }
  if (candidates.empty()) return plan;
  drain_tier first = drain_tier::critical_daemon;
  for (const model::pod* p : candidates) first = std::min(first, tier_of(*p));
  for (const model::pod* p : candidates) {
    if (tier_of(*p) != first) continue;
    (do_not_disrupt_active(*p, now_ms) ? plan.blocked : plan.evict).push_back(p);
  }
  return plan;
}

std::int64_t force_delete_grace_seconds(std::int64_t now_ms, std::int64_t deadline_ms) {
  return std::max<std::int64_t>(1, (deadline_ms - now_ms) / 1000);
}

std::optional<std::int64_t> termination_deadline_ms(const kube::node_claim& claim,
                                                    std::int64_t drain_timeout_ms) {
  std::optional<std::int64_t> deadline;
  auto annotated = claim.metadata.annotations.find(termination_timestamp_annotation);
  std::optional<std::int64_t> deleted;
  if (claim.metadata.deletion_timestamp) {
    deleted = kube::parse_rfc3339_ms(*claim.metadata.deletion_timestamp);
  }
  if (annotated != claim.metadata.annotations.end()) {
    deadline = kube::parse_rfc3339_ms(annotated->second);
  }
  if (!deadline && deleted && !claim.spec.termination_grace_period.empty()) {
    auto grace = time::parse_go_duration(claim.spec.termination_grace_period);
    if (grace) {
      deadline = *deleted + std::chrono::duration_cast<std::chrono::milliseconds>(*grace).count();
    }
  }
  if (drain_timeout_ms > 0 && deleted) {
    std::int64_t capped = *deleted + drain_timeout_ms;
    deadline = deadline ? std::min(*deadline, capped) : capped;
  }
  return deadline;
}

bool has_disrupted_taint(const std::vector<kube::taint>& taints) {
  return std::any_of(taints.begin(), taints.end(), [](const kube::taint& t) {
    return t.key == disrupted_taint_key && t.effect == "NoSchedule";
  });
}

std::vector<kube::taint> with_disrupted_taint(std::vector<kube::taint> taints,
                                              const std::string& time_added) {
  std::erase_if(taints, [](const kube::taint& t) { return t.key == disrupted_taint_key; });
  kube::taint t;
  t.key = disrupted_taint_key;
  t.effect = "NoSchedule";
  t.time_added = time_added;
  taints.push_back(std::move(t));
  return taints;
}

}  // namespace kp::actors::termination
