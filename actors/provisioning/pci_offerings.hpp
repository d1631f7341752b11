#pragma once
// A NodePool's share of its node class's pciDevices, as a pure function: every node of the pool
// gets the devices' extended resources (nvidia.com/gpu: 1) on top of its instance type, and the
// pool is offered only on hosts with that many devices of each mapping free, so the scheduler
// puts pods that request the resource only there.
#include <string>
#include <vector>

#include "core/instance_types/instance_type.hpp"
#include "core/model/nodepool.hpp"
#include "protocol/kube/proxmox_v1alpha1.hpp"

namespace kp::actors::provisioning {

// Sets `pool.device_capacity` and, when `hosts` (the regions' reports) are known, a requirement
// `topology.kubernetes.io/zone In [hosts with the devices free]`. Without reports nothing is
// restricted (placement decides at launch). Returns why the pool cannot take new nodes now (an
// invalid pciDevices entry, no host with the devices free: each host and what it lacks), or ""
// when it can.
std::string offer_pci_devices(model::nodepool& pool, const kube::proxmox_node_class& node_class,
                              const std::vector<instance_types::zone_capacity>& hosts);

}  // namespace kp::actors::provisioning
