#pragma once
// kproximate's operating model on a ProxmoxNodeClass, as pure functions: the join command run
// through the QEMU guest agent (metadataOptions.type guestAgent, metadataOptions.joinCommand),
// node labels templated with the target host (nodeLabels) and SSH keys (sshKeys). The region
// runs the command (launch_request::render_join); this renders it once the host is known.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/karpenter_v1.hpp"
#include "protocol/kube/proxmox_v1alpha1.hpp"
#include "protocol/region_messages.hpp"

namespace kp::actors::nodeclaim {

// The join command when metadataOptions.joinCommand is empty: pve-sim's and the examples'
// kube-join form (docs/pve-sim.md), flags left out when they have no value.
extern const char* const default_join_command;

// Checks the kproximate fields of a node class: metadataOptions.type (none, cdrom, guestAgent),
// joinCommand (parses; only with guestAgent), nodeLabels (valid keys, values parse and render to
// valid label values for a sample host), sshKeys (one public key each; no comma with cdrom, as
// the built-in user-data splits SSHAuthorizedKeys on commas). Error "invalid_node_class" naming
// the field, e.g. `nodeLabels["kp-host"]` or `sshKeys[1]`.
status validate_kproximate_fields(const kube::proxmox_node_class& node_class);

// nodeLabels rendered for a host: values are Go templates over .TargetHost, .NodeName and
// .Region. Errors "invalid_node_class" name the label and say why (template or label value).
result<std::map<std::string, std::string>> render_node_labels(
    const kube::proxmox_node_class& node_class, const std::string& target_host,
    const std::string& node_name, const std::string& region);

// Everything the join command is rendered from except what only the region knows.
struct join_plan {
  std::string node_class;
  std::string command_template;  // joinCommand, or default_join_command
  std::string node_name;
  std::string endpoint;
  std::string bootstrap_token;
  std::string ca_pem;
  std::string instance_type;
  std::string instance_family;
  std::map<std::string, std::string> labels;  // the claim's
  std::vector<kube::taint> taints;            // claim taints + startup taints
  std::optional<std::int64_t> max_pods;
  std::map<std::string, std::string> values;       // valuesRef
  std::map<std::string, std::string> node_labels;  // nodeLabels templates
};

join_plan make_join_plan(const kube::node_claim& claim, const kube::proxmox_node_class& node_class,
                         std::string instance_type, std::string instance_family,
                         std::string bootstrap_token, std::string endpoint, std::string ca_pem,
                         std::map<std::string, std::string> values);

// The command for the VM on `zone` (the Proxmox host) with `vmid`. Data: .Kubernetes.Endpoint,
// .Kubernetes.BootstrapToken, .Kubernetes.CA (base64 of the PEM), .Kubernetes.CAPEM,
// .Kubernetes.Labels ("k=v,..." : the claim's labels, the launch labels and the rendered
// nodeLabels), .Kubernetes.Taints ("k=v:Effect,..."), .Kubernetes.MaxPods ("" when unset),
// .TargetHost, .NodeName, .Region, .VMID, .ProviderID, .Values. Errors "template_error" name
// the node class and metadataOptions.joinCommand (never the token).
result<std::string> render_join(const join_plan& plan, const std::string& region,
                                const std::string& zone, std::uint32_t vmid);

// Sets launch_request::render_join to render `plan` once the region knows host and VMID.
void attach_join(protocol::launch_request& request, std::shared_ptr<const join_plan> plan);

// Adds the node class's sshKeys to cloud-init values as SSHAuthorizedKeys (comma-separated,
// after any keys the valuesRef Secret already gives), for the cdrom type.
void add_ssh_keys_to_values(std::map<std::string, std::string>& values,
                            const std::vector<std::string>& ssh_keys);

// The rendered nodeLabels a registered Node lacks (missing or with another value), TargetHost
// being the claim's zone label. Nothing when the class has none or they do not render.
std::map<std::string, std::string> node_labels_to_apply(const kube::node& node,
                                                        const kube::node_claim& claim,
                                                        const kube::proxmox_node_class& node_class);

std::string base64_encode(const std::string& bytes);

}  // namespace kp::actors::nodeclaim
