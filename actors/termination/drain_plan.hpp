#pragma once
// What draining a node means, as Karpenter's terminator decides it (karpenter-core.md 4.2), as
// pure functions of the pods on the node (the snapshot's model pods), the wall clock and the
// NodeClaim's termination deadline: which pods the drain waits for, which to evict now (only the
// first non-empty tier: non-critical non-daemon, non-critical daemon, critical non-daemon, critical
// daemon), which a do-not-disrupt annotation protects, and which the deadline forces out with a
// plain delete.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/pod.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/karpenter_v1.hpp"

namespace kp::actors::termination {

inline constexpr const char* termination_finalizer = "karpenter.sh/termination";
inline constexpr const char* disrupted_taint_key = "karpenter.sh/disrupted";
inline constexpr const char* do_not_disrupt_annotation = "karpenter.sh/do-not-disrupt";
inline constexpr const char* termination_timestamp_annotation =
    "karpenter.sh/nodeclaim-termination-timestamp";

// Eviction order: a tier is evicted only when every lower one is empty.
enum class drain_tier : int {
  non_critical = 0,
  non_critical_daemon = 1,
  critical = 2,
  critical_daemon = 3,
};

bool is_mirror(const model::pod& p);    // a static pod's API mirror (kubelet owns it)
bool is_critical(const model::pod& p);  // system-cluster-critical or system-node-critical
drain_tier tier_of(const model::pod& p);

// Tolerates karpenter.sh/disrupted:NoSchedule, so it would just come back: not drained.
bool tolerates_disrupted_taint(const model::pod& p);

// karpenter.sh/do-not-disrupt: "true" protects, a positive Go duration protects for that long
// after status.startTime; anything else (or an expired duration) does not.
bool do_not_disrupt_active(const model::pod& p, std::int64_t now_ms);

// A pod the drain must see gone: not terminal, not mirror, not tolerating the disrupted taint,
// not stuck terminating for more than a minute past its deletionTimestamp.
bool drain_waits_for(const model::pod& p, std::int64_t now_ms);

struct drain_plan {
  std::vector<const model::pod*> waiting;       // not gone yet (drained when empty)
  std::vector<const model::pod*> evict;         // Eviction API now
  std::vector<const model::pod*> blocked;       // do-not-disrupt, until the deadline
  std::vector<const model::pod*> force_delete;  // the deadline leaves no more time
  bool drained() const { return waiting.empty(); }
};

// `deadline_ms`: the NodeClaim's termination deadline (nothing: wait for ever).
drain_plan plan_drain(const std::vector<const model::pod*>& pods_on_node, std::int64_t now_ms,
                      std::optional<std::int64_t> deadline_ms);

// Grace for a forced delete: the time left until the deadline, at least one second.
std::int64_t force_delete_grace_seconds(std::int64_t now_ms, std::int64_t deadline_ms);

// The NodeClaim's termination deadline: the nodeclaim-termination-timestamp annotation when set,
// else deletionTimestamp + spec.terminationGracePeriod; `drain_timeout_ms` > 0 (DRAIN_TIMEOUT)
// caps it at deletionTimestamp + that. Nothing when none applies (the drain waits for ever).
std::optional<std::int64_t> termination_deadline_ms(const kube::node_claim& claim,
                                                    std::int64_t drain_timeout_ms);

// True when `taints` already carries karpenter.sh/disrupted:NoSchedule.
bool has_disrupted_taint(const std::vector<kube::taint>& taints);
// `taints` with karpenter.sh/disrupted:NoSchedule replacing any taint of that key.
std::vector<kube::taint> with_disrupted_taint(std::vector<kube::taint> taints,
                                              const std::string& time_added);

}  // namespace kp::actors::termination
