#pragma once
// The built-in cloud-init templates (DESIGN.md section 5), used for every document a node
// class's templatesRef does not provide. They are Go templates over the same data as users'
// templates, so there is one rendering path.
//
// user-data is a #cloud-config whose write_files carry what a kubelet with TLS bootstrap reads:
// /var/lib/kubelet/bootstrap-kubeconfig (CLUSTER_ENDPOINT, the cluster CA, the bootstrap token),
// /var/lib/kubelet/config.yaml (KubeletConfiguration with providerID, registerWithTaints,
// reserved resources, eviction thresholds, maxPods), the CA file, and /etc/default/kubelet with
// the node labels. Simulated guests join from exactly these files.
#include <string_view>

namespace kp::cloudinit {

extern const std::string_view default_user_data;
extern const std::string_view default_meta_data;
extern const std::string_view default_network_config;

}  // namespace kp::cloudinit
