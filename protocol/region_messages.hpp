#pragma once
// The region actor's whole interface (one actor per Proxmox cluster, the only door to Proxmox):
// launch and delete VMs for NodeClaims, list what this cluster owns, report the inventory,
// release a VM's cloud-init ISO, sync a VM with its node class, learn the VMIDs NodeClaims name,
// and the template VM work (region_template_messages.hpp). Every message is plain data.
//
// Errors are values inside the replies (code + message), never CAF errors, so callers can tell
// "no capacity" from "template missing" from a Proxmox failure. Codes:
// - "no_capacity" (message: the placement reason per host; also the simple IPAM's exhausted
//   subnet), "template_missing", "invalid_request", "template_error" (the ISO or join command
//   did not render), "join_failed" (the guest agent never answered, or the join command failed);
// - "proxmox" (message: the Proxmox error code and text);
// - "foreign_vm": the VMID holds a VM whose ownership mark does not name this cluster and the
//   NodeClaim (or template) of the request. Nothing was done to it. The caller treats its own VM
//   as gone and never touches that one; the caller owning the NodeClaim emits a Warning Event.
// - "unknown": the VM's ownership could not be read (config read failed, host offline). Nothing
//   was done; try again later. Never a reason to think the VM is gone.
// - "not_found" (sync_vm: no such VM), "not_ready" (the VMIDs NodeClaims name are not known
//   yet: nothing is allocated before they are). No inventory yet is a "proxmox" error.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/optional.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "protocol/cloudinit_inspect.hpp"
#include "protocol/launch_step_times.hpp"
#include "protocol/region_error.hpp"
#include "protocol/region_template_messages.hpp"

