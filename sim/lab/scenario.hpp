#pragma once
// A lab scenario: a name, controller settings, and steps played in order (YAML):
//   name: burst
//   settings: {batch-idle-duration: 300ms}      # optional controller flags
//   steps:
//     - apply: |                                 # a manifest (YAML, several documents)
//         apiVersion: v1 ...
//     - scale: {name: small, replicas: 10, cpu: 250m, memory: 256Mi}   # a ReplicaSet of pods
//     - scale: {name: web, kind: Deployment, replicas: 10, cpu: 250m, memory: 256Mi}
//     - scale: {name: db, kind: StatefulSet, replicas: 3, cpu: 500m, memory: 1Gi, storage: 1Gi}
//     - daemonset: {name: node-agent, cpu: 100m, memory: 128Mi, tolerate_all: true}  # one per node
//     - rollout: {name: web, image: registry.k8s.io/pause:3.9}  # new template (image/cpu/memory)
//     - delete: {kind: NodeClaim, name: default-abcde}  # or {kind: NodeClaim, all: true}
//     - fault: {errors: [...]}                   # pve-sim's /sim/v1/faults plan; `fault: clear`
//     - expect: {pods_running: 30, pods_pending: 0, vms: ">=1", within: 40s, optional: false}
// scale and daemonset steps also take namespace, image and node_selector. expect conditions (all
// must hold at once): see expect_metrics(); a value is a number (equal) or a comparison string
// (">=3", "<5", "!=0").
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace kp::lab {

// The pods of a workload: a scale step (ReplicaSet, Deployment or StatefulSet of `replicas`
// pods) or a daemonset step (kind DaemonSet, one pod per node).
struct scale_step {
  std::string name;
  std::string ns = "default";
  std::string kind = "ReplicaSet";  // ReplicaSet, Deployment, StatefulSet, DaemonSet
  int replicas = 0;
  // Requests of each pod; both empty (and no image): only the replica count changes (a new set
  // gets default_cpu / default_memory).
  std::string cpu;
  std::string memory;
  std::string image;    // empty: default_image
  std::string storage;  // StatefulSet: each pod gets a PersistentVolumeClaim "data" this large
  bool tolerate_all = false;  // DaemonSet: tolerate every taint, as node agents (CNI, proxies) do
  static constexpr const char* default_cpu = "100m";
  static constexpr const char* default_memory = "128Mi";
  static constexpr const char* default_image = "registry.k8s.io/pause:3.10";
  std::map<std::string, std::string> node_selector;
};

// A new pod template for an existing Deployment, StatefulSet or DaemonSet: its container gets
// this image and/or these requests, and the workload rolls its pods.
struct rollout_step {
  std::string name;
  std::string ns = "default";
  std::string kind = "Deployment";
  std::string image;
  std::string cpu;
  std::string memory;
};

struct delete_step {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string ns;
  bool all = false;  // every object of the kind (in ns when namespaced)
};

struct comparison {
  std::string op = "==";  // == != >= <= > <
  long value = 0;
  bool holds(long actual) const;
  std::string text() const;
};

struct expect_step {
  std::map<std::string, comparison> conditions;  // metric -> comparison
  std::chrono::milliseconds within{std::chrono::seconds(30)};
  bool optional = false;  // a miss is reported, not failed
};

struct scenario_step {
  enum class kind { apply, scale, rollout, remove, fault, expect } type = kind::apply;
  std::string label;     // "step 3 (expect)" for messages
  std::string manifest;  // apply
  std::string faults;    // fault (YAML text; empty clears)
  scale_step scale;      // scale and daemonset steps
  rollout_step rollout;
  delete_step remove;
  expect_step expect;
};

struct scenario {
  std::string name;
  std::map<std::string, std::string> settings;
  std::vector<scenario_step> steps;
};

// Parses a scenario; errors name the step and field.
result<scenario> parse_scenario(const std::string& yaml_text);

// The metrics an expect step may name (world_observation::metric).
const std::vector<std::string>& expect_metrics();
// The kinds a scale step may make.
const std::vector<std::string>& scale_kinds();

// The scenario played by `karpenter-proxmox lab` without --scenario.
const std::string& default_scenario_yaml();

}  // namespace kp::lab
