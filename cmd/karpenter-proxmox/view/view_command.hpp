#pragma once
// `karpenter-proxmox [settings] view [--once] [--interval SECONDS] [--timeout SECONDS]
// [--color auto|always|never]`: Proxmox hosts x NUMA nodes x node VMs x pods, live and read-only
// (docs/view.md). Exit 0 after --once or an interrupt; 2 on bad usage or settings (one line on
// stderr); 1 when --once cannot read Kubernetes.
#include <string>
#include <vector>

#include "config/settings.hpp"

namespace kp::view {

// `args` are the words after "view"; `settings` are the binary's, the controller's own.
int run_view_command(const std::vector<std::string>& args, const config::settings& settings);

}  // namespace kp::view
