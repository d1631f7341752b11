#pragma once
// Per-host capacity and overhead overrides on offerings (Karpenter v1.14's CapacityOverride and
// OverheadOverride): a host whose VMs get hugepages or other reservations offers a type with
// the allocatable it really has, and only that host's offerings change.
#include <vector>

#include "core/instance_types/instance_type.hpp"
#include "core/model/resource_list.hpp"

namespace kp::instance_types {

// Karpenter's computeAllocatable: the type's capacity with the override's values put in, less
// the type's total overhead (kube + system + eviction) with the override's totals put in, and
// memory less every hugepages-* capacity (never below zero). Without overrides this is
// type.allocatable().
model::resource_list allocatable_with(const instance_type& type, const offering_override* o);

// The allocatable of VMs of `type` launched through `offering`.
model::resource_list offering_allocatable(const instance_type& type, const offering& offering);

// The allocatable a scheduler may plan a NodeClaim of `type` with when its offerings differ:
// each resource's largest value over the available offerings (the type's own when none is
// available). Planned NodeClaims are then kept to the hosts where they fit
// (scheduling::keep_to_fitting_hosts).
model::resource_list largest_allocatable(const instance_type& type);

// Whether some available offering of `type` carries overrides.
bool has_overrides(const instance_type& type);

}  // namespace kp::instance_types
