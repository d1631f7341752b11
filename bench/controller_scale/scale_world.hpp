#pragma once
// The large cluster of bench-controller-scale as data: the pve-sim topology (hosts, templates and
// one VM with our ownership mark per NodeClaim) and the Kubernetes objects (namespaces, Nodes,
// NodeClaims, bound Running pods) as batches for kube-sim's bulk load (POST /sim/v1/objects).
// Pure: text in, text out; the benchmark drives the processes.
#include <cstdint>
#include <string>
#include <vector>

namespace kp::bench {

struct scale_shape {
  int nodes = 5000;          // Ready nodes in all
  int owned_nodes = 4000;    // of which belong to our NodeClaims (VMs in pve-sim)
  int pods = 100000;         // bound and Running
  int namespaces = 500;      // pods spread evenly
  int hosts = 100;           // pve-sim hosts
  std::string cluster_name;  // CLUSTER_NAME of the controller (the ownership mark)
  std::string region = "pve-sim";
  std::string nodepool = "default";
  std::string nodeclass = "default";
  // Hash annotations the NodePool and the ProxmoxNodeClass carry (stamped by a first controller),
  // copied onto every NodeClaim so that nothing looks drifted or needs re-stamping.
  std::vector<std::pair<std::string, std::string>> nodeclaim_annotations;
  std::string created_at = "2026-01-01T00:00:00Z";  // creationTimestamp-like times in statuses
};

// Every size multiplied by `scale` (at least 1 of each; 4/5 of the nodes stay ours).
scale_shape scaled_shape(double scale);

// Names, so the churn phase can address pods.
std::string namespace_name(int index);
std::string pod_name(int index);
int namespace_of_pod(const scale_shape& shape, int pod_index);

// The pve-sim topology: `base_yaml` (the lab's uniform topology: hosts, templates, the lab's
// API token, zero task durations) plus one stopped VM (16 vCPU / 64 GiB, named after its
// NodeClaim, ownership mark in its description) per owned node.
std::string topology_yaml(const scale_shape& shape, const std::string& base_yaml);

// JSON bodies {"items": [...]} for POST /sim/v1/objects, at most `batch` objects each, in the
// order they must be loaded: namespaces, Nodes, NodeClaims, pods.
std::vector<std::string> namespace_batches(const scale_shape& shape, int batch);
std::vector<std::string> node_batches(const scale_shape& shape, int batch);
std::vector<std::string> nodeclaim_batches(const scale_shape& shape, int batch);
// Pods are generated batch by batch (100,000 pods are ~150 MB of JSON): `first` to
// `first + count`.
std::string pod_batch(const scale_shape& shape, int first, int count);

}  // namespace kp::bench
