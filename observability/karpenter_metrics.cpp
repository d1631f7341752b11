#include "observability/karpenter_metrics.hpp"

namespace kp::obs {
namespace {

template <class Builder>
auto& add(Builder builder, prometheus::Registry& r, const char* name, const char* help) {
  return builder.Name(name).Help(help).Register(r);
}

prometheus::Family<prometheus::Counter>& counter(prometheus::Registry& r, const char* name,
                                                 const char* help) {
  return add(prometheus::BuildCounter(), r, name, help);
}
prometheus::Family<prometheus::Gauge>& gauge(prometheus::Registry& r, const char* name,
                                             const char* help) {
  return add(prometheus::BuildGauge(), r, name, help);
}
prometheus::Family<prometheus::Histogram>& histogram(prometheus::Registry& r, const char* name,
                                                     const char* help) {
  return add(prometheus::BuildHistogram(), r, name, help);
}

}  // namespace

prometheus::Histogram::BucketBoundaries duration_buckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600};
}

prometheus::Histogram::BucketBoundaries consolidation_score_buckets() {
  return {0.1, 0.25, 0.33, 0.5, 1.0, 2.0, 5.0, 10.0};
}

karpenter_metrics::karpenter_metrics(prometheus::Registry& r) : karpenter_metrics(r, r) {}

