#pragma once
// kproximate's operating model on a ProxmoxNodeClass: the join command run through the QEMU
// guest agent (metadataOptions.type guestAgent, metadataOptions.joinCommand), node labels
// templated with the target host (nodeLabels) and SSH keys (sshKeys). This side checks the
// fields and fills the plain join plan; the region renders it for the VM's host and VMID
// (core/cloudinit/join_command.hpp) and runs it.
#include <map>
#include <string>
#include <vector>

#include "core/cloudinit/join_command.hpp"
#include "core/result.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/karpenter_v1.hpp"
#include "protocol/kube/proxmox_v1alpha1.hpp"

namespace kp::actors::nodeclaim {

// Checks the kproximate fields of a node class: metadataOptions.type (none, cdrom, guestAgent),
// joinCommand (parses; only with guestAgent), nodeLabels (valid keys, values parse and render to
// valid label values for a sample host), sshKeys (one public key each; no comma with cdrom, as
// the built-in user-data splits SSHAuthorizedKeys on commas). Error "invalid_node_class" naming
// the field, e.g. `nodeLabels["kp-host"]` or `sshKeys[1]`.
status validate_kproximate_fields(const kube::proxmox_node_class& node_class);

// Everything the join command is rendered from except what only the region knows: the command
// template (joinCommand or cloudinit::default_join_command), the node's labels (the claim's and
// the launch labels but zone and region), taints (claim + startup), maxPods, values and the
// nodeLabels templates.
cloudinit::join_plan make_join_plan(const kube::node_claim& claim,
                                    const kube::proxmox_node_class& node_class,
                                    std::string instance_type, std::string instance_family,
                                    std::string bootstrap_token, std::string endpoint,
                                    std::string ca_pem, std::map<std::string, std::string> values);

// Adds the node class's sshKeys to cloud-init values as SSHAuthorizedKeys (comma-separated,
// after any keys the valuesRef Secret already gives), for the cdrom type.
void add_ssh_keys_to_values(std::map<std::string, std::string>& values,
                            const std::vector<std::string>& ssh_keys);

// The rendered nodeLabels a registered Node lacks (missing or with another value), TargetHost
// being the claim's zone label. Nothing when the class has none or they do not render.
std::map<std::string, std::string> node_labels_to_apply(const kube::node& node,
                                                        const kube::node_claim& claim,
                                                        const kube::proxmox_node_class& node_class);

}  // namespace kp::actors::nodeclaim
