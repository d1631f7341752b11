#include "actors/nodeclass_status/nodeclass_hash.hpp"

#include <cstdint>

#include "core/disruption/cluster.hpp"
#include "protocol/kube/codec.hpp"

namespace kp::actors::nodeclass_status {

std::string nodeclass_hash(const kube::proxmox_node_class& node_class) {
  kube::proxmox_node_class drifting;
  drifting.spec = node_class.spec;
  auto& s = drifting.spec;
  // Synced in place or placement-only: not drift.
  s.tags.clear();
  s.security_groups.clear();
  s.resource_pool.clear();
  s.zone_balance.clear();
  s.excluded_zones.clear();
  s.min_free_cpu.reset();
  s.min_free_memory.clear();
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : kube::encode(drifting)) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return std::to_string(h);
}

bool nodeclass_hash_current(const kube::proxmox_node_class& node_class) {
  const auto& a = node_class.metadata.annotations;
  auto h = a.find(std::string(kp::disruption::annotations::nodeclass_hash));
  auto v = a.find(std::string(kp::disruption::annotations::nodeclass_hash_version));
  return h != a.end() && v != a.end() && h->second == nodeclass_hash(node_class) &&
         v->second == nodeclass_hash_version;
}

}  // namespace kp::actors::nodeclass_status
