#pragma once
// Every reason of a Kubernetes Event this controller emits on its own account, listed once (the
// node class and template writers also emit an Event per condition change, under the condition's
// reason from condition_reasons.hpp). Emitters take an `event_reason`, made only at compile time
// from a string listed here, so a new reason does not compile until it is listed, and
// docs/troubleshooting.md is checked against this list and condition_reasons.hpp
// (test/docs/troubleshooting_test.cpp).
#include <string>
#include <string_view>

namespace kp::actors {

inline constexpr std::string_view event_reasons[] = {
    // Pods (actors/provisioning, actors/termination)
    "Nominated", "FailedScheduling", "Evicted",
    // NodeClaims (actors/nodeclaim)
    "Launched", "LaunchFailed", "Registered", "LaunchTimeout", "RegistrationTimeout", "ForeignVM",
    // NodeClaims (actors/nodeclaim: the fleet restarted the claim's actor)
    "LifecycleRestarted",
    // NodeClaims and Nodes (actors/termination)
    "Terminating", "FailedDraining",
    // NodeClaims and Nodes (actors/disruption)
    "Disrupting", "DisruptionBlocked", "DisruptionLaunching", "DisruptionTerminating",
    "NodeRepairBlocked",
    // NodeClaims, Nodes and NodePools: a Balanced move approved (actors/disruption)
    "ConsolidationApproved",
    // Pods and Nodes: a karpenter.sh/do-not-disrupt value that is ignored (actors/disruption)
    "InvalidDoNotDisruptAnnotation",
    // NodeClaims (actors/garbage_collection)
    "GarbageCollected"};

class event_reason {
 public:
  // Compile-time only: an unlisted reason is a compile error (the throw makes the call a
  // non-constant expression).
  consteval event_reason(const char* text) : text_(text) {
    if (!listed(text_)) throw "event reason not listed in actors/event_reasons.hpp";
  }

  constexpr std::string_view view() const { return text_; }
  std::string str() const { return std::string(text_); }

 private:
  static consteval bool listed(std::string_view s) {
    for (auto r : event_reasons) {
      if (r == s) return true;
    }
    return false;
  }
  std::string_view text_;
};

}  // namespace kp::actors
