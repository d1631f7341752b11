#pragma once
// `karpenter-proxmox lab [--scenario FILE] [--work-dir DIR] [--keep] [--print-scenario]`: starts
// the simulators and the controller, plays the scenario with live progress, prints the summary.
// Exit code 0 when every expect passed, 1 otherwise (the failing step is named), 2 on bad usage.
#include <string>
#include <vector>

namespace kp::lab {

// `args` are the words after "lab"; `self` is the controller binary (argv[0] or /proc/self/exe)
// whose directory also holds kube-sim and pve-sim.
int run_lab_command(const std::vector<std::string>& args, const std::string& self);

}  // namespace kp::lab
