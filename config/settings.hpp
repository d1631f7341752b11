#pragma once
// Every operator setting as a plain value. The initialisers ARE the defaults: --help and
// docs/settings.md print them from a default-constructed settings, so they cannot drift apart.
// Names follow Karpenter (pkg/operator/options) and the Go Proxmox provider.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "config/duration.hpp"

namespace kp::config {

using namespace std::chrono_literals;

enum class log_verbosity { debug, info, warn, error };
enum class preference_mode { respect, ignore };          // PREFERENCE_POLICY Respect|Ignore
enum class min_values_mode { strict, best_effort };      // MIN_VALUES_POLICY Strict|BestEffort
enum class node_policy_mode { simple, static_pinning };  // NODE_POLICY simple|static

// Karpenter's feature gates with Karpenter's defaults.
struct feature_gates {
  bool node_repair = false;
  bool reserved_capacity = true;
  bool spot_to_spot_consolidation = false;
  bool node_overlay = false;
  bool static_capacity = false;
  bool capacity_buffer = false;

  friend bool operator==(const feature_gates&, const feature_gates&) = default;
};

struct settings {
  // --- Karpenter core --------------------------------------------------------------------------
  std::string karpenter_service;  // legacy webhook service name; accepted, unused
  int metrics_port = 8080;        // 0 picks a free port (logged)
  int health_probe_port = 8081;   // 0 picks a free port (logged)
  int kube_client_qps = 200;
  int kube_client_burst = 300;
  bool enable_profiling = false;  // accepted; there is no pprof in C++
  bool disable_controller_warmup = true;
  bool disable_leader_election = false;
  std::string leader_election_name = "karpenter-leader-election";
  std::string leader_election_namespace;  // "" = the pod's namespace
  bool disable_cluster_state_observability = false;
  std::int64_t memory_limit = -1;    // bytes; accepted, informational
  std::int64_t cpu_requests = 1000;  // millicores; scales worker counts
  log_verbosity log_level = log_verbosity::info;
  std::string log_output_paths = "stdout";
  std::string log_error_output_paths = "stderr";
  duration batch_max_duration = 10s;
  duration batch_idle_duration = 1s;
  preference_mode preference_policy = preference_mode::respect;
  min_values_mode min_values_policy = min_values_mode::strict;
  bool ignore_dra_requests = true;
  feature_gates gates;
  std::string scheduler_config;  // path to a YAML with default topology spread constraints

  // --- Go Proxmox provider ---------------------------------------------------------------------
  std::string cloud_config;  // the clusters file (required)
  std::string instance_types_file;
  std::string node_setting_file;
  node_policy_mode node_policy = node_policy_mode::simple;
  int proxmox_vmid = 20000;  // lowest VMID for new node VMs
  std::string system_namespace = "kube-system";
  // Where a node class's templatesRef/valuesRef Secrets may be read (TEMPLATE_SECRET_NAMESPACES).
  // Empty: SYSTEM_NAMESPACE and the controller's own namespace (secret_namespaces.hpp).
  std::vector<std::string> template_secret_namespaces;
  double vm_memory_overhead_percent = 0.075;  // a fraction; honoured here, ignored by the Go one

  // --- karpenter-proxmox -----------------------------------------------------------------------
  std::string cluster_name;      // "" = the UID of the kube-system namespace, resolved at start
  std::string cluster_endpoint;  // "" = the server of the kubeconfig or in-cluster config
  std::string kubeconfig;        // "" = in-cluster configuration
  std::string bind_address = "0.0.0.0";  // where /metrics, /healthz and /readyz listen

  // --- lifecycle timeouts (Karpenter's defaults) ----------------------------------------------
  duration launch_timeout = 5min;
  duration registration_timeout = 15min;
  duration min_drain_duration = 5s;
  duration drain_timeout = 0s;  // 0 = none: wait for the pods or the terminationGracePeriod
  duration garbage_collection_interval = 2min;
  duration orphan_vm_grace_period = 30s;
  duration provisioning_solve_timeout = 1min;
  duration initialization_timeout = 0s;  // 0 = none (Karpenter has none either)
  duration bootstrap_token_ttl = 1h;     // a join token lives at most this long
  duration leader_election_lease_duration = 15s;
  duration leader_election_renew_deadline = 10s;
  duration leader_election_retry_period = 2s;
  duration proxmox_inventory_interval = 1min;  // how often each region re-reads Proxmox

  // --- disruption (Karpenter's fixed values, settings here so tests and operators can tune) ----
  duration disruption_poll_interval = 10s;          // one disruption pass per interval
  duration disruption_validation_delay = 15s;       // a command is re-checked after this
  duration disruption_replacement_timeout = 10min;  // replacements must be Initialized by then
  duration node_repair_toleration = 30min;  // NotReady this long -> repaired (NodeRepair gate)
  // kproximate's conservative scale-down (docs/disruption.md): off = Karpenter's behaviour.
  bool conservative_scale_down = false;
  duration scale_down_stabilization = 5min;  // kproximate scaleDownStabilizationMinutes
  duration min_node_age = 10min;             // kproximate minNodeAgeMinutes
  double load_headroom = 0.2;                // kproximate loadHeadroom

  // --- Proxmox task waits per operation, and per-region concurrency ---------------------------
  duration proxmox_clone_timeout = 5min;
  duration proxmox_config_timeout = 5min;
  duration proxmox_resize_timeout = 5min;
  duration proxmox_start_timeout = 60s;
  duration proxmox_stop_timeout = 60s;
  duration proxmox_delete_timeout = 60s;
  duration proxmox_upload_timeout = 60s;
  duration proxmox_download_timeout = 5min;
  duration proxmox_template_timeout = 60s;
  duration proxmox_task_poll_interval = 1s;
  // The first poll of a task waits for its type's typical duration on its host, within these.
  duration proxmox_task_first_poll_floor = 20ms;
  duration proxmox_task_first_poll_cap = 10s;
  // Task waits share one GET /cluster/tasks read per poll round.
  bool proxmox_cluster_task_list = true;
  duration proxmox_task_list_gather = 30ms;
  // Config writes and volume deletes ask Proxmox to answer once their task ended (up to this).
  duration proxmox_task_answer_wait = 5s;
  duration proxmox_template_config_max_age = 5min;  // a template's mark serves this long
  duration proxmox_host_facts_max_age = 30min;      // node status and bridges are read again
  duration proxmox_launched_config_max_age = 5min;  // a launch's own record of its VM serves
  duration proxmox_request_timeout = 60s;
  int proxmox_max_inflight = 8;  // Proxmox operations in flight per region
};

}  // namespace kp::config
