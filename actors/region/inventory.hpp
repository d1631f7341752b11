#pragma once
// Turning what Proxmox reports into placement's view, as pure functions: a VM config becomes
// the allocation it holds on its host (so pinning survives a controller restart), each host's
// topology and what its VMs hold, the hosts a launch may use, and a few config fields the launch
// needs. Host topology comes from core/topology (resolve_host_topology). The region actor and
// the read-only tools (`karpenter-proxmox plan`) build placement's view through these alone.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/boxed_optional.hpp"
#include "core/ownership/vm_mark.hpp"
#include "core/placement/place_vm.hpp"
#include "core/result.hpp"
#include "core/topology/resolve_topology.hpp"
#include "protocol/proxmox/api_types.hpp"
#include "protocol/proxmox/vm_config.hpp"
#include "protocol/region_messages.hpp"

namespace kp::actors::region {

inline constexpr const char* capacity_vm_name = "node-capacity";

// One VM or container as /cluster/resources lists it, with its config once read.
struct vm_record {
  std::uint32_t vmid = 0;
  std::string node;
  std::string name;
  std::string status;  // running, stopped, unknown (its host is offline)
  bool is_template = false;
  bool is_container = false;
  std::string lock;
  std::string pool;
  // Read once per VM, again while it fails. Boxed: every refresh lists each VM into a new record,
  // which then takes the old record's config by pointer.
  boxed_optional<proxmox::vm_config> config;
  std::string config_error;  // why the last read failed; "" when none
  bool synthetic = false;    // config made by us (a launch, a template step), not read
  std::chrono::steady_clock::time_point config_read_at{};  // when `config` was read (not made)
  // When a launch made its synthetic config: a refresh reads the real one only past the
  // region's launched_config_max_age (the ISO release's door read usually comes first).
  // Unset (a template step's): the next refresh reads it.
  std::optional<std::chrono::steady_clock::time_point> launch_recorded_at;
  // The template a launch cloned this VM from, and whether as a linked clone (on that
  // template's base volume): what its synthetic config tells the linked-clone count.
  struct clone_origin {
    std::uint32_t template_vmid = 0;
    bool linked = false;
  };
  std::optional<clone_origin> cloned_from;
  std::uint64_t epoch = 0;  // bumped when we write `config`, so older reads do not overwrite it
};

struct host_record {
  std::string name;
  std::string status;  // online, offline, unknown
  double cpu = 0;
  std::optional<proxmox::node_status> node_status;  // read once
  std::vector<std::string> iso_storages;
  // The storages enabled on this host as /cluster/resources shows them (active: its status is
  // "available"; sizes from its last report): what the template observation needs, unread.
  std::vector<proxmox::storage_info> storages;
  // Bridges (GET /nodes/{node}/network), read once: the simple IPAM's seeds and gateways.
  std::optional<std::vector<proxmox::network_interface>> network;
  // When node_status was last read: both facts are read again once older than the region's
  // host_facts_max_age (and kept meanwhile, so a failed re-read leaves the host usable).
  std::chrono::steady_clock::time_point facts_read_at{};
  bool online() const { return status == "online"; }
};

// Hosts (with their ISO storages) and VMs and containers as one /cluster/resources listing shows
// them, before any detail (host status, VM config) is read.
struct inventory_listing {
  std::map<std::string, host_record> hosts;
  std::map<std::uint32_t, vm_record> vms;
  std::map<std::string, std::string> storage_types;  // storage -> plugin type ("lvmthin")
};
inventory_listing listing_from_resources(const std::vector<proxmox::cluster_resource>& resources);

// The ownership mark in the VM's description, when its config was read and carries one.
std::optional<ownership::ownership_mark> mark_of(const vm_record& vm);

// The host's topology from its status, its topology VM and NODE_SETTING_FILE (in that order of
// priority). An error says why it cannot be resolved (the host is then left out of placement);
// no status read yet is "topology_unknown".
result<topology::resolved_topology> host_topology_of(const std::string& region,
                                                     const host_record& host,
                                                     const std::map<std::uint32_t, vm_record>& vms,
                                                     const topology::node_settings_file* file);

// VMs reserved by launches in flight: VMID -> (host, what it holds).
using reservations = std::map<std::uint32_t, std::pair<std::string, placement::vm_allocation>>;

// Placement's view of one host: its topology with what every VM on it holds. A VM of this
// cluster (its mark names `cluster_name`) counts even when stopped; another's only while it runs;
// a reserved VM counts as its reservation says.
placement::host_state placement_host_of(const host_record& host,
                                        const placement::host_topology& topology,
                                        const std::map<std::uint32_t, vm_record>& vms,
                                        const reservations& reserved,
                                        const std::string& cluster_name);

// Where a launch may go: the hosts holding its template (VMID by host) within its zones, and the
// filter with its exclusions and minimum free CPU and memory. Error "template_missing" naming the
// template when no allowed host has it.
struct launch_hosts {
  std::map<std::string, std::uint32_t> templates;
  placement::host_filter filter;
};
result<launch_hosts> launch_hosts_for(const protocol::launch_request& req,
                                      const std::map<std::uint32_t, vm_record>& vms,
                                      const std::string& region);

// vCPUs (sockets x cores), memory, pinned CPUs from `affinity` or else the description's
// `affinity=` plan, NUMA bindings from numaN.
placement::vm_allocation allocation_from_config(int vmid, const proxmox::vm_config& config,
                                                bool managed);

// What the inventory keeps of a VM config it read: the typed fields, and of the raw text only the
// keys it reads again (`meta` for creation_time, `tags`, `hostpciN` for mapped_pci_devices). A
// template's config and the topology VM's (`vm_name`) are kept whole: launches copy from the one,
// and the other's raw keys describe its host. Every VM's config is held between refreshes, and
// most of its raw text repeats what its typed fields hold. Launches, syncs and ownership checks
// read configs afresh and are not trimmed.
void keep_read_keys(proxmox::vm_config& config, const std::string& vm_name);

// `meta: creation-qemu=...,ctime=<unix>`: the creation time, 0 when absent.
std::int64_t creation_time(const proxmox::vm_config& config);

// The boot disk the Go provider resizes: the first of virtio0, scsi0, sata0, ide0 present.
std::optional<std::string> boot_disk(const proxmox::vm_config& config);
// A drive's `size=` in GiB (10G, 512M, 1T), 0 when unknown.
std::uint64_t drive_size_gib(const proxmox::drive& d);

}  // namespace kp::actors::region
