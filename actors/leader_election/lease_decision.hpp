#pragma once
// The leader elector's decision, apart from any I/O so it can be tested on its own: given the
// Lease as last read (or none), who we are and the wall clock, what to write. client-go's
// tryAcquireOrRenew semantics: create when absent; renew when we hold it; take it over when its
// holder is empty or it expired (renewTime + leaseDurationSeconds < now); otherwise wait.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "protocol/kube/coordination_v1.hpp"

namespace kp::actors::leader_election {

enum class lease_action {
  create,   // no Lease yet: create it holding it
  acquire,  // the Lease is free or expired: take it over (transitions + 1)
  renew,    // we hold it: move renewTime forward
  wait,     // someone else holds a live Lease
};

struct lease_decision {
  lease_action action = lease_action::wait;
  // The object to write (create or update; it keeps the read resourceVersion, so a concurrent
  // writer makes the update fail with 409). Meaningless for wait.
  kube::lease desired;
  std::string holder;                // who holds the Lease as read ("" when none)
  std::int64_t expires_unix_ms = 0;  // when the holder's claim lapses, as read
};

// What to do. `current` is the Lease as read, nullopt when it does not exist.
lease_decision decide(const std::optional<kube::lease>& current, const std::string& name,
                      const std::string& namespace_, const std::string& identity,
                      std::int64_t now_unix_ms, std::chrono::milliseconds lease_duration);

// The Lease to write when giving it up on exit: holder "" and a one-second duration, as
// client-go's release does, so another replica can take it at once.
kube::lease released(const kube::lease& held, std::int64_t now_unix_ms);

// MicroTime text ("2025-01-02T03:04:05.123000Z") of a Unix millisecond.
std::string format_micro_time(std::int64_t unix_ms);

}  // namespace kp::actors::leader_election
