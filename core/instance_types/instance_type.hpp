#pragma once
// Proxmox instance types: VM shapes (vCPU, memory, disk) with the kubelet overhead Karpenter
// subtracts to get allocatable, and offerings per (region, zone = Proxmox host, capacity type).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/node_selector.hpp"
#include "core/model/resource_list.hpp"
#include "core/result.hpp"

namespace kp::instance_types {

struct overhead {
  model::resource_list kube_reserved;
  model::resource_list system_reserved;
  model::resource_list eviction_threshold;
  friend bool operator==(const overhead&, const overhead&) = default;
};

// A count of VMs of one reserved instance type set aside in a region, or on one host of it
// (INSTANCE_TYPES_FILE `reservations`; see reservation.hpp). Empty region or host: any.
struct reservation {
  std::string id;  // the value of karpenter.proxmox.sinextra.dev/reservation-id
  std::string region;
  std::string host;
  std::int64_t count = 0;
  friend bool operator==(const reservation&, const reservation&) = default;
};

// Karpenter's per-offering CapacityOverride and OverheadOverride: what the VMs of one host
// really get (hugepages, other reservations). Each value replaces the type's value of that
// resource; absent ones keep it (see offering_override.hpp).
struct offering_override {
  model::resource_list capacity;
  std::optional<instance_types::overhead> overhead;
  friend bool operator==(const offering_override&, const offering_override&) = default;
};

struct offering {
  std::string region;
  std::string zone;  // the Proxmox host
  std::string capacity_type = "on-demand";
  double price = 0;
  bool available = true;
  // Reserved offerings: the reservation they draw on and how many VMs it still holds
  // (Karpenter's ReservationCapacity); available only while that is above zero.
  std::string reservation_id;
  std::int64_t reservation_capacity = 0;
  std::optional<offering_override> overrides;  // this host's, when it has one
  friend bool operator==(const offering&, const offering&) = default;
};

struct instance_type {
  std::string name;    // node.kubernetes.io/instance-type, e.g. t1.2VCPU-6GB
  std::string family;  // the part before '.', e.g. t1
  std::string capacity_type = "on-demand";
  // What the VM gets: used for host fit and price.
  std::int64_t vm_cpus = 0;
  std::int64_t vm_memory_bytes = 0;
  // What Kubernetes sees (memory reduced by VM_MEMORY_OVERHEAD_PERCENT).
  model::resource_list capacity;
  instance_types::overhead overhead;
  std::vector<offering> offerings;
  // Type-level requirements beyond name/family (arch, os, region); zone and capacity type come
  // from the offerings.
  std::vector<model::node_selector_requirement> requirements;
  // capacity type "reserved" only: where and how many (apply_reservations turns them into
  // offerings that run out).
  std::vector<reservation> reservations;
  // By host (zone): build_offerings gives that host's offerings these overrides.
  std::map<std::string, offering_override> host_overrides;

  // capacity - (kubeReserved + systemReserved + evictionThreshold), memory also minus every
  // hugepages-* capacity; negative values are kept so that such a type never fits.
  model::resource_list allocatable() const;
  friend bool operator==(const instance_type&, const instance_type&) = default;
};

// A reserved offering's price relative to the synthetic on-demand price.
inline constexpr double reserved_price_factor = 1e-6;

// Synthetic "electricity" price of the Go provider: 0.025 per vCPU + 0.001 per GB (1e9 bytes).
double synthetic_price(std::int64_t cpus, std::int64_t memory_bytes);

// One VM shape with the built-in overheads: 30Gi ephemeral storage, pods 32/64/110 by memory
// (up to 1Gi, up to 2Gi, more), the Go provider's kube-reserved ladder applied with the memory
// compared in GiB (the Go code compares MiB against GiB thresholds and always reserves 384Mi;
// we reserve 128/192/256/384Mi as intended), system-reserved 10m/64Mi, eviction threshold
// 100Mi, amd64/linux. The family is the part of the name before '.'. No offerings yet.
instance_type vm_instance_type(std::string name, std::int64_t cpus, std::int64_t memory_bytes);

// The 20 built-in types: vCPU {1,2,4,8,16} x memory factor {2,3,4,8} (families c, t, s, m),
// each a vm_instance_type. No offerings yet (see build_offerings).
std::vector<instance_type> builtin_instance_types();

// Name of a generated type, e.g. ("t", 2, 3) -> "t1.2VCPU-6GB".
std::string generic_name(int cpus, int memory_factor);

// Reduces Kubernetes-visible memory capacity by ceil(memory * percent) (e.g. 0.075), as the
// cloud providers' VM_MEMORY_OVERHEAD_PERCENT does; the VM itself keeps its full size.
void apply_memory_overhead_percent(std::vector<instance_type>& types, double percent);
void apply_memory_overhead_percent(instance_type& type, double percent);

// Free capacity of one Proxmox host, as placement reports it.
struct zone_capacity {
  std::string region;
  std::string zone;
  std::int64_t free_cpus = 0;
  std::int64_t free_memory_bytes = 0;
  bool schedulable = true;  // excluded or offline hosts offer nothing
  // PCI resource mapping -> devices free (a node class's pciDevices are offered where they are).
  std::map<std::string, int> free_pci;
};

// One offering per (region, zone, the type's capacity type), priced synthetically (spot at
// half, reserved at reserved_price_factor: prepaid, so always cheaper than any on-demand type
// while keeping the order among reserved types), with the host's overrides, available iff the
// host has the type's vCPUs and memory free. Replaces any previous offerings, and sets
// the region requirement to the regions seen.
void build_offerings(std::vector<instance_type>& types, const std::vector<zone_capacity>& zones);

// One item of INSTANCE_TYPES_FILE as the file declares it (config/instance_types_file reads the
// Go provider's JSON into this).
struct declared_instance_type {
  std::string name;
  model::resource_list capacity;
  instance_types::overhead overhead;
  std::string capacity_type;                                // empty: on-demand
  std::vector<reservation> reservations;                    // capacity type "reserved" only
  std::map<std::string, offering_override> host_overrides;  // by host
};

// The declared types made whole: family from the name, pods 110 when not given, the VM's vCPUs
// (cpu rounded up) and memory, arch/os requirements. A type without a name, listed twice, or
// without a positive cpu and memory capacity is an "invalid_instance_types" error naming it, and
// so is a capacity type other than on-demand, spot or reserved, and reservations that
// validate_reservations refuses.
result<std::vector<instance_type>> from_declared(const std::vector<declared_instance_type>& items);

}  // namespace kp::instance_types
