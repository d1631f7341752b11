#pragma once
// The pods a what-if adds, read from a multi-document YAML (or JSON) file: Pods as written, and
// Deployments, ReplicaSets and StatefulSets expanded into `replicas` pods from their template.
// Each pod is made pending and marked Unschedulable, as kube-scheduler leaves a pod no node
// holds, so the provisioner's own rule (is_provisionable) picks it up. Errors name the file, the
// document (1-based) and the field: "pods.yaml: document 2 (Deployment web): spec.template...".
#include <string>
#include <vector>

#include "core/result.hpp"
#include "protocol/kube/core_v1.hpp"

namespace kp::plan {

// UIDs of added pods start with this, so a report can tell them from the cluster's pods.
inline constexpr const char* added_pod_uid_prefix = "what-if-";

// `text` is the file's content; `file` names it in errors.
result<std::vector<kube::pod>> parse_workloads(const std::string& text, const std::string& file);

// Reads and parses `path` ("unreadable" when it cannot be read).
result<std::vector<kube::pod>> read_workload_file(const std::string& path);

}  // namespace kp::plan
