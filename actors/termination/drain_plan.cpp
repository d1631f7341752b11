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

bool tolerates(const kube::toleration& t, const std::string& key, const std::string& value,
               const std::string& effect) {
  if (!t.effect.empty() && t.effect != effect) return false;
  if (t.operator_ == "Exists") return t.key.empty() || t.key == key;
  return t.key == key && t.value == value;
}

}  // namespace

bool is_terminal(const kube::pod& p) {
  return p.status.phase == "Succeeded" || p.status.phase == "Failed";
}

bool is_mirror(const kube::pod& p) {
  return p.metadata.annotations.count("kubernetes.io/config.mirror") > 0;
}

bool is_daemon(const kube::pod& p) {
  return std::any_of(p.metadata.owner_references.begin(), p.metadata.owner_references.end(),
                     [](const kube::owner_reference& o) { return o.kind == "DaemonSet"; });
}

bool is_critical(const kube::pod& p) {
  return p.spec.priority_class_name == "system-cluster-critical" ||
         p.spec.priority_class_name == "system-node-critical";
}

bool is_terminating(const kube::pod& p) {
  return p.metadata.deletion_timestamp.has_value();
}

drain_tier tier_of(const kube::pod& p) {
  const bool daemon = is_daemon(p);
  if (is_critical(p)) return daemon ? drain_tier::critical_daemon : drain_tier::critical;
  return daemon ? drain_tier::non_critical_daemon : drain_tier::non_critical;
}

bool tolerates_disrupted_taint(const kube::pod& p) {
  return std::any_of(p.spec.tolerations.begin(), p.spec.tolerations.end(),
                     [](const kube::toleration& t) {
                       return tolerates(t, disrupted_taint_key, "", "NoSchedule");
                     });
}

bool do_not_disrupt_active(const kube::pod& p, std::int64_t now_ms) {
  auto it = p.metadata.annotations.find(do_not_disrupt_annotation);
  if (it == p.metadata.annotations.end()) return false;
  std::optional<std::int64_t> started;
  if (!p.status.start_time.empty()) started = kube::parse_rfc3339_ms(p.status.start_time);
  return disruption::read_pod_do_not_disrupt(it->second, started, now_ms).active();
}

bool drain_waits_for(const kube::pod& p, std::int64_t now_ms) {
  if (is_terminal(p) || is_mirror(p) || tolerates_disrupted_taint(p)) return false;
  if (p.metadata.deletion_timestamp) {
    auto deleting = kube::parse_rfc3339_ms(*p.metadata.deletion_timestamp);
    if (deleting && now_ms > *deleting + stuck_terminating_ms) return false;
  }
  return true;
}

drain_plan plan_drain(const std::vector<const kube::pod*>& pods_on_node, std::int64_t now_ms,
                      std::optional<std::int64_t> deadline_ms) {
  drain_plan plan;
  std::vector<const kube::pod*> candidates;
  for (const kube::pod* p : pods_on_node) {
    if (!drain_waits_for(*p, now_ms)) continue;
    plan.waiting.push_back(p);
    if (deadline_ms) {
      // Karpenter deletes a pod outright once the deadline leaves it no more than its own
      // grace period, unless it is already terminating and will be gone by the deadline.
      std::int64_t grace =
          p->spec.termination_grace_period_seconds.value_or(default_pod_grace_seconds);
      bool ends_in_time = false;
      if (p->metadata.deletion_timestamp) {
        auto deleting = kube::parse_rfc3339_ms(*p->metadata.deletion_timestamp);
        ends_in_time = deleting && *deleting <= *deadline_ms;
      }
      if (now_ms >= *deadline_ms - grace * 1000 && !ends_in_time) {
        plan.force_delete.push_back(p);
        continue;
      }
    }
    if (is_terminating(*p)) continue;  // already on its way out
    candidates.push_back(p);
  }
  if (candidates.empty()) return plan;
  drain_tier first = drain_tier::critical_daemon;
  for (const kube::pod* p : candidates) first = std::min(first, tier_of(*p));
  for (const kube::pod* p : candidates) {
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
