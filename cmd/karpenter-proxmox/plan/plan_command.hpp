#pragma once
// `karpenter-proxmox [settings] plan -f FILE [--output text|json]`: what the controller would do
// if the pods in FILE existed, without doing any of it. Exit 0 with the report on stdout; 2 on
// bad usage, settings or FILE (one line on stderr naming the file, document and field); 1 when
// Kubernetes cannot be read.
#include <string>
#include <vector>

#include "config/settings.hpp"

namespace kp::plan {

// `args` are the words after "plan"; `settings` are the binary's (flags before "plan" and the
// environment), the ones the controller would run with.
int run_plan_command(const std::vector<std::string>& args, const config::settings& settings);

}  // namespace kp::plan
