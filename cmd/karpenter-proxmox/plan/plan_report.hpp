#pragma once
// The what-if's report for a person (text) and for scripts (JSON, the shape docs/plan.md
// documents; "version" changes when a field changes meaning or goes away).
#include <string>

#include "cmd/karpenter-proxmox/plan/what_if.hpp"

namespace kp::plan {

inline constexpr int report_version = 1;

std::string render_text(const what_if_report& report);
std::string render_json(const what_if_report& report);

}  // namespace kp::plan
