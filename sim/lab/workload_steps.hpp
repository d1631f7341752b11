#pragma once
// The pods of scale, daemonset and rollout steps as Kubernetes objects: a ReplicaSet, Deployment,
// StatefulSet (with a PersistentVolumeClaim template "data" when the step gives storage) or
// DaemonSet of pause containers with the step's requests, labelled app=<name> and
// kp-lab/scenario=true; and the writes that create, scale or roll them.
#include <string>

#include "core/result.hpp"
#include "sim/lab/scenario.hpp"

namespace kp::lab {

class lab_world;

// The step's workload as a JSON manifest.
std::string workload_manifest(const scale_step& step);
// The step's pods as a ReplicaSet whatever its kind (tests and the burst benchmark).
std::string replica_set_manifest(const scale_step& step);

// Creates or updates the step's workload; a step without requests or image changes only the
// replica count.
status apply_scale_step(lab_world& world, const scale_step& step);
status scale_replica_set(lab_world& world, const scale_step& step);  // kind ReplicaSet

// Gives the workload's container the step's image and/or requests (a strategic merge patch), so
// it rolls its pods; the workload must exist.
status apply_rollout_step(lab_world& world, const rollout_step& step);

}  // namespace kp::lab
