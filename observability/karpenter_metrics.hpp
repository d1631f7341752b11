#pragma once
// Every metric family the controller exports under Karpenter's names and labels (karpenter-core.md
// section 6), kproximate's eight gauges (kproximate.md section 8) and the Proxmox API request
// counters, registered once per process. Actors receive a shared pointer and add label sets;
// prometheus-cpp families are thread-safe, so this is the one thing actors share (write-only
// counters, never read back to decide anything).
#include <memory>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "observability/object_gauges.hpp"

namespace kp::obs {

struct karpenter_metrics {
  explicit karpenter_metrics(prometheus::Registry& registry);
  // Families with a series per object go to `per_object`
  // (metrics_registry::per_object_registry()).
  karpenter_metrics(prometheus::Registry& registry, prometheus::Registry& per_object);

  prometheus::Registry& registry;

  // NodeClaims and nodes
  prometheus::Family<prometheus::Counter>&
      nodeclaims_created;  // reason,nodepool,min_values_relaxed
  prometheus::Family<prometheus::Counter>& nodeclaims_terminated;  // nodepool,capacity_type,zone
  prometheus::Family<prometheus::Counter>&
      nodeclaims_disrupted;  // reason,nodepool,capacity_type,...
  prometheus::Family<prometheus::Histogram>& nodeclaims_termination_duration;  // nodepool
  prometheus::Family<prometheus::Counter>& nodes_created;                      // nodepool,zone
  prometheus::Family<prometheus::Counter>& nodes_terminated;                   // nodepool,zone
  prometheus::Family<prometheus::Counter>& nodes_drained;                      // nodepool
  prometheus::Family<prometheus::Histogram>& nodes_termination_duration;       // nodepool

  // Pods
  // name,namespace,node,nodepool,zone,phase,scheduled; its series are made when collected (the
  // pods of the latest snapshot), so it is in no registry: collect it through
  // metrics_registry::add_per_object (the controller) or directly (tests).
  std::shared_ptr<object_gauges> pods_state;
  prometheus::Family<prometheus::Histogram>& pods_startup_duration;  // (none)
  prometheus::Family<prometheus::Counter>& pods_eviction_requests;   // code
  prometheus::Family<prometheus::Counter>& pods_drained;             // reason

  // Scheduler
  prometheus::Family<prometheus::Histogram>& scheduler_scheduling_duration;  // controller
  prometheus::Family<prometheus::Gauge>& scheduler_queue_depth;         // controller,scheduling_id
  prometheus::Family<prometheus::Gauge>& scheduler_unschedulable_pods;  // controller

  // NodePools
  prometheus::Family<prometheus::Gauge>& nodepools_usage;                // resource_type,nodepool
  prometheus::Family<prometheus::Gauge>& nodepools_limit;                // resource_type,nodepool
  prometheus::Family<prometheus::Gauge>& nodepools_allowed_disruptions;  // nodepool,reason
  prometheus::Family<prometheus::Gauge>& nodepools_cost;                 // nodepool

  // Disruption
  prometheus::Family<prometheus::Counter>&
      disruption_decisions;  // decision,reason,consolidation_type
  prometheus::Family<prometheus::Gauge>& disruption_eligible_nodes;        // reason
  prometheus::Family<prometheus::Counter>& disruption_failed_validations;  // consolidation_type
  prometheus::Family<prometheus::Histogram>&
      disruption_evaluation_duration;  // reason,consolidation_type
  prometheus::Family<prometheus::Counter>&
      disruption_blocked;  // reason (why a node was not disrupted)
  // Consolidation moves as the Balanced evaluator sees them (every policy counted, Balanced
  // scored)
  prometheus::Family<prometheus::Counter>& consolidation_moves;    // decision,nodepool,policy
  prometheus::Family<prometheus::Histogram>& consolidation_score;  // decision,nodepool,policy

  // NodeClaims by lifecycle phase, and how long each step took, from the claims' own condition
  // times (actors/fleet_gauges)
  prometheus::Family<prometheus::Gauge>& nodeclaims_by_phase;                     // nodepool,phase
  prometheus::Family<prometheus::Histogram>& nodeclaims_launch_duration;          // nodepool
  prometheus::Family<prometheus::Histogram>& nodeclaims_registration_duration;    // nodepool
  prometheus::Family<prometheus::Histogram>& nodeclaims_initialization_duration;  // nodepool
  // Each step of a VM this controller cloned, from the clone call to the NodeClaim Initialized
  // (clone, configure, boot, join), on the actor clock, and the whole of it
  prometheus::Family<prometheus::Histogram>& launch_step_duration;     // step,clone_mode
  prometheus::Family<prometheus::Histogram>& clone_to_ready_duration;  // clone_mode

  // Each Proxmox host as placement sees it (the region inventories; actors/fleet_gauges)
  prometheus::Family<prometheus::Gauge>& host_online;       // region,host
  prometheus::Family<prometheus::Gauge>& host_free_cpus;    // region,host
  prometheus::Family<prometheus::Gauge>& host_free_memory;  // region,host
  // The same per host NUMA node (CPUs neither reserved nor pinned; memory less the node's share)
  prometheus::Family<prometheus::Gauge>& numa_free_cpus;    // region,host,numa
  prometheus::Family<prometheus::Gauge>& numa_free_memory;  // region,host,numa

  // Cluster state
  prometheus::Family<prometheus::Gauge>& cluster_state_node_count;
  prometheus::Family<prometheus::Gauge>& cluster_state_synced;

  // Cloud provider (our region actors behind it)
  prometheus::Family<prometheus::Histogram>& cloudprovider_duration;  // controller,method,provider
  prometheus::Family<prometheus::Counter>&
      cloudprovider_errors;  // controller,method,provider,error

  // Proxmox API: requests by region, method, templated path and HTTP code; latency histogram
  prometheus::Family<prometheus::Counter>& proxmox_requests;   // region,method,path,code
  prometheus::Family<prometheus::Histogram>& proxmox_latency;  // region,method,path
  // Claims and regions a garbage collection pass could not judge (unknown is not gone)
  prometheus::Family<prometheus::Counter>& garbage_collection_skipped;  // region,reason

  // Status writes the API server refused (422/400/403); each is logged once per generation
  prometheus::Family<prometheus::Counter>& status_write_refusals;  // kind

  // kproximate's gauges, with its names (all gauges, as kproximate has them)
  prometheus::Family<prometheus::Gauge>& kpnodes_total;
  prometheus::Family<prometheus::Gauge>& kpnodes_running;
  prometheus::Family<prometheus::Gauge>& cpu_provisioned_total;
  prometheus::Family<prometheus::Gauge>& memory_provisioned_total;
  prometheus::Family<prometheus::Gauge>& cpu_allocatable_total;
  prometheus::Family<prometheus::Gauge>& memory_allocatable_total;
  prometheus::Family<prometheus::Gauge>& cpu_allocated_total;
  prometheus::Family<prometheus::Gauge>& memory_allocated_total;

  // Exceptions caught at actor boundaries (actors/failure_boundary.hpp)
  prometheus::Family<prometheus::Counter>& actor_failures;  // actor
  // Actors started again after they stopped on their own (actors/restart_schedule.hpp)
  prometheus::Family<prometheus::Counter>& actor_restarts;  // actor
};

// Latency buckets (seconds) shared by the duration histograms.
prometheus::Histogram::BucketBoundaries duration_buckets();
// Karpenter's buckets of karpenter_consolidation_score.
prometheus::Histogram::BucketBoundaries consolidation_score_buckets();

}  // namespace kp::obs
