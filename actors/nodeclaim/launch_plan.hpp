#pragma once
// The pure half of a NodeClaim's launch: which node class and template it names, which region,
// which instance type (the cheapest compatible one), which hosts, the labels the claim gets and
// the cloud-init inputs the ISO is rendered from. No I/O: the actor fetches, this decides.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cloudinit/vm_render.hpp"
#include "core/instance_types/instance_type.hpp"
#include "core/instance_types/right_sized.hpp"
#include "core/result.hpp"
#include "protocol/cluster_snapshot.hpp"
#include "protocol/provider_id.hpp"
#include "protocol/region_messages.hpp"

namespace kp::actors::nodeclaim {

inline constexpr const char* provider_group = "karpenter.proxmox.sinextra.dev";
inline constexpr const char* termination_finalizer = "karpenter.sh/termination";
inline constexpr const char* unregistered_taint_key = "karpenter.sh/unregistered";
inline constexpr const char* instance_family_label =
    "karpenter.proxmox.sinextra.dev/instance-family";
inline constexpr const char* node_class_label = "karpenter.proxmox.sinextra.dev/proxmoxnodeclass";
inline constexpr const char* nodepool_label = "karpenter.sh/nodepool";
inline constexpr const char* zone_label = "topology.kubernetes.io/zone";
inline constexpr const char* region_label = "topology.kubernetes.io/region";
inline constexpr const char* instance_type_label = "node.kubernetes.io/instance-type";
inline constexpr const char* capacity_type_label = "karpenter.sh/capacity-type";

// A NodeClaim this provider serves (nodeClassRef group karpenter.proxmox.sinextra.dev).
bool is_ours(const kube::node_claim& claim);

struct template_choice {
  const kube::proxmox_node_class* node_class = nullptr;
  std::string template_name;  // the Proxmox template VM name
  std::string image_id;       // what image drift compares: the template's status.imageID
  std::string region;         // from the node class or the template; "" = any
};

// spec.nodeClassRef -> ProxmoxNodeClass -> instanceTemplateRef -> template name. Errors:
// "node_class_missing", "template_missing" (messages name the objects).
result<template_choice> resolve_template(const protocol::cluster_snapshot& snapshot,
                                         const kube::node_claim& claim);

// The claim's topology.kubernetes.io/region requirement (first value that is a known region),
// else the node class's/template's region when known, else the first region. Error
// "region_missing" when none fits.
result<std::string> pick_region(const kube::node_claim& claim, const template_choice& choice,
                                const std::vector<std::string>& regions);

// The cheapest instance type whose labels satisfy the claim's requirements and whose
// allocatable, with the node class's PCI device resources `devices` added, holds the claim's
// requests. Right-sized (f1) names the claim lists are built from their names with
// `memory_overhead_percent`. Error "no_capacity" saying why.
result<instance_types::instance_type> cheapest_instance_type(
    const std::vector<instance_types::instance_type>& types, const kube::node_claim& claim,
    const std::string& region, double memory_overhead_percent = 0,
    const model::resource_list& devices = {});

// Hosts the claim allows (zone requirement In) and excludes (NotIn, plus the node class's).
struct zone_limits {
  std::vector<std::string> allowed;  // empty: any
  std::vector<std::string> excluded;
};
zone_limits zones_for(const kube::node_claim& claim, const kube::proxmox_node_class& node_class);

// The labels a launched claim (and its Node) carries.
std::map<std::string, std::string> launch_labels(const kube::node_claim& claim,
                                                 const instance_types::instance_type& type,
                                                 const std::string& region, const std::string& zone,
                                                 const std::string& node_class);

kube::resource_list to_kube(const model::resource_list& resources);

// Everything the NoCloud ISO is rendered from except what only the region knows (host, VMID,
// NICs): the claim's hostname, instance type, resources, tags, node class, CA, endpoint, version,
// token, labels (zone and region follow the placement), and the kubelet configuration (the
// type's reserved resources and maxPods, the node class's kubelet settings, the claim's taints
// and startup taints to register with). The actor adds the template Secrets and values; the
// region renders it (cloudinit::render_nocloud_iso).
cloudinit::nocloud_plan make_iso_plan(const kube::node_claim& claim,
                                      const kube::proxmox_node_class& node_class,
                                      const instance_types::instance_type& type,
                                      std::string bootstrap_token, std::string endpoint,
                                      std::string ca_pem, std::string kubernetes_version);

// The node class's part of a launch request: placement strategy (zoneBalance), excluded zones,
// minFreeCPU/minFreeMemory, the boot disk size (bootDevice.size, "30G"/"30Gi" = 30 GiB, T/Ti =
// 1024 GiB, as Proxmox sizes disks), the additionalDisks (sized the same way; storage defaults
// to bootDevice.storage, else the region takes the template's disk's), cloneMode (linked, full or
// none), the pciDevices (kube::pci_device_needs: hostpciN entries of the config write, on a host
// with the devices free), tags, securityGroups (interface defaults to net0) and resourcePool,
// sshKeys (for Proxmox's `sshkeys` unless the type is cdrom) and the checks of
// validate_kproximate_fields. The claim's own zone limits (zones_for) are not touched. Errors
// ("invalid_node_class") name the field and the value; the request is then unchanged.
status apply_node_class(protocol::launch_request& request,
                        const kube::proxmox_node_class& node_class);

// The in-place part of a node class (tags, securityGroups, resourcePool) for the region's
// sync_vm_atom, when the node class changed under a running VM (kpp.md 4.5).
protocol::sync_vm_request sync_request_for(std::uint32_t vmid, const std::string& nodeclaim,
                                           const kube::proxmox_node_class& node_class);

// providerIDs are parsed by protocol/provider_id.hpp (one parser for every actor).
using protocol::parse_provider_id;

}  // namespace kp::actors::nodeclaim
