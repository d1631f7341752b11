#pragma once
// Every reason a status condition written by this controller can carry, listed once. Upstream's
// CRDs require a reason matching ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$ on every condition, so
// the functions that set conditions take a `condition_reason`, which is made only at compile time
// from a string listed here and matching that pattern: a new reason does not compile until it is
// listed, and test/actors/status/condition_reasons_kube_sim_test.cpp writes every listed reason
// through kube-sim against our CRDs.
#include <array>
#include <string>
#include <string_view>
#include <utility>

namespace kp::actors {

inline constexpr std::string_view condition_reasons[] = {
    // NodeClaim: Launched, Registered, Initialized, Ready (actors/nodeclaim)
    "Launched", "NodeClassNotFound", "TemplateNotFound", "TemplateError", "InsufficientCapacity",
    "RegionNotFound", "ProxmoxError", "InvalidRequest", "InvalidNodeClass", "JoinFailed",
    "LaunchFailed", "NotInTemplateSecretNamespaces", "ProxmoxStateUnknown", "RegionNotReady",
    "Registered", "NodeNotFound", "MultipleNodesFound", "Initialized", "NodeNotReady",
    "StartupTaintsExist", "KnownEphemeralTaintsExist", "ResourceNotRegistered", "Ready", "NotReady",
    // NodeClaim: DisruptionReason (actors/disruption)
    "Empty", "Drifted", "Underutilized", "Expired",
    // ProxmoxNodeClass: InstanceTemplateReady, InstanceMetadataOptionsReady, Ready
    // (actors/nodeclass_status; Ready repeats the reason of the condition that is not True)
    "TemplateReady", "TemplateNotReady", "TemplateValidation", "InventoryUnavailable",
    "TemplateFound", "GuestAgentJoin", "MetadataNone", "SecretUnread", "SecretNotFound",
    "SecretUnreadable", "DefaultTemplates", "TemplatesParsed",
    // NodePool: NodeClassReady, ValidationSucceeded, Ready (actors/nodepool_status)
    "NodeClassTerminating", "NodeClassReadinessUnknown", "NodeClassReady", "NodeClassNotReady",
    "ValidationSucceeded", "NodePoolValidationFailed", "UnhealthyDependents",
    // NodeOverlay: ValidationSucceeded, Ready (actors/node_overlay; Karpenter's reasons)
    "Conflict", "RuntimeValidation",
    // ProxmoxTemplate: ImageReady, Ready (actors/template_builder)
    "InvalidSpec", "StorageNotFound", "Building", "ImageImported", "TemplatesReady",
    "TemplatesPartiallyReady", "NoHostsOnline", "ProxmoxUnreachable", "DownloadFailed",
    "CreateFailed", "TemplateConversionFailed", "RegionNotConfigured", "InvalidPCIDevices",
    "PCIMappingNotFound",
    // CapacityBuffer: ReadyForProvisioning, Provisioning (actors/capacity_buffer)
    "Resolved", "PodTemplateNotFound", "ScalableRefNotFound", "ResolutionFailed",
    "FitsExistingCapacity", "RequiresNewCapacity", "NotReadyForProvisioning", "BufferEmpty"};

// ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$, the reason pattern of metav1.Condition.
constexpr bool valid_condition_reason(std::string_view s) {
  auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  auto word = [&](char c) { return letter(c) || (c >= '0' && c <= '9') || c == '_'; };
  if (s.empty() || s.size() > 1024 || !letter(s.front())) return false;
  if (s.size() > 1 && !word(s.back())) return false;
  for (char c : s.substr(1)) {
    if (!word(c) && c != ',' && c != ':') return false;
  }
  return true;
}

class condition_reason {
 public:
  // Compile-time only: an unlisted or malformed reason is a compile error (the throw makes the
  // call a non-constant expression).
  consteval condition_reason(const char* text) : text_(text) {
    if (!listed(text_) || !valid_condition_reason(text_)) {
      throw "condition reason not listed in actors/condition_reasons.hpp";
    }
  }

  constexpr std::string_view view() const { return text_; }
  std::string str() const { return std::string(text_); }
  operator std::string() const { return str(); }
  friend constexpr bool operator==(condition_reason a, condition_reason b) {
    return a.text_ == b.text_;
  }

 private:
  static consteval bool listed(std::string_view s) {
    for (auto r : condition_reasons) {
      if (r == s) return true;
    }
    return false;
  }
  std::string_view text_;
};

namespace detail {
template <std::size_t... I>
consteval auto every_condition_reason(std::index_sequence<I...>) {
  return std::array<condition_reason, sizeof...(I)>{
      condition_reason(condition_reasons[I].data())...};
}
}  // namespace detail

// The list above as condition_reasons, for tests that write each of them.
inline constexpr auto all_condition_reasons =
    detail::every_condition_reason(std::make_index_sequence<std::size(condition_reasons)>{});

// One condition as a writer decides it; lastTransitionTime and observedGeneration are filled
// where it is written.
struct condition_update {
  std::string type;
  std::string status;  // True, False, Unknown
  condition_reason reason;
  std::string message;  // may be empty; always written
};

}  // namespace kp::actors
