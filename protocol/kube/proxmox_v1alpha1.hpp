#pragma once
// karpenter.proxmox.sinextra.dev/v1alpha1: ProxmoxNodeClass, ProxmoxTemplate and
// ProxmoxUnmanagedTemplate, as chart/karpenter-proxmox/crds/ defines them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocol/kube/api_resource.hpp"
#include "protocol/kube/meta_types.hpp"

namespace kp::kube {

struct kubelet_configuration {
  std::string cpu_manager_policy;
  std::optional<bool> cpu_cfs_quota;
  std::string cpu_cfs_quota_period;
  std::string topology_manager_policy;
  std::string topology_manager_scope;
  std::optional<std::int64_t> image_gc_high_threshold_percent;
  std::optional<std::int64_t> image_gc_low_threshold_percent;
  std::string shutdown_grace_period;
  std::vector<std::string> allowed_unsafe_sysctls;
  std::vector<std::string> cluster_dns;
  std::optional<std::int64_t> max_pods;
  std::optional<bool> fail_swap_on;
  friend bool operator==(const kubelet_configuration&, const kubelet_configuration&) = default;
};

struct instance_template_reference {
  std::string kind;  // ProxmoxTemplate or ProxmoxUnmanagedTemplate
  std::string name;
  friend bool operator==(const instance_template_reference&,
                         const instance_template_reference&) = default;
};

struct boot_device {
  std::string size;  // "30G"
  std::string storage;
  friend bool operator==(const boot_device&, const boot_device&) = default;
};

// One additionalDisks entry: a data disk the launch's config write allocates as the next free
// scsiN. Unset options are Proxmox's defaults.
struct additional_disk {
  std::string size;     // "20Gi", as bootDevice.size
  std::string storage;  // "" = the boot disk's storage
  std::string cache;    // none, writethrough, writeback, unsafe, directsync; "" = default
  std::optional<bool> discard;
  std::optional<bool> iothread;
  std::optional<bool> ssd;
  friend bool operator==(const additional_disk&, const additional_disk&) = default;
};

// One pciDevices entry: `count` devices of a Proxmox PCI resource mapping for each VM of the
// class (hostpciN: mapping=<id> in the launch's config write), which the guest's device plugin
// advertises as the extended resource `resourceName`. Scheduling offers the resource only on
// hosts with that many devices of the mapping free.
struct node_class_pci_device {
  std::string mapping;
  std::string resource_name;          // resourceName, e.g. nvidia.com/gpu
  std::optional<std::int64_t> count;  // absent = 1
  std::optional<bool> pcie;
  std::string mdev;  // mediated device type, "" = the whole device
  friend bool operator==(const node_class_pci_device&, const node_class_pci_device&) = default;
};

struct metadata_options {
  std::string type;  // none, cdrom, guestAgent
  std::optional<secret_reference> templates_ref;
  std::optional<secret_reference> values_ref;
  // guestAgent: a Go template run as `bash -c <command>` through the QEMU guest agent once the
  // VM answers (kproximate's kpJoinCommand with kpQemuExecJoin). "" = the built-in kube-join form.
  std::string join_command;
  friend bool operator==(const metadata_options&, const metadata_options&) = default;
};

struct security_group {
  std::string interface;  // net0
  std::string name;
  friend bool operator==(const security_group&, const security_group&) = default;
};

struct proxmox_node_class_spec {
  std::string region;
  // placementStrategy: zoneBalance (Balanced, AvailabilityFirst, Spread, MaxMemory, MaxCPU,
  // RoundRobin, Pack), hosts never chosen, and the room that must stay free after placing.
  std::string zone_balance;
  std::vector<std::string> excluded_zones;
  std::optional<std::int64_t> min_free_cpu;
  std::string min_free_memory;  // a quantity, "" = none
  instance_template_reference instance_template_ref;
  std::optional<kubelet_configuration> kubelet;    // kubeletConfiguration
  boot_device boot;                                // bootDevice
  std::vector<additional_disk> additional_disks;   // additionalDisks
  std::vector<node_class_pci_device> pci_devices;  // pciDevices
  // cloneMode: linked, full; "" = linked where the template's storage can, else full. Only new
  // VMs follow a change, so it is not drift.
  std::string clone_mode;
  std::vector<std::string> tags;
  metadata_options metadata;  // metadataOptions
  std::vector<security_group> security_groups;
  std::string resource_pool;
  // kproximate's kpNodeLabels: values are Go templates with .TargetHost (the Proxmox host),
  // .NodeName and .Region, rendered once the host is chosen and put on the Node.
  std::map<std::string, std::string> node_labels;
  // Public keys for the VM's default user (kproximate's sshKey): in the cloud-init user-data with
  // cdrom, else Proxmox's own `sshkeys` option.
  std::vector<std::string> ssh_keys;
  friend bool operator==(const proxmox_node_class_spec&, const proxmox_node_class_spec&) = default;
};

struct proxmox_node_class_status {
  std::vector<condition> conditions;
  std::string zones;                        // resources.zones (a quantity)
  std::vector<std::string> selected_zones;  // region/zone/templateVMID
  friend bool operator==(const proxmox_node_class_status&,
                         const proxmox_node_class_status&) = default;
};

struct proxmox_node_class {
  static constexpr api_resource resource{"karpenter.proxmox.sinextra.dev", "v1alpha1",
                                         "ProxmoxNodeClass", "proxmoxnodeclasses", false};
  object_meta metadata;
  proxmox_node_class_spec spec;
  proxmox_node_class_status status;
  friend bool operator==(const proxmox_node_class&, const proxmox_node_class&) = default;
};

struct source_image {
  std::string url;
  std::string image_name;
  std::string checksum;
  std::string checksum_type;
  friend bool operator==(const source_image&, const source_image&) = default;
};

struct template_network {
  std::string name;
  std::string bridge;
  std::string model;
  std::optional<std::int64_t> mtu;
  std::optional<std::int64_t> vlan;
  std::optional<bool> firewall;
  std::string address4;
  std::string address6;
  std::string gateway4;
  std::string gateway6;
  std::vector<std::string> dns_servers;
  friend bool operator==(const template_network&, const template_network&) = default;
};

struct template_pci_device {
  std::string mapping;
  std::string mdev;
  std::optional<bool> pcie;
  std::optional<bool> xvga;
  friend bool operator==(const template_pci_device&, const template_pci_device&) = default;
};

struct template_agent {
  bool enabled = false;
  std::string type;
  std::optional<bool> fs_freeze_on_backup;
  std::optional<bool> fs_trim_cloned_disks;
  friend bool operator==(const template_agent&, const template_agent&) = default;
};

struct proxmox_template_spec {
  std::string region;
  std::string description;
  kube::source_image source_image;
  std::vector<std::string> storage_ids;  // storageIDs
  std::string machine;
  std::string bios;
  std::string tpm_version;  // tpm.version; "" = no TPM
  std::optional<template_agent> agent;
  std::string cpu_type;  // cpu.type
  std::vector<std::string> cpu_flags;
  std::string vga_type;
  std::optional<std::int64_t> vga_memory;
  std::vector<template_network> network;
  std::vector<template_pci_device> pci_devices;
  std::vector<std::string> tags;
  std::string resource_pool;
  std::optional<bool> on_boot;
  friend bool operator==(const proxmox_template_spec&, const proxmox_template_spec&) = default;
};

struct proxmox_template_status {
  std::vector<condition> conditions;
  std::string zone_count;          // resources.zones (a quantity)
  std::vector<std::string> zones;  // region/node/vmid
  std::string image_id;
  friend bool operator==(const proxmox_template_status&, const proxmox_template_status&) = default;
};

struct proxmox_template {
  static constexpr api_resource resource{"karpenter.proxmox.sinextra.dev", "v1alpha1",
                                         "ProxmoxTemplate", "proxmoxtemplates", false};
  object_meta metadata;
  proxmox_template_spec spec;
  proxmox_template_status status;
  friend bool operator==(const proxmox_template&, const proxmox_template&) = default;
};

struct proxmox_unmanaged_template_spec {
  std::string region;
  std::string template_name;
  std::vector<std::string> tags;
  friend bool operator==(const proxmox_unmanaged_template_spec&,
                         const proxmox_unmanaged_template_spec&) = default;
};

struct proxmox_unmanaged_template {
  static constexpr api_resource resource{"karpenter.proxmox.sinextra.dev", "v1alpha1",
                                         "ProxmoxUnmanagedTemplate", "proxmoxunmanagedtemplates",
                                         false};
  object_meta metadata;
  proxmox_unmanaged_template_spec spec;
  proxmox_template_status status;
  friend bool operator==(const proxmox_unmanaged_template&,
                         const proxmox_unmanaged_template&) = default;
};

}  // namespace kp::kube
