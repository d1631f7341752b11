#include "actors/leader_election/lease_decision.hpp"

#include <cstdio>

#include "protocol/kube/model_translation.hpp"

namespace kp::actors::leader_election {

std::string format_micro_time(std::int64_t unix_ms) {
  std::string seconds = kube::format_rfc3339(unix_ms);  // "...:05Z"
  if (!seconds.empty() && seconds.back() == 'Z') seconds.pop_back();
  auto ms = unix_ms % 1000;
  if (ms < 0) ms += 1000;
  char fraction[16];
  std::snprintf(fraction, sizeof fraction, ".%03lld000Z", static_cast<long long>(ms));
  return seconds + fraction;
}

namespace {

std::int64_t duration_seconds(std::chrono::milliseconds d) {
  // The Lease holds whole seconds; round up so we never claim less than we were configured for.
  auto s = (d.count() + 999) / 1000;
  return s < 1 ? 1 : s;
}

}  // namespace

lease_decision decide(const std::optional<kube::lease>& current, const std::string& name,
                      const std::string& namespace_, const std::string& identity,
                      std::int64_t now_unix_ms, std::chrono::milliseconds lease_duration) {
  lease_decision d;
  const auto now_text = format_micro_time(now_unix_ms);
  if (!current) {
    d.action = lease_action::create;
    d.desired.metadata.name = name;
    d.desired.metadata.namespace_ = namespace_;
    d.desired.spec.holder_identity = identity;
    d.desired.spec.lease_duration_seconds = duration_seconds(lease_duration);
    d.desired.spec.acquire_time = now_text;
    d.desired.spec.renew_time = now_text;
    d.desired.spec.lease_transitions = 0;
    return d;
  }
  const auto& spec = current->spec;
  d.holder = spec.holder_identity;
  // A Lease without a renewTime (or with one we cannot read) counts as never renewed: expired.
  const auto renewed = kube::parse_rfc3339_ms(spec.renew_time);
  const auto held_for_ms =
      spec.lease_duration_seconds ? *spec.lease_duration_seconds * 1000 : lease_duration.count();
  d.expires_unix_ms = renewed ? *renewed + held_for_ms : 0;
  d.desired = *current;
  d.desired.spec.lease_duration_seconds = duration_seconds(lease_duration);
  d.desired.spec.renew_time = now_text;
  if (!spec.holder_identity.empty() && spec.holder_identity == identity) {
    d.action = lease_action::renew;
    if (d.desired.spec.acquire_time.empty()) d.desired.spec.acquire_time = now_text;
    return d;
  }
  const bool free = spec.holder_identity.empty();
  const bool expired = !renewed || d.expires_unix_ms < now_unix_ms;
  if (!free && !expired) {
    d.action = lease_action::wait;
    d.desired = *current;
    return d;
  }
  d.action = lease_action::acquire;
  d.desired.spec.holder_identity = identity;
  d.desired.spec.acquire_time = now_text;
  d.desired.spec.lease_transitions = spec.lease_transitions.value_or(0) + 1;
  return d;
}

kube::lease released(const kube::lease& held, std::int64_t now_unix_ms) {
  kube::lease l = held;
  const auto now_text = format_micro_time(now_unix_ms);
  l.spec.holder_identity.clear();
  l.spec.lease_duration_seconds = 1;
  l.spec.acquire_time = now_text;
  l.spec.renew_time = now_text;
  return l;
}

}  // namespace kp::actors::leader_election
