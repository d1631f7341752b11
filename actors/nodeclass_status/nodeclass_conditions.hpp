#pragma once
// The conditions of a ProxmoxNodeClass as a pure function of what the controller knows: the
// snapshot (templates), the regions' inventories (which hosts have which template VMs) and the
// template/values Secrets the node class names. Reasons and messages say what a person can fix.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "actors/condition_reasons.hpp"
#include "actors/nodeclaim/template_secret_access.hpp"
#include "protocol/cluster_snapshot.hpp"
#include "protocol/region_messages.hpp"

namespace kp::actors::nodeclass_status {

// A Secret the node class names, as fetched: the object, or the error that came back.
struct fetched_secret {
  std::optional<kube::secret> secret;
  std::string error_code;  // "not_found", ...
  std::string error_message;
};

// "ns/name" -> fetched Secret.
using secret_map = std::map<std::string, fetched_secret>;

struct nodeclass_verdict {
  condition_update template_ready;  // InstanceTemplateReady
  condition_update metadata_ready;  // InstanceMetadataOptionsReady
  condition_update ready;           // Ready
};

// The Secrets ("ns/name") a node class needs read and may be read (inside the scope's
// namespaces); the scope's system namespace fills an empty namespace.
std::vector<std::string> secrets_needed(const kube::proxmox_node_class& nc,
                                        const nodeclaim::template_secret_scope& scope);

nodeclass_verdict evaluate_node_class(const kube::proxmox_node_class& nc,
                                      const protocol::cluster_snapshot& snapshot,
                                      const std::vector<protocol::region_inventory>& inventories,
                                      const secret_map& secrets,
                                      const nodeclaim::template_secret_scope& scope);

}  // namespace kp::actors::nodeclass_status
