#pragma once
// Which pods the provisioner must find room for (karpenter-core.md 3.2, Karpenter's
// IsProvisionable): kube-scheduler already tried and said Unschedulable, the pod is not bound,
// not finished, not being deleted, not a DaemonSet or static (mirror) pod, and not preempting
// its way onto a live node. Pure: reads the snapshot's pods, shared by pod_watcher and
// provisioner.
#include <string>
#include <vector>

#include "protocol/cluster_snapshot.hpp"

namespace kp::actors::provisioning {

// `snap` answers whether a nominatedNodeName points at a node that still exists.
bool is_provisionable(const model::pod& pod, const protocol::cluster_snapshot& snap);

// Every provisionable pod of the snapshot, in key order ("namespace/name").
std::vector<const protocol::pod_model*> provisionable_pods(const protocol::cluster_snapshot& snap);

}  // namespace kp::actors::provisioning
