#pragma once
// The region actor's typed interface (one actor per Proxmox cluster): launch and delete VMs for
// NodeClaims, list the VMs this cluster owns (for the garbage collector) and report the
// inventory (for readiness). Kept apart from messages.hpp so parts merge without conflicts.
// Errors are values inside the replies (code + message), never CAF errors, so callers can tell
// "no capacity" from "template missing" from a Proxmox failure.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "core/result.hpp"

namespace kp::protocol {

using launch_atom = caf::atom_constant<caf::atom("launch")>;
using vm_delete_atom = caf::atom_constant<caf::atom("vmdelete")>;
using list_owned_atom = caf::atom_constant<caf::atom("listowned")>;
using inventory_atom = caf::atom_constant<caf::atom("inventory")>;
using refresh_atom = caf::atom_constant<caf::atom("refresh")>;

// Error codes in replies: "no_capacity" (message: the placement reason per host),
// "template_missing", "proxmox" (message: the Proxmox error code and text), "invalid_request",
// "template_error" (render_iso or render_join failed), "not_found" (sync_vm: no such VM),
// "join_failed" (the guest agent never answered, or the join command failed). The simple IPAM's
// failures at launch are "no_capacity" (subnet exhausted) or "invalid_request".
struct region_error {
  std::string code;
  std::string message;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, region_error& x) {
  return f(caf::meta::type_name("region_error"), x.code, x.message);
}

// One ProxmoxNodeClass securityGroups entry: a rule `type=group, action=<name>, iface=<netN>`.
struct security_group_rule {
  std::string iface = "net0";
  std::string group;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, security_group_rule& x) {
  return f(caf::meta::type_name("security_group_rule"), x.iface, x.group);
}

// One NIC of a new VM as the region configures it, for cloud-init's .Network: netN, the MAC the
// region chose (sent in the config call), the ipconfigN written (the simple IPAM's, else the
// template's, "" when none) and the host bridge's own address and gateway ("" when unknown).
struct vm_nic {
  std::uint32_t index = 0;
  std::string mac;
  std::string bridge;
  std::string ipconfig;
  std::string bridge_cidr;
  std::string bridge_gateway;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, vm_nic& x) {
  return f(caf::meta::type_name("vm_nic"), x.index, x.mac, x.bridge, x.ipconfig, x.bridge_cidr,
           x.bridge_gateway);
}

struct launch_request {
  std::string nodeclaim;  // VM name and the mark's nodeclaim=
  std::string nodepool;
  std::string cluster_name;  // the mark's cluster=
  std::string instance_type;
  int vcpus = 1;
  std::uint64_t memory_mib = 1024;
  std::uint64_t disk_gib = 0;      // 0: keep the template's disk
  std::vector<std::string> zones;  // allowed hosts; empty = any
  std::vector<std::string> excluded_zones;
  std::string template_name;
  std::string strategy = "Balanced";  // placement::parse_strategy spelling
  int min_free_cpu = 0;
  std::uint64_t min_free_memory_mib = 0;
  bool static_cpu_policy = false;  // NODE_POLICY=static: pin CPUs and bind NUMA nodes
  std::vector<std::string> tags;   // "karpenter" is always added
  std::string iso;                 // NoCloud ISO bytes; empty = no CD-ROM (or render_iso)
  // Builds the NoCloud ISO once the VM's region, host and VMID are known (cloud-init names
  // them: providerID, hostname). Called inside the region actor after the clone, before the
  // upload; an error fails the launch with code "template_error" and the clone is removed.
  // Pure (it captures only values). Local messages only: inspect() does not list it.
  std::function<kp::result<std::string>(const std::string& region, const std::string& zone,
                                        std::uint32_t vmid)>
      render_iso;
  // Firewall: with groups, per-VM options (enable) and one group rule each, after the config
  // call (one request for the options, one per group). Empty: no firewall calls.
  std::vector<security_group_rule> security_groups;
  std::string resource_pool;  // the clone's `pool`; "" = none
  // Like render_iso, also given the VM's NICs (MACs, addresses); used instead of render_iso
  // when set. Local messages only, like render_iso.
  std::function<kp::result<std::string>(const std::string& region, const std::string& zone,
                                        std::uint32_t vmid, const std::vector<vm_nic>& nics)>
      render_iso_network;
  // Join through the QEMU guest agent (kproximate's kpQemuExecJoin): when set, after the start
  // the region polls agent/ping until the guest answers (PROXMOX_START_TIMEOUT, the task poll
  // intervals), renders the command for the chosen host and VMID and runs it with agent/exec as
  // `bash -c <command>`, waiting for exec-status to report exit code 0. Any failure fails the
  // launch with code "join_failed" and the VM is removed. Render errors: "template_error". The
  // command holds the bootstrap token: it is never logged nor put in an error. Local messages
  // only, like render_iso.
  std::function<kp::result<std::string>(const std::string& region, const std::string& zone,
                                        std::uint32_t vmid)>
      render_join;
  // SSH public keys for Proxmox's cloud-init `sshkeys` option in the config call (one per
  // line, URL-encoded as Proxmox stores it). Empty: the template's stay.
  std::vector<std::string> ssh_keys;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, launch_request& x) {
  return f(caf::meta::type_name("launch_request"), x.nodeclaim, x.nodepool, x.cluster_name,
           x.instance_type, x.vcpus, x.memory_mib, x.disk_gib, x.zones, x.excluded_zones,
           x.template_name, x.strategy, x.min_free_cpu, x.min_free_memory_mib, x.static_cpu_policy,
           x.tags, x.iso, x.security_groups, x.resource_pool, x.ssh_keys);
}

struct launch_reply {
  bool ok = false;
  region_error error;
  std::string region;
  std::string zone;  // the Proxmox host
  std::uint32_t vmid = 0;
  std::string provider_id;  // proxmox://<region>/<vmid>
  bool adopted = false;     // the VM existed already (same NodeClaim, our mark)
  std::string affinity;     // host CPUs under the static policy ("" otherwise)
  std::string ipconfig0;    // the VM's ipconfig0 (the simple IPAM's "ip=10.0.0.7/24,gw=..."), or ""
  // Guest agent requests of a render_join launch (ping, exec, exec-status), counted apart from
  // the creation calls; 0 without a join command.
  std::uint32_t agent_requests = 0;
  bool joined_by_agent = false;  // the join command ran and exited 0
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, launch_reply& x) {
  return f(caf::meta::type_name("launch_reply"), x.ok, x.error, x.region, x.zone, x.vmid,
           x.provider_id, x.adopted, x.affinity, x.ipconfig0, x.agent_requests, x.joined_by_agent);
}

// Either vmid (non-zero) or nodeclaim names the VM.
struct delete_request {
  std::uint32_t vmid = 0;
  std::string nodeclaim;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, delete_request& x) {
  return f(caf::meta::type_name("delete_request"), x.vmid, x.nodeclaim);
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

// A VM the garbage collector may consider. `collectable` is false for VMs made by the Go
// provider (no mark, description "Karpenter managed instance..."): adopt, never collect.
struct owned_vm {
  std::string nodeclaim;
  std::string nodepool;
  std::uint32_t vmid = 0;
  std::string zone;
  std::string provider_id;
  std::string status;             // running, stopped, unknown
  std::int64_t created_unix = 0;  // from meta ctime; 0 when unknown
  bool collectable = true;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, owned_vm& x) {
  return f(caf::meta::type_name("owned_vm"), x.nodeclaim, x.nodepool, x.vmid, x.zone, x.provider_id,
           x.status, x.created_unix, x.collectable);
}

// Free capacity of one host as placement sees it (reservations of launches in flight included):
// the provisioner turns these into instance-type offerings per zone.
struct host_capacity {
  std::string host;
  bool online = false;
  std::int64_t free_cpus = 0;
  std::int64_t free_memory_bytes = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, host_capacity& x) {
  return f(caf::meta::type_name("host_capacity"), x.host, x.online, x.free_cpus,
           x.free_memory_bytes);
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
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, region_inventory& x) {
  return f(caf::meta::type_name("region_inventory"), x.region, x.refreshed, x.detail,
           x.hosts_online, x.hosts_offline, x.templates, x.vms, x.in_flight, x.queued,
           x.peak_in_flight, x.capacity, x.unusable_hosts);
}

// After a node initialised: detach the NoCloud CD-ROM (ide2) of the VM and delete its
// user-data-<vmid>.iso. Counted apart from the creation calls. A VM without our ISO (or gone) is
// `ok` with `nothing_to_do`. Its own interface, so fakes of region_actor need not handle it;
// send it through caf::actor_cast<region_iso_actor>(region) (the region actor answers it).
using release_iso_atom = caf::atom_constant<caf::atom("releaseiso")>;

struct release_iso_request {
  std::uint32_t vmid = 0;
  std::string nodeclaim;  // for logs and when vmid is 0
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

using region_iso_actor = caf::typed_actor<
    caf::replies_to<release_iso_atom, release_iso_request>::with<release_iso_reply>>;

// In-place update of a running VM when its node class changes (kpp.md 4.5): tags, firewall
// group rules and pool membership are compared with the VM's current state and only the
// differences are written. Tags: "karpenter" is always kept, and so is "go-proxmox+cloud-init"
// when present. Firewall: group rules are matched by (iface, group); extras are deleted,
// missing ones added, options enabled when groups are wanted (other rule types are left alone).
// Pool: resource_pool "" takes the VM out of its pool. Answered by the region actor through
// caf::actor_cast<region_sync_actor>(region).
using sync_vm_atom = caf::atom_constant<caf::atom("syncvm")>;

struct sync_vm_request {
  std::uint32_t vmid = 0;
  std::string nodeclaim;  // for logs and when vmid is 0
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

using region_sync_actor =
    caf::typed_actor<caf::replies_to<sync_vm_atom, sync_vm_request>::with<sync_vm_reply>>;

// One per Proxmox cluster. refresh_atom re-reads the inventory now (it also runs on a timer and
// after each create/delete).
using region_actor =
    caf::typed_actor<caf::replies_to<launch_atom, launch_request>::with<launch_reply>,
                     caf::replies_to<vm_delete_atom, delete_request>::with<delete_reply>,
                     caf::replies_to<list_owned_atom>::with<std::vector<owned_vm>>,
                     caf::replies_to<inventory_atom>::with<region_inventory>,
                     caf::reacts_to<refresh_atom>>;

}  // namespace kp::protocol
