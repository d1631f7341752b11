#pragma once
// storage.k8s.io/v1: CSINode (volume limits per driver), StorageClass (binding mode, allowed
// topologies) and VolumeAttachment (a node is drained only when its volumes are detached).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/kube/api_resource.hpp"
#include "protocol/kube/meta_types.hpp"

namespace kp::kube {

struct csi_node_driver {
  std::string name;
  std::string node_id;
  std::vector<std::string> topology_keys;
  std::optional<std::int64_t> allocatable_count;  // allocatable.count: attachable volume limit
  friend bool operator==(const csi_node_driver&, const csi_node_driver&) = default;
};

struct csi_node {
  static constexpr api_resource resource{"storage.k8s.io", "v1", "CSINode", "csinodes", false};
  object_meta metadata;
  std::vector<csi_node_driver> drivers;  // spec.drivers
  friend bool operator==(const csi_node&, const csi_node&) = default;
};

struct topology_selector_requirement {
  std::string key;
  std::vector<std::string> values;
  friend bool operator==(const topology_selector_requirement&,
                         const topology_selector_requirement&) = default;
};

struct topology_selector_term {
  std::vector<topology_selector_requirement> match_label_expressions;
  friend bool operator==(const topology_selector_term&, const topology_selector_term&) = default;
};

struct storage_class {
  static constexpr api_resource resource{"storage.k8s.io", "v1", "StorageClass", "storageclasses",
                                         false};
  object_meta metadata;
  std::string provisioner;
  string_map parameters;
  std::string reclaim_policy;
  std::string volume_binding_mode;  // Immediate, WaitForFirstConsumer
  std::vector<topology_selector_term> allowed_topologies;
  friend bool operator==(const storage_class&, const storage_class&) = default;
};

struct volume_attachment {
  static constexpr api_resource resource{"storage.k8s.io", "v1", "VolumeAttachment",
                                         "volumeattachments", false};
  object_meta metadata;
  std::string attacher;                // spec.attacher
  std::string node_name;               // spec.nodeName
  std::string persistent_volume_name;  // spec.source.persistentVolumeName
  bool attached = false;               // status.attached
  friend bool operator==(const volume_attachment&, const volume_attachment&) = default;
};

}  // namespace kp::kube
