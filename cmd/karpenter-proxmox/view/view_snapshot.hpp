#pragma once
// What one frame of `karpenter-proxmox view` shows, as plain data: each Proxmox host with its
// NUMA nodes (placement's view: what is free for new VMs), the VMs of this cluster's nodes on it
// (instance type, price, pinned CPUs, age, phase, pods), the pods waiting for a node and the
// NodeClaims not yet Ready. Built from one live_world by a pure function, so a test can build it
// from a hand-made world.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cmd/karpenter-proxmox/plan/live_world.hpp"
#include "core/instance_types/instance_type.hpp"
#include "core/topology/node_settings.hpp"

namespace kp::view {

struct numa_view {
  int id = 0;
  int cpus = 0;
  int free_cpus = 0;  // neither reserved nor pinned
  std::int64_t memory_bytes = 0;
  std::int64_t free_memory_bytes = 0;
};

struct vm_view {
  std::uint32_t vmid = 0;
  std::string name;
  std::string status;  // running, stopped, ...
  std::string nodeclaim;
  std::string node;  // "" until the Node registered
  std::string instance_type;
  std::optional<double> price;  // per hour, when the instance type is known
  int vcpus = 0;
  std::int64_t memory_bytes = 0;
  std::string pinned_cpus;      // "" when not pinned
  std::vector<int> numa_nodes;  // host NUMA nodes it is bound to
  std::optional<std::int64_t> age_seconds;
  std::string phase;              // the NodeClaim's: Launching ... Ready, Terminating
  std::vector<std::string> pods;  // "namespace/name", running or about to
};

struct host_view {
  std::string region;
  std::string name;
  bool online = false;
  bool topology_known = false;  // false: no figures (not online, or its topology is unknown)
  int cpus = 0;
  int free_cpus = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t free_memory_bytes = 0;
  std::vector<numa_view> numa;
  std::vector<vm_view> vms;  // VMs of this cluster's NodeClaims, by VMID
  int other_vms = 0;         // templates, containers and VMs not of this cluster
};

struct pending_pod_view {
  std::string pod;  // "namespace/name"
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  std::optional<std::int64_t> age_seconds;
  std::string reason;  // PodScheduled=False reason and message, "" before the scheduler saw it
};

struct claim_in_flight {
  std::string name;
  std::string nodepool;
  std::string instance_type;
  std::string phase;  // Launching, Registering, Initializing, Terminating
  std::string host;   // "" until its VM exists
  std::optional<std::int64_t> age_seconds;
};

struct view_snapshot {
  std::string cluster;
  std::int64_t taken_unix_ms = 0;
  std::vector<host_view> hosts;  // by region, then host name
  std::vector<pending_pod_view> pending;
  std::vector<claim_in_flight> in_flight;
  std::vector<std::string> notes;  // regions not read, hosts left out of placement
};

struct view_input {
  const plan::live_world* world = nullptr;
  std::vector<instance_types::instance_type> instance_types;  // as the controller loads them
  const topology::node_settings_file* node_settings = nullptr;
  std::int64_t now_unix_ms = 0;
};

view_snapshot build_view_snapshot(const view_input& in);

}  // namespace kp::view
