#pragma once
// karpenter_pods_state's series, made from one published snapshot's pods and nodes when the
// family is scraped: {name, namespace, node, nodepool, zone, phase, scheduled} = 1 per pod, the
// nodepool and zone read from the labels of the pod's node. The maps are immutable, so the
// scraping thread reads them safely, and nothing is kept per pod in between.
#include <memory>

#include "observability/object_gauges.hpp"
#include "protocol/cluster_snapshot.hpp"

namespace kp::actors::cluster_state {

std::shared_ptr<const obs::object_gauges::source> pod_state_series(
    protocol::shared_pod_models pods, protocol::shared_objects<kube::node> nodes);

}  // namespace kp::actors::cluster_state
