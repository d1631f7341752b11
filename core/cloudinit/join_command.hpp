#pragma once
// The join command of kproximate's model (metadataOptions type guestAgent): rendered by the region
// for the VM's host and VMID and run through the QEMU guest agent. Node labels templated with the
// target host (nodeLabels) render here too. Pure.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/cloudinit/template_data.hpp"
#include "core/cloudinit/vm_render.hpp"
#include "core/result.hpp"

namespace kp::cloudinit {

// A join command run through the QEMU guest agent (kproximate's kpQemuExecJoin).
struct join_plan {
  std::string node_class;
  std::string command_template;  // metadataOptions.joinCommand, or default_join_command
  std::string node_name;
  std::string endpoint;
  std::string bootstrap_token;  // a credential: lives only in the rendered command
  std::string ca_pem;
  // The node's labels except zone and region (added for the placement) and the rendered
  // nodeLabels (added last).
  std::map<std::string, std::string> labels;
  std::vector<kubelet_taint> taints;                        // claim taints + startup taints
  std::int64_t max_pods = 0;                                // 0: unset
  std::map<std::string, std::string> values;                // valuesRef
  std::map<std::string, std::string> node_label_templates;  // nodeLabels
};

// The join command when metadataOptions.joinCommand is empty: pve-sim's and the examples'
// kube-join form (docs/pve-sim.md), flags left out when they have no value.
extern const char* const default_join_command;

// The command for the VM at `where`. Data: .Kubernetes.Endpoint, .Kubernetes.BootstrapToken,
// .Kubernetes.CA (base64 of the PEM), .Kubernetes.CAPEM, .Kubernetes.Labels ("k=v,...": the
// plan's labels, zone and region, the rendered nodeLabels), .Kubernetes.Taints
// ("k=v:Effect,..."), .Kubernetes.MaxPods ("" when unset), .TargetHost, .NodeName, .Region,
// .VMID, .ProviderID, .Values. Errors "template_error" name the node class and
// metadataOptions.joinCommand (never the token).
result<std::string> render_join_command(const join_plan& plan, const vm_placement& where);

// nodeLabels rendered for a host: values are Go templates over .TargetHost, .NodeName and
// .Region. Errors "invalid_node_class" name the node class and the label and say why (key,
// a label the controller sets, template, or rendered value).
result<std::map<std::string, std::string>> render_node_labels(
    const std::map<std::string, std::string>& templates, const std::string& node_class,
    const std::string& target_host, const std::string& node_name, const std::string& region);

// Label syntax as the API server checks it (apimachinery validation).
bool valid_label_key(const std::string& key);
bool valid_label_value(const std::string& value);

}  // namespace kp::cloudinit