// No prometheus-cpp family is per object today (karpenter_pods_state is an object_gauges).
karpenter_metrics::karpenter_metrics(prometheus::Registry& r, prometheus::Registry& /*per_object*/)
    : registry(r),
      nodeclaims_created(counter(r, "karpenter_nodeclaims_created_total",
                                 "Number of nodeclaims created in total by Karpenter.")),
      nodeclaims_terminated(counter(r, "karpenter_nodeclaims_terminated_total",
                                    "Number of nodeclaims terminated in total by Karpenter.")),
      nodeclaims_disrupted(counter(r, "karpenter_nodeclaims_disrupted_total",
                                   "Number of nodeclaims disrupted in total by Karpenter.")),
      nodeclaims_termination_duration(histogram(r,
                                                "karpenter_nodeclaims_termination_duration_seconds",
                                                "Duration of NodeClaim termination in seconds.")),
      nodes_created(counter(r, "karpenter_nodes_created_total",
                            "Number of nodes created in total by Karpenter.")),
      nodes_terminated(counter(r, "karpenter_nodes_terminated_total",
                               "Number of nodes terminated in total by Karpenter.")),
      nodes_drained(
          counter(r, "karpenter_nodes_drained_total", "The number of nodes drained by Karpenter.")),
      nodes_termination_duration(histogram(r, "karpenter_nodes_termination_duration_seconds",
                                           "The time taken between a node's deletion request "
                                           "and the removal of its finalizer.")),
      pods_state(std::make_shared<object_gauges>(
          "karpenter_pods_state",
          "Pod state is the current state of pods. This metric can be used several "
          "ways as it is labeled by the pod name, namespace, owner, node, nodepool "
          "name, zone, architecture, capacity type, instance type and pod phase.")),
      pods_startup_duration(histogram(r, "karpenter_pods_startup_duration_seconds",
                                      "The time from pod creation until the pod is running.")),
      pods_eviction_requests(counter(r, "karpenter_pods_eviction_requests_total",
                                     "The number of eviction requests by response code.")),
      pods_drained(counter(r, "karpenter_pods_drained_total",
                           "Number of pods drained by Karpenter, by reason.")),
      scheduler_scheduling_duration(
          histogram(r, "karpenter_scheduler_scheduling_duration_seconds",
                    "Duration of scheduling simulations used for deprovisioning and "
                    "provisioning in seconds.")),
      scheduler_queue_depth(gauge(r, "karpenter_scheduler_queue_depth",
                                  "The number of pods currently waiting to be scheduled.")),
      scheduler_unschedulable_pods(
          gauge(r, "karpenter_scheduler_unschedulable_pods_count",
                "The number of unschedulable Pods in the last scheduling simulation.")),
      nodepools_usage(gauge(r, "karpenter_nodepools_usage",
                            "The amount of resources that have been provisioned for a nodepool.")),
      nodepools_limit(
          gauge(r, "karpenter_nodepools_limit",
                "Limits specified on the nodepool that restrict the quantity of resources "
                "provisioned.")),
      nodepools_allowed_disruptions(
          gauge(r, "karpenter_nodepools_allowed_disruptions",
                "The number of nodes for a given NodePool that can be concurrently disrupting "
                "at a point in time.")),
      nodepools_cost(gauge(r, "karpenter_nodepools_cost_total",
                           "Total cost of the nodepool from Karpenter's perspective. Units are "
                           "determined by the cloud provider. Not an authoritative source for "
                           "billing. Includes modifications due to NodeOverlays")),
      disruption_decisions(counter(r, "karpenter_voluntary_disruption_decisions_total",
                                   "Number of disruption decisions performed.")),
      disruption_eligible_nodes(gauge(r, "karpenter_voluntary_disruption_eligible_nodes",
                                      "Number of nodes eligible for disruption by Karpenter.")),
      disruption_failed_validations(
          counter(r, "karpenter_voluntary_disruption_failed_validations_total",
                  "Number of disruption decisions that failed validation.")),
      disruption_evaluation_duration(
          histogram(r, "karpenter_voluntary_disruption_decision_evaluation_duration_seconds",
                    "Duration of the disruption decision evaluation process in seconds.")),
      disruption_blocked(counter(r, "karpenter_proxmox_disruption_blocked_total",
                                 "Nodes considered for disruption and not disrupted, by the "
                                 "reason that blocked them.")),
      consolidation_moves(counter(r, "karpenter_consolidation_moves_total",
                                  "Number of balanced consolidation moves. Labeled by decision, "
                                  "NodePool, and policy.")),
      consolidation_score(histogram(r, "karpenter_consolidation_score",
                                    "Score of balanced consolidation moves. Labeled by decision, "
                                    "NodePool, and policy.")),
      nodeclaims_by_phase(gauge(r, "karpenter_proxmox_nodeclaims",
                                "NodeClaims by NodePool and lifecycle phase: Launching, "
                                "Registering, Initializing, Ready or Terminating.")),
      nodeclaims_launch_duration(
          histogram(r, "karpenter_proxmox_nodeclaims_launch_duration_seconds",
                    "Time from a NodeClaim's creation to Launched=True (its VM started).")),
      nodeclaims_registration_duration(
          histogram(r, "karpenter_proxmox_nodeclaims_registration_duration_seconds",
                    "Time from Launched=True to Registered=True (its Node joined).")),
      nodeclaims_initialization_duration(
          histogram(r, "karpenter_proxmox_nodeclaims_initialization_duration_seconds",
                    "Time from Registered=True to Initialized=True (its Node became ready "
                    "with every resource).")),
      launch_step_duration(histogram(
          r, "karpenter_proxmox_launch_step_duration_seconds",
          "Each step of a VM from its clone to Ready, by step (clone: the clone task; configure: "
          "ISO upload, config write, disk resize, firewall; boot: the start task; join: Node "
          "registered and Ready, NodeClaim Initialized) and clone_mode (linked or full).")),
      clone_to_ready_duration(
          histogram(r, "karpenter_proxmox_launch_clone_to_ready_duration_seconds",
                    "Time from a VM's clone call to its NodeClaim Initialized=True, by "
                    "clone_mode (linked or full).")),
      host_online(gauge(r, "karpenter_proxmox_host_online",
                        "1 when a Proxmox host is online, 0 when not, by region and host.")),
      host_free_cpus(gauge(r, "karpenter_proxmox_host_free_cpus",
                           "CPUs of a Proxmox host free for new VMs as placement sees it "
                           "(launches in flight reserved).")),
      host_free_memory(gauge(r, "karpenter_proxmox_host_free_memory_bytes",
                             "Memory of a Proxmox host free for new VMs as placement sees it "
                             "(launches in flight reserved).")),
      numa_free_cpus(gauge(r, "karpenter_proxmox_numa_free_cpus",
                           "CPUs of a Proxmox host NUMA node neither reserved nor pinned: what "
                           "CPU pinning could still take there.")),
      numa_free_memory(gauge(r, "karpenter_proxmox_numa_free_memory_bytes",
                             "Memory of a Proxmox host NUMA node free for new VMs as placement "
                             "sees it (its share of the host reservation and its VMs taken).")),
      cluster_state_node_count(gauge(r, "karpenter_cluster_state_node_count",
                                     "Current count of nodes in cluster state.")),
      cluster_state_synced(gauge(r, "karpenter_cluster_state_synced",
                                 "Returns 1 if cluster state is synced and 0 otherwise.")),
      cloudprovider_duration(histogram(r, "karpenter_cloudprovider_duration_seconds",
                                       "Duration of cloud provider method calls.")),
      cloudprovider_errors(counter(r, "karpenter_cloudprovider_errors_total",
                                   "Total number of errors returned from CloudProvider calls.")),
      proxmox_requests(counter(r, "karpenter_proxmox_api_requests_total",
                               "Proxmox VE API requests by region, method, templated path and "
                               "HTTP status code (0: no response).")),
      proxmox_latency(histogram(r, "karpenter_proxmox_api_request_duration_seconds",
                                "Proxmox VE API request latency by region, method and templated "
                                "path.")),
      garbage_collection_skipped(
          counter(r, "karpenter_proxmox_garbage_collection_skipped_total",
                  "NodeClaims (and whole regions) a garbage collection pass left alone because "
                  "Proxmox could not say whether their VM exists: a VM whose config could not "
                  "be read, a host that is offline, a listing that failed.")),
      status_write_refusals(counter(r, "karpenter_proxmox_status_write_refusals_total",
                                    "Status writes the Kubernetes API server refused (invalid, "
                                    "bad request or forbidden), by kind of object.")),
      kpnodes_total(gauge(r, "kpnodes_total", "The total number of kproximate nodes")),
      kpnodes_running(gauge(r, "kpnodes_running", "The number of running kproximate nodes")),
      cpu_provisioned_total(gauge(r, "cpu_provisioned_total", "The total provisioned cpus")),
      memory_provisioned_total(
          gauge(r, "memory_provisioned_total", "The total memory provisioned")),
      cpu_allocatable_total(gauge(r, "cpu_allocatable_total", "The total cpus allocatable")),
      memory_allocatable_total(
          gauge(r, "memory_allocatable_total", "The total memory allocatable")),
      cpu_allocated_total(gauge(r, "cpu_allocated_total", "The total cpu allocated")),
      memory_allocated_total(gauge(r, "memory_allocated_total", "The total memory allocated")),
      actor_failures(counter(r, "karpenter_proxmox_actor_failures_total",
                             "Exceptions caught at an actor's boundary, by actor; each was "
                             "confined to the message or object it was handling.")),
      actor_restarts(counter(r, "karpenter_proxmox_actor_restarts_total",
                             "Actors started again, after a backoff, because they stopped on "
                             "their own (an exception or an abnormal exit), by actor.")) {}

}  // namespace kp::obs
