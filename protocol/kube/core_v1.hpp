#pragma once
// Objects of the core API group (v1) the controller reads or writes: Pod, Node, Namespace,
// Secret, ConfigMap, Event, PersistentVolume and PersistentVolumeClaim. Only the fields the
// controller and the scheduler use are modelled; others are dropped on decode.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/kube/api_resource.hpp"
#include "protocol/kube/meta_types.hpp"
#include "protocol/kube/shared_optional.hpp"
#include "protocol/kube/shared_vector.hpp"

namespace kp::kube {

struct port_spec {
  std::string name;
  std::int64_t container_port = 0;
  std::int64_t host_port = 0;
  std::string host_ip;
  std::string protocol;
  friend bool operator==(const port_spec&, const port_spec&) = default;
  friend auto operator<=>(const port_spec&, const port_spec&) = default;
};

struct resource_requirements {
  resource_list requests;
  resource_list limits;
  friend bool operator==(const resource_requirements&, const resource_requirements&) = default;
  friend auto operator<=>(const resource_requirements&, const resource_requirements&) = default;
};

struct container {
  std::string name;
  std::string image;
  resource_requirements resources;
  std::vector<port_spec> ports;
  std::string restart_policy;  // "Always" on an init container marks a sidecar
  friend bool operator==(const container&, const container&) = default;
  friend auto operator<=>(const container&, const container&) = default;
};

struct volume {
  std::string name;
  std::string persistent_volume_claim;  // claimName, "" if not a PVC volume
  bool ephemeral = false;               // a generic ephemeral volume (PVC named <pod>-<volume>)
  bool host_path = false;
  bool empty_dir = false;
  friend bool operator==(const volume&, const volume&) = default;
  friend auto operator<=>(const volume&, const volume&) = default;
};

struct topology_spread_constraint {
  std::int64_t max_skew = 0;
  std::string topology_key;
  std::string when_unsatisfiable;  // DoNotSchedule, ScheduleAnyway
  std::optional<kube::label_selector> label_selector;
  std::optional<std::int64_t> min_domains;
  std::string node_affinity_policy;  // Honor, Ignore
  std::string node_taints_policy;
  std::vector<std::string> match_label_keys;
  friend bool operator==(const topology_spread_constraint&,
                         const topology_spread_constraint&) = default;
  friend auto operator<=>(const topology_spread_constraint&,
                          const topology_spread_constraint&) = default;
};

// The parts a pod takes from its template (affinity, tolerations, spread constraints,
// containers, volumes) are shared between copies: pods of one controller share them
// (actors/cluster_state/shared_pod_parts.hpp).
struct pod_spec {
  std::string node_name;
  string_map node_selector;
  shared_optional<kube::affinity> affinity;
  shared_vector<toleration> tolerations;
  shared_vector<topology_spread_constraint> topology_spread_constraints;
  shared_vector<container> init_containers;
  shared_vector<container> containers;
  resource_list overhead;
  std::optional<std::int64_t> priority;
  std::string priority_class_name;
  std::string preemption_policy;
  std::string scheduler_name;
  std::string service_account_name;
  std::string restart_policy;
  std::optional<std::int64_t> termination_grace_period_seconds;
  bool host_network = false;
  shared_vector<volume> volumes;
  friend bool operator==(const pod_spec&, const pod_spec&) = default;
};

// No reader looks at the status reason, message or IPs, so they are not modelled: 100,000 pods
// would carry them (and their empty strings) for nothing.
struct pod_status {
  std::string phase;                    // Pending, Running, Succeeded, Failed, Unknown
  shared_vector<condition> conditions;  // the kept ones are equal on most pods: shared
  std::string nominated_node_name;
  std::string start_time;
  friend bool operator==(const pod_status&, const pod_status&) = default;
};

struct pod {
  static constexpr api_resource resource{"", "v1", "Pod", "pods", true};
  object_meta metadata;
  pod_spec spec;
  pod_status status;
  friend bool operator==(const pod&, const pod&) = default;
};

struct pod_template_spec {
  object_meta metadata;
  pod_spec spec;
  friend bool operator==(const pod_template_spec&, const pod_template_spec&) = default;
};

struct node_spec {
  std::string provider_id;
  bool unschedulable = false;
  std::vector<kube::taint> taints;
  std::string pod_cidr;
  friend bool operator==(const node_spec&, const node_spec&) = default;
};

struct node_address {
  std::string type;  // InternalIP, ExternalIP, Hostname
  std::string address;
  friend bool operator==(const node_address&, const node_address&) = default;
};

struct node_system_info {
  std::string machine_id;
  std::string system_uuid;
  std::string boot_id;
  std::string kernel_version;
  std::string os_image;
  std::string container_runtime_version;
  std::string kubelet_version;
  std::string operating_system;
  std::string architecture;
  friend bool operator==(const node_system_info&, const node_system_info&) = default;
};

struct attached_volume {
  std::string name;
  std::string device_path;
  friend bool operator==(const attached_volume&, const attached_volume&) = default;
};

struct node_status {
  resource_list capacity;
  resource_list allocatable;
  std::vector<condition> conditions;
  std::vector<node_address> addresses;
  node_system_info node_info;
  std::vector<std::string> volumes_in_use;
  std::vector<attached_volume> volumes_attached;
  friend bool operator==(const node_status&, const node_status&) = default;
};

struct node {
  static constexpr api_resource resource{"", "v1", "Node", "nodes", false};
  object_meta metadata;
  node_spec spec;
  node_status status;
  friend bool operator==(const node&, const node&) = default;
};

struct namespace_object {
  static constexpr api_resource resource{"", "v1", "Namespace", "namespaces", false};
  object_meta metadata;
  std::string phase;  // status.phase: Active, Terminating
  friend bool operator==(const namespace_object&, const namespace_object&) = default;
};

struct secret {
  static constexpr api_resource resource{"", "v1", "Secret", "secrets", true};
  object_meta metadata;
  std::string type;
  std::map<std::string, base64_bytes> data;  // decoded bytes
  string_map string_data;  // write-only convenience, merged into data by the server
  std::optional<bool> immutable;
  friend bool operator==(const secret&, const secret&) = default;
};

struct config_map {
  static constexpr api_resource resource{"", "v1", "ConfigMap", "configmaps", true};
  object_meta metadata;
  string_map data;
  std::map<std::string, base64_bytes> binary_data;
  friend bool operator==(const config_map&, const config_map&) = default;
};

struct event_source {
  std::string component;
  std::string host;
  friend bool operator==(const event_source&, const event_source&) = default;
};

// core/v1 Event, the kind kubectl describe shows.
struct event {
  static constexpr api_resource resource{"", "v1", "Event", "events", true};
  object_meta metadata;
  object_reference involved_object;
  std::string reason;
  std::string message;
  std::string type;  // Normal, Warning
  std::int64_t count = 0;
  std::string first_timestamp;
  std::string last_timestamp;
  std::string event_time;  // MicroTime
  event_source source;
  std::string reporting_component;
  std::string reporting_instance;
  std::string action;
  friend bool operator==(const event&, const event&) = default;
};

struct persistent_volume_spec {
  resource_list capacity;
  std::vector<std::string> access_modes;
  std::string storage_class_name;
  std::string persistent_volume_reclaim_policy;
  std::string volume_mode;
  std::optional<object_reference> claim_ref;
  std::optional<node_selector> node_affinity;  // nodeAffinity.required
  std::string csi_driver;                      // csi.driver
  std::string csi_volume_handle;               // csi.volumeHandle
  friend bool operator==(const persistent_volume_spec&, const persistent_volume_spec&) = default;
};

struct persistent_volume {
  static constexpr api_resource resource{"", "v1", "PersistentVolume", "persistentvolumes", false};
  object_meta metadata;
  persistent_volume_spec spec;
  std::string phase;  // status.phase
  friend bool operator==(const persistent_volume&, const persistent_volume&) = default;
};

struct persistent_volume_claim_spec {
  std::vector<std::string> access_modes;
  std::optional<std::string> storage_class_name;  // unset differs from "" (no class)
  std::string volume_name;
  std::string volume_mode;
  resource_requirements resources;
  friend bool operator==(const persistent_volume_claim_spec&,
                         const persistent_volume_claim_spec&) = default;
};

struct persistent_volume_claim_status {
  std::string phase;
  std::vector<std::string> access_modes;
  resource_list capacity;
  friend bool operator==(const persistent_volume_claim_status&,
                         const persistent_volume_claim_status&) = default;
};

struct persistent_volume_claim {
  static constexpr api_resource resource{"", "v1", "PersistentVolumeClaim",
                                         "persistentvolumeclaims", true};
  object_meta metadata;
  persistent_volume_claim_spec spec;
  persistent_volume_claim_status status;
  friend bool operator==(const persistent_volume_claim&, const persistent_volume_claim&) = default;
};

}  // namespace kp::kube
