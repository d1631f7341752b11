#pragma once
// The ownership mark in a VM's description (DESIGN.md §5): one line
//   karpenter-proxmox: cluster=<CLUSTER_NAME>, nodeclaim=<name>, nodepool=<pool>[, affinity=<cpus>]
// written at clone time, so a VM made by this controller is recognisable after any crash.
// `affinity=` (always last: its value contains commas) carries the CPU plan when a token could
// not set the root-only `affinity` key. Pure text functions; tools and tests rely on the line.
#include <optional>
#include <string>
#include <string_view>

namespace kp::ownership {

struct ownership_mark {
  std::string cluster;
  std::string nodeclaim;
  std::string nodepool;
  std::string affinity;  // "" when none
  friend bool operator==(const ownership_mark&, const ownership_mark&) = default;
};

std::string format_ownership_mark(const ownership_mark& mark);

// Finds the mark line anywhere in a description; nothing when absent or malformed (a missing
// cluster or nodeclaim, an unknown key, an empty value).
std::optional<ownership_mark> parse_ownership_mark(std::string_view description);

// The Go provider's description ("Karpenter managed instance, class=..., affinity=...").
bool is_go_provider_description(std::string_view description);

// The `affinity=` plan of any description (ours or the Go provider's), "" when none.
std::string description_affinity(std::string_view description);

}  // namespace kp::ownership