namespace kp::protocol {

using launch_atom = caf::atom_constant<caf::atom("launch")>;
using vm_delete_atom = caf::atom_constant<caf::atom("vmdelete")>;
using list_owned_atom = caf::atom_constant<caf::atom("listowned")>;
using inventory_atom = caf::atom_constant<caf::atom("inventory")>;
using refresh_atom = caf::atom_constant<caf::atom("refresh")>;
using release_iso_atom = caf::atom_constant<caf::atom("releaseiso")>;
using sync_vm_atom = caf::atom_constant<caf::atom("syncvm")>;

// One ProxmoxNodeClass securityGroups entry: a rule `type=group, action=<name>, iface=<netN>`.
struct security_group_rule {
  std::string iface = "net0";
  std::string group;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, security_group_rule& x) {
  return f(caf::meta::type_name("security_group_rule"), x.iface, x.group);
}

// One ProxmoxNodeClass additionalDisks entry, sized and defaulted: the launch's config write
// allocates it as the next free scsiN (`<storage>:<size_gib>,cache=..,discard=on,...`).
struct data_disk {
  std::uint64_t size_gib = 0;
  std::string storage;  // "" = the storage of the template's boot disk
  std::string cache;    // "" = Proxmox's default
  bool discard = false;
  bool iothread = false;
  bool ssd = false;
  friend bool operator==(const data_disk&, const data_disk&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, data_disk& x) {
  return f(caf::meta::type_name("data_disk"), x.size_gib, x.storage, x.cache, x.discard, x.iothread,
           x.ssd);
}

// One ProxmoxNodeClass pciDevices entry, checked: the launch's config write gives the VM
// `count` entries `hostpciN: mapping=<mapping>[,pcie=1][,mdev=<mdev>]`, on a host with that many
// devices of the mapping free.
struct pci_device {
  std::string mapping;
  std::string resource_name;
  int count = 1;
  bool pcie = false;
  std::string mdev;  // "" = the whole device
  friend bool operator==(const pci_device&, const pci_device&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pci_device& x) {
  return f(caf::meta::type_name("pci_device"), x.mapping, x.resource_name, x.count, x.pcie, x.mdev);
}

// --- launch ----------------------------------------------------------------------------------

// Makes (or finds and finishes) the VM of a NodeClaim. The launch is a resumable sequence:
// clone -> ISO upload -> one config write -> disk resize -> firewall -> start. A VM of this
// cluster marked for the NodeClaim is resumed from its first missing step (each step is read
// from Proxmox: CD-ROM attached, cores and memory set, disk size, firewall rules, status), so a
// launch interrupted by a crash or a leader change finishes and never makes a second VM. The
// reply is ok only once the VM runs (and, with agent_join, the join command exited 0).
//
// The region renders the cloud-init (or the join command) itself from the plain plans once it
// knows the host, VMID and NICs, so a resumed launch renders again for the VM that exists.
struct launch_request {
  std::string nodeclaim;  // VM name and the mark's nodeclaim=
  std::string nodepool;   // the mark's nodepool=
  std::string instance_type;
  int vcpus = 1;
  std::uint64_t memory_mib = 1024;
  std::uint64_t disk_gib = 0;           // 0: keep the template's disk
  std::vector<data_disk> data_disks;    // written in the config call, after the template's disks
  std::vector<pci_device> pci_devices;  // hostpciN in the config call; placement finds them free
  // The node class's cloneMode: "full" (full=1), "linked", or "" (linked where the template's
  // disk's storage can hold linked clones, else full).
  std::string clone_mode;
  std::vector<std::string> zones;  // allowed hosts; empty = any
  std::vector<std::string> excluded_zones;
  std::string template_name;
  std::string strategy = "Balanced";  // placement::parse_strategy spelling
  int min_free_cpu = 0;
  std::uint64_t min_free_memory_mib = 0;
  bool static_cpu_policy = false;  // NODE_POLICY=static: pin CPUs and bind NUMA nodes
  std::vector<std::string> tags;   // "karpenter" is always added
  // Firewall: with groups, per-VM options (enable) and one group rule each, after the config
  // call (one request for the options, one per group). Empty: no firewall calls.
  std::vector<security_group_rule> security_groups;
  std::string resource_pool;  // the clone's `pool`; "" = none
  // SSH public keys for Proxmox's cloud-init `sshkeys` option in the config call. Empty: the
  // template's stay.
  std::vector<std::string> ssh_keys;
  // The VMID of the NodeClaim's providerID, 0 when it has none: a VM the Go provider made there
  // (no mark, its description, named like the NodeClaim) is adopted as it is.
  std::uint32_t expected_vmid = 0;
  // The NoCloud ISO on the CD-ROM (metadataOptions type cdrom). None: no CD-ROM.
  caf::optional<cloudinit::nocloud_plan> cloud_init;
  // Join through the QEMU guest agent (kproximate's kpQemuExecJoin): after the start the region
  // pings agent/ping until the guest answers, then runs the rendered command with agent/exec as
  // `bash -c <command>` and polls exec-status until it exits 0. The command holds the bootstrap
  // token: it is never logged nor put in an error.
  caf::optional<cloudinit::join_plan> agent_join;
  // The NodeClaim's creationTimestamp (Unix ms); 0 when unknown. A NodeClaim created before the
  // region actor started may have a clone of an earlier controller still running (a VM with
  // only `lock: clone`, no name, no mark yet): its launch waits for such clones to finish
  // before it places a new VM. One created after the region started never waits.
  std::int64_t created_unix_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, launch_request& x) {
  return f(caf::meta::type_name("launch_request"), x.nodeclaim, x.nodepool, x.instance_type,
           x.vcpus, x.memory_mib, x.disk_gib, x.data_disks, x.clone_mode, x.zones, x.excluded_zones,
           x.template_name, x.strategy, x.min_free_cpu, x.min_free_memory_mib, x.static_cpu_policy,
           x.tags, x.security_groups, x.resource_pool, x.ssh_keys, x.expected_vmid, x.cloud_init,
           x.agent_join, x.created_unix_ms);
}

struct launch_reply {
  bool ok = false;
  region_error error;
  std::string region;
  std::string zone;  // the Proxmox host
  std::uint32_t vmid = 0;
  std::string provider_id;  // proxmox://<region>/<vmid>
  bool adopted = false;  // the VM existed already (ours for this NodeClaim, or the Go provider's)
  // The first step a resumed launch had to do ("upload", "config", "resize", "firewall",
  // "start", "join"); "" for a new VM or one that was complete.
  std::string resumed_at;
  std::string affinity;   // host CPUs under the static policy ("" otherwise)
  std::string ipconfig0;  // the VM's ipconfig0 (the simple IPAM's "ip=10.0.0.7/24,gw=..."), or ""
  // Guest agent requests of an agent_join launch (ping, exec, exec-status), counted apart from
  // the creation calls; 0 without a join command.
  std::uint32_t agent_requests = 0;
  bool joined_by_agent = false;  // the join command ran and exited 0
  launch_step_times steps;       // clone, configure and boot of a VM this launch made
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, launch_reply& x) {
  return f(caf::meta::type_name("launch_reply"), x.ok, x.error, x.region, x.zone, x.vmid,
           x.provider_id, x.adopted, x.resumed_at, x.affinity, x.ipconfig0, x.agent_requests,
           x.joined_by_agent, x.steps);
}

// --- delete ------------------------------------------------------------------------------------

// Stops and destroys the VM of `nodeclaim` (with its disks and its ISO). With a vmid, that VM,
// after re-reading its config: it must carry this cluster's mark naming `nodeclaim` (or be the
// Go provider's VM of that name, unless `collect`), else "foreign_vm". Without a vmid, every VM
// of this cluster marked for `nodeclaim` (a launch whose reply was lost).
struct delete_request {
  std::uint32_t vmid = 0;
  std::string nodeclaim;  // the expected owner: never empty
  bool collect = false;   // the garbage collector's: only VMs with our mark, never adopted ones
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, delete_request& x) {
  return f(caf::meta::type_name("delete_request"), x.vmid, x.nodeclaim, x.collect);
}

struct delete_reply {
  bool ok = false;
  region_error error;
  bool already_gone = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, delete_reply& x) {
  return f(caf::meta::type_name("delete_reply"), x.ok, x.error, x.already_gone);
}

// --- the VMs this cluster owns -----------------------------------------------------------------

// A VM positively known to be ours. `collectable` is false for VMs made by the Go provider (no
// mark, description "Karpenter managed instance..."): adopt, never collect.
struct owned_vm {
  std::string nodeclaim;
  std::string nodepool;
  std::uint32_t vmid = 0;
  std::string zone;
  std::string provider_id;
  std::string status;             // running, stopped
  std::int64_t created_unix = 0;  // from meta ctime; 0 when unknown
  bool collectable = true;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, owned_vm& x) {
  return f(caf::meta::type_name("owned_vm"), x.nodeclaim, x.nodepool, x.vmid, x.zone, x.provider_id,
           x.status, x.created_unix, x.collectable);
}

// A VM whose owner could not be read this time (its config read failed, or its host is offline
// or unknown): it may be ours. Never "gone".
struct unknown_vm {
  std::uint32_t vmid = 0;
  std::string zone;
  std::string provider_id;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, unknown_vm& x) {
  return f(caf::meta::type_name("unknown_vm"), x.vmid, x.zone, x.provider_id, x.reason);
}

// What list_owned_atom answers: only positive knowledge. `fresh` is true when the listing comes
// from a successful /cluster/resources made after the request arrived; otherwise nothing in it
// may be read as "missing". A VMID that is neither in `vms` nor in `unknown` (nor on an unknown
// host) holds no VM of ours.
struct owned_vm_listing {
  std::string region;
  bool fresh = false;
  std::string detail;  // why it is not fresh
  std::vector<owned_vm> vms;
  std::vector<unknown_vm> unknown;
  std::vector<std::string> unknown_hosts;  // offline or unknown: any VM there may be ours
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, owned_vm_listing& x) {
  return f(caf::meta::type_name("owned_vm_listing"), x.region, x.fresh, x.detail, x.vms, x.unknown,
           x.unknown_hosts);
}

// --- inventory -----------------------------------------------------------------------------------

// Free capacity of one host NUMA node as placement sees it: CPUs neither reserved nor pinned,
// and its memory less its share of the host reservation and what VMs hold there.
struct numa_capacity {
  int numa = 0;  // the host's NUMA node id
  std::int64_t free_cpus = 0;
  std::int64_t free_memory_bytes = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, numa_capacity& x) {
  return f(caf::meta::type_name("numa_capacity"), x.numa, x.free_cpus, x.free_memory_bytes);
}

// Free capacity of one host as placement sees it (reservations of launches in flight included):
// the provisioner turns these into instance-type offerings per zone; the fleet gauges export
// them, per host and per NUMA node.
struct host_capacity {
  std::string host;
  bool online = false;
  std::int64_t free_cpus = 0;
  std::int64_t free_memory_bytes = 0;
  std::vector<numa_capacity> numa;
  std::map<std::string, int> free_pci;  // PCI resource mapping -> devices free on this host
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, host_capacity& x) {
  return f(caf::meta::type_name("host_capacity"), x.host, x.online, x.free_cpus,
           x.free_memory_bytes, x.numa, x.free_pci);
}

struct region_inventory {
  std::string region;
  bool refreshed = false;  // at least one refresh succeeded
  std::string detail;      // the last refresh error, "" when fine
  std::vector<std::string> hosts_online;
  std::vector<std::string> hosts_offline;
  std::map<std::string, std::vector<std::string>> templates;  // host -> template names
  std::uint32_t vms = 0;
  std::uint32_t in_flight = 0;
  std::uint32_t queued = 0;
  std::uint32_t peak_in_flight = 0;     // the most operations ever in flight at once
  std::vector<host_capacity> capacity;  // hosts with a known topology
  // Hosts left out of placement and why (a NODE_SETTING_FILE entry that does not fit the host).
  std::map<std::string, std::string> unusable_hosts;
  // PCI resource mappings (/cluster/mapping/pci) -> host -> devices mapped there; empty until
  // read.
  std::map<std::string, std::map<std::string, int>> pci_mappings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, region_inventory& x) {
  return f(caf::meta::type_name("region_inventory"), x.region, x.refreshed, x.detail,
           x.hosts_online, x.hosts_offline, x.templates, x.vms, x.in_flight, x.queued,
           x.peak_in_flight, x.capacity, x.unusable_hosts, x.pci_mappings);
}

// --- after initialization: the cloud-init ISO ------------------------------------------------

// Detach the NoCloud CD-ROM (ide2) of the NodeClaim's VM and delete its ISO, after re-reading
// the VM's config: its mark must name this cluster and `nodeclaim`, and ide2 must hold the ISO
// this cluster made for it. Counted apart from the creation calls. A VM without our ISO is `ok`
// with `nothing_to_do`; a VM that is gone too.
struct release_iso_request {
  std::uint32_t vmid = 0;
  std::string nodeclaim;  // the expected owner: never empty
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, release_iso_request& x) {
  return f(caf::meta::type_name("release_iso_request"), x.vmid, x.nodeclaim);
}

struct release_iso_reply {
  bool ok = false;
  region_error error;
  bool nothing_to_do = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, release_iso_reply& x) {
  return f(caf::meta::type_name("release_iso_reply"), x.ok, x.error, x.nothing_to_do);
}

// --- in-place updates ----------------------------------------------------------------------------

// In-place update of a running VM when its node class changes (kpp.md 4.5): tags, firewall
// group rules and pool membership are compared with the VM's current state and only the
// differences are written, after re-reading its config (the mark must name this cluster and
// `nodeclaim`, or the VM be the Go provider's of that name). Tags: "karpenter" is always kept,
// and so is "go-proxmox+cloud-init" when present. Firewall: group rules are matched by (iface,
// group); extras are deleted, missing ones added, options enabled when groups are wanted (other
// rule types are left alone). Pool: resource_pool "" takes the VM out of its pool.
struct sync_vm_request {
  std::uint32_t vmid = 0;
  std::string nodeclaim;  // the expected owner: never empty
  std::vector<std::string> tags;
  std::vector<security_group_rule> security_groups;
  std::string resource_pool;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sync_vm_request& x) {
  return f(caf::meta::type_name("sync_vm_request"), x.vmid, x.nodeclaim, x.tags, x.security_groups,
           x.resource_pool);
}

struct sync_vm_reply {
  bool ok = false;
  region_error error;
  // What was written: "tags", "firewall_options", "firewall_rules", "pool"; empty = in sync.
  std::vector<std::string> changed;
  std::uint32_t writes = 0;  // Proxmox write requests made
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sync_vm_reply& x) {
  return f(caf::meta::type_name("sync_vm_reply"), x.ok, x.error, x.changed, x.writes);
}

// --- VMIDs that NodeClaims name ------------------------------------------------------------------

// Every VMID of this region named by an existing NodeClaim's providerID (any provider's), sent
// by the NodeClaim fleet whenever the set changes. Such a VMID is never handed out, even when
// its VM vanished, while its NodeClaim exists. The region allocates nothing before the first of
// these arrived; a new sender (a new leader) also makes its next allocation list Proxmox first.
struct claimed_vmids {
  std::vector<std::uint32_t> vmids;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, claimed_vmids& x) {
  return f(caf::meta::type_name("claimed_vmids"), x.vmids);
}

// --- the interface -----------------------------------------------------------------------------

// refresh_atom re-reads the inventory now (it also runs on a timer and after each create or
// delete).
using region_actor = caf::typed_actor<
    caf::replies_to<launch_atom, launch_request>::with<launch_reply>,
    caf::replies_to<vm_delete_atom, delete_request>::with<delete_reply>,
    caf::replies_to<list_owned_atom>::with<owned_vm_listing>,
    caf::replies_to<inventory_atom>::with<region_inventory>, caf::reacts_to<refresh_atom>,
    caf::replies_to<release_iso_atom, release_iso_request>::with<release_iso_reply>,
    caf::replies_to<sync_vm_atom, sync_vm_request>::with<sync_vm_reply>,
    caf::reacts_to<claimed_vmids>,
    caf::replies_to<template_atom, template_observe_request>::with<template_observation>,
    caf::replies_to<template_atom, template_download_request>::with<template_step_reply>,
    caf::replies_to<template_atom, template_create_request>::with<template_step_reply>,
    caf::replies_to<template_atom, template_clone_request>::with<template_step_reply>,
    caf::replies_to<template_atom, template_convert_request>::with<template_step_reply>,
    caf::replies_to<template_atom, template_retire_request>::with<template_step_reply>,
    caf::replies_to<template_atom, template_delete_request>::with<template_step_reply>>;

}  // namespace kp::protocol
