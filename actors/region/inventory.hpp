#pragma once
// Turning what Proxmox reports into placement's view, as pure functions: a VM config becomes
// the allocation it holds on its host (so pinning survives a controller restart), the
// `node-capacity` VM becomes a host topology, and a few config fields the launch needs.
#include <cstdint>
#include <optional>
#include <string>

#include "core/placement/host.hpp"
#include "protocol/proxmox/vm_config.hpp"

namespace kp::actors::region {

// vCPUs (sockets x cores), memory, pinned CPUs from `affinity` or else the description's
// `affinity=` plan, NUMA bindings from numaN.
placement::vm_allocation allocation_from_config(int vmid, const proxmox::vm_config& config,
                                                bool managed);

// The topology the Go provider's host daemon publishes in the `node-capacity` VM: guest vCPU i
// is the i-th CPU of `affinity`, each numaN maps its guest range to a host NUMA node.
// `sockets`/`cores_per_socket` come from the node status. Nothing when the config lacks them.
std::optional<placement::host_topology> topology_from_capacity_vm(const proxmox::vm_config& config,
                                                                  int sockets,
                                                                  int cores_per_socket);

// `meta: creation-qemu=...,ctime=<unix>`: the creation time, 0 when absent.
std::int64_t creation_time(const proxmox::vm_config& config);

// The boot disk the Go provider resizes: the first of virtio0, scsi0, sata0, ide0 present.
std::optional<std::string> boot_disk(const proxmox::vm_config& config);
// A drive's `size=` in GiB (10G, 512M, 1T), 0 when unknown.
std::uint64_t drive_size_gib(const proxmox::drive& d);

}  // namespace kp::actors::region
