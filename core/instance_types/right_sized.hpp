#pragma once
// Right-sized VMs, instance family f1: any vCPU count and memory in 256 MiB steps, sized to the
// pods a NodeClaim is for. Proxmox sells no fixed shapes, so the family is generated: a type is
// built from its name (`f1.<vCPU>VCPU-<MiB>MB`) with the same overheads and synthetic price as
// the fixed families, and offered where a host has the room.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/instance_types/instance_type.hpp"
#include "core/result.hpp"

namespace kp::instance_types {

inline constexpr std::string_view right_sized_family = "f1";
inline constexpr std::int64_t right_sized_memory_step_mib = 256;
// Sanity bounds for names (no Proxmox VM comes close): keep the arithmetic far from overflow.
inline constexpr std::int64_t right_sized_max_vcpus = 4096;
inline constexpr std::int64_t right_sized_max_memory_mib = std::int64_t{64} << 20;  // 64 TiB

struct vm_size {
  std::int64_t vcpus = 0;
  std::int64_t memory_mib = 0;  // a multiple of right_sized_memory_step_mib
  friend bool operator==(const vm_size&, const vm_size&) = default;
};

// "f1.3VCPU-5632MB".
std::string right_sized_name(const vm_size& size);

// The size a name stands for; an "invalid_instance_type" error names the part that is wrong
// (not family f1, not numbers, memory not a positive multiple of 256 MiB, beyond the bounds).
result<vm_size> parse_right_sized_name(std::string_view name);

// True when the name starts with the family, e.g. for requirements that list such names.
bool is_right_sized_name(std::string_view name);

// The instance type of a size: vm_instance_type with VM_MEMORY_OVERHEAD_PERCENT applied, no
// offerings (build_offerings adds them).
instance_type right_sized_type(const vm_size& size, double memory_overhead_percent);

// synthetic_price of the size (on-demand).
double right_sized_price(const vm_size& size);

// What a VM must hold: pod requests plus DaemonSet overhead.
struct vm_need {
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t pods = 0;
  std::int64_t ephemeral_storage_bytes = 0;
};

// The smallest size whose allocatable holds `need`, or nullopt when none does (more than 110
// pods or 30Gi of ephemeral storage, or beyond the bounds). Allocatable grows with vCPUs and
// with memory separately, so the smallest size is also the cheapest f1 type that fits.
std::optional<vm_size> smallest_right_size(const vm_need& need, double memory_overhead_percent);

// Allocatable of a size without building the type (the scheduler asks this in its hot path):
// equal to right_sized_type(size, percent).allocatable() for cpu, memory and pods.
std::int64_t right_sized_allocatable_cpu_milli(std::int64_t vcpus);
std::int64_t right_sized_allocatable_memory_bytes(std::int64_t memory_mib,
                                                  double memory_overhead_percent);
std::int64_t right_sized_pods(std::int64_t memory_mib);

// The family as one solve or disruption pass can use it: the hosts and their free room, and the
// memory overhead percent its types are built with. No zones: offered nowhere.
struct right_sized_offer {
  double memory_overhead_percent = 0;
  std::vector<zone_capacity> zones;
};

// An instance type by name: the listed type of that name, else a right-sized type built from
// the name (without offerings), else nullopt. Used wherever a NodeClaim's or Node's type is
// looked up by name, so that f1 types resolve like listed ones.
std::optional<instance_type> resolve_instance_type(const std::vector<instance_type>& types,
                                                   std::string_view name,
                                                   double memory_overhead_percent);

}  // namespace kp::instance_types
