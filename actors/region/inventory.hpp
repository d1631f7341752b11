#pragma once
// Turning what Proxmox reports into placement's view, as pure functions: a VM config becomes
// the allocation it holds on its host (so pinning survives a controller restart), and a few
// config fields the launch needs. Host topology comes from core/topology (resolve_host_topology).
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

// `meta: creation-qemu=...,ctime=<unix>`: the creation time, 0 when absent.
std::int64_t creation_time(const proxmox::vm_config& config);

// The boot disk the Go provider resizes: the first of virtio0, scsi0, sata0, ide0 present.
std::optional<std::string> boot_disk(const proxmox::vm_config& config);
// A drive's `size=` in GiB (10G, 512M, 1T), 0 when unknown.
std::uint64_t drive_size_gib(const proxmox::drive& d);

}  // namespace kp::actors::region
