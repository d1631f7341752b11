#pragma once
// A pod as the scheduler sees it: identity, requests, constraints and ownership.
// protocol/kube translates API objects into this; the scheduler never sees JSON.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/compact_optional.hpp"
#include "core/model/label_selector.hpp"
#include "core/model/node_selector.hpp"
#include "core/model/pod_affinity.hpp"
#include "core/model/resource_list.hpp"
#include "core/model/shared_box.hpp"
#include "core/model/shared_map.hpp"
#include "core/model/shared_vector.hpp"
#include "core/model/taint.hpp"
#include "core/model/topology_spread.hpp"

namespace kp::model {

struct host_port {
  std::int32_t port = 0;
  std::string protocol = "TCP";  // TCP, UDP or SCTP
  std::string host_ip;           // empty or 0.0.0.0 overlaps every address
  friend bool operator==(const host_port&, const host_port&) = default;
};

struct container {
  std::string name;
  resource_list requests;
  resource_list limits;
  std::vector<host_port> host_ports;
  bool restartable = false;  // an init container with restartPolicy Always (a sidecar)
  friend bool operator==(const container&, const container&) = default;
};

struct pod_volume {
  std::string name;
  std::string claim_name;  // a PersistentVolumeClaim, or empty for other volume kinds
  std::string csi_driver;  // the driver counted against CSINode limits, when known
  // Zones the volume can be used from (bound PV node affinity / StorageClass topology);
  // empty means anywhere.
  std::vector<std::string> zones;
  friend bool operator==(const pod_volume&, const pod_volume&) = default;
};

struct owner_reference {
  std::string kind;  // "DaemonSet", "ReplicaSet", "Node" (mirror pod), ...
  std::string name;
  std::string uid;
  bool controller = false;
  friend bool operator==(const owner_reference&, const owner_reference&) = default;
};

// 100,000 are held at once (as shared_pod, each with its 16-byte control block): 368 bytes keep
// the pair in jemalloc's 384-byte size class (test/core/model/pod_test.cpp checks the size).
struct pod {
  std::string name;
  std::string namespace_;
  std::string uid;
  shared_label_map labels;
  shared_label_map annotations;
  // The parts a pod takes from its template are shared between pods made from equal API parts
  // (protocol/kube/pod_part_models.hpp): a cluster of 100,000 pods holds each distinct one once.
  shared_vector<container> containers;
  shared_vector<container> init_containers;
  // A RuntimeClass's pod overhead: set on few pods, so one pointer while empty (shared_box.hpp).
  shared_box<resource_list> overhead;
  shared_label_map node_selector;
  node_affinity affinity;
  pod_affinity_rules pod_affinity;
  pod_affinity_rules pod_anti_affinity;
  shared_vector<toleration> tolerations;
  shared_vector<topology_spread_constraint> topology_spread;
  shared_vector<pod_volume> volumes;
  shared_vector<owner_reference> owners;
  std::int32_t priority = 0;
  // Beside `priority` rather than with the state below: together they fill one 8-byte slot.
  bool terminating = false;    // deletionTimestamp set
  bool unschedulable = false;  // condition PodScheduled=False reason Unschedulable
  // The drain evicts system-*-critical pods last; few pods name a class.
  shared_box<std::string> priority_class_name;
  compact_optional_int64 termination_grace_seconds;  // spec.terminationGracePeriodSeconds
  std::int64_t creation_unix_ms = 0;
  compact_optional_int64 start_unix_ms;     // status.startTime: set once the kubelet took it
  std::string node_name;                    // empty while pending
  std::string nominated_node_name;          // set while preempting
  std::string phase = "Pending";            // Pending, Running, Succeeded, Failed
  compact_optional_int64 deletion_unix_ms;  // deletionTimestamp, when it parses

  friend bool operator==(const pod&, const pod&) = default;
};

// A pod that snapshots and simulations share instead of copying: a large cluster holds
// 100,000 bound pods, and every disruption pass and simulation reads them all.
using shared_pod = std::shared_ptr<const pod>;
inline shared_pod share(pod p) {
  return std::make_shared<const pod>(std::move(p));
}

// Effective requests as Kubernetes computes them: max(sum of containers + all sidecars,
// each init container + the sidecars started before it) + pod overhead. "pods" is not added.
// Sums that do not fit saturate (see resource_list).
resource_list pod_requests(const pod& p);
// As pod_requests, or an "unrepresentable_requests" error naming the resource whose sum does
// not fit in 64-bit milli-units (two containers asking for 8Pi of memory each): such a pod can
// never be placed, and must be refused rather than scheduled on a wrapped-around total.
result<resource_list> checked_pod_requests(const pod& p);
// Host ports of every container and init container.
std::vector<host_port> pod_host_ports(const pod& p);

bool is_daemonset_pod(const pod& p);
bool is_mirror_pod(const pod& p);  // owned by a Node (static pod)
bool is_terminal(const pod& p);    // Succeeded or Failed
// "karpenter.sh/do-not-disrupt": "true" (durations are judged by disruption, not here).
bool has_do_not_disrupt(const pod& p);
// Karpenter's IsProvisionable: unschedulable per kube-scheduler, not bound, not nominated,
// not a DaemonSet or mirror pod.
bool is_provisionable(const pod& p);

}  // namespace kp::model
