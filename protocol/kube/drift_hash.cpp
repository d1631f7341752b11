#include "protocol/kube/drift_hash.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/model/drift_hash.hpp"
#include "protocol/kube/codec.hpp"

namespace kp::kube {
namespace {

constexpr std::uint64_t fnv_offset = 14695981039346656037ULL;
constexpr std::uint64_t fnv_prime = 1099511628211ULL;

std::uint64_t fnv_add(std::uint64_t h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= fnv_prime;
  }
  return h;
}

// FNV-1a over length-prefixed pieces, so "ab"+"c" and "a"+"bc" hash apart.
class piece_hash {
 public:
  void add(const std::string& piece) {
    h_ = fnv_add(h_, std::to_string(piece.size()));
    h_ = fnv_add(h_, ":");
    h_ = fnv_add(h_, piece);
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = fnv_offset;
};

std::vector<std::string> taint_set(const std::vector<taint>& taints) {
  std::vector<std::string> out;
  // timeAdded is when a taint was put on a node, not part of what the template asks for.
  for (const auto& t : taints) out.push_back(t.key + "=" + t.value + ":" + t.effect);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool carries(const string_map& annotations, std::string_view hash_key, const std::string& hash,
             std::string_view version_key, std::string_view version) {
  auto h = annotations.find(std::string(hash_key));
  auto v = annotations.find(std::string(version_key));
  return h != annotations.end() && v != annotations.end() && h->second == hash &&
         v->second == version;
}

}  // namespace

std::string nodepool_hash(const node_pool& pool) {
  const auto& t = pool.spec.template_;
  piece_hash h;
  h.add("labels");
  for (const auto& [k, v] : t.metadata.labels) {
    h.add(k);
    h.add(v);
  }
  h.add("annotations");
  for (const auto& [k, v] : t.metadata.annotations) {
    h.add(k);
    h.add(v);
  }
  h.add("taints");
  for (const auto& s : taint_set(t.spec.taints)) h.add(s);
  h.add("startupTaints");
  for (const auto& s : taint_set(t.spec.startup_taints)) h.add(s);
  h.add("nodeClassRef");
  h.add(t.spec.node_class_ref.group);
  h.add(t.spec.node_class_ref.kind);
  h.add(t.spec.node_class_ref.name);
  h.add("expireAfter");
  h.add(t.spec.expire_after);
  h.add("terminationGracePeriod");
  h.add(t.spec.termination_grace_period);
  return std::to_string(h.value());
}

std::string nodeclass_hash(const proxmox_node_class& node_class) {
  proxmox_node_class drifting;
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
  // The clone kind only matters while a VM is made: a running VM is the same either way.
  s.clone_mode.clear();
  return std::to_string(fnv_add(fnv_offset, encode(drifting)));
}

bool nodepool_hash_current(const node_pool& pool) {
  namespace ma = model::annotations;
  return carries(pool.metadata.annotations, ma::nodepool_hash, nodepool_hash(pool),
                 ma::nodepool_hash_version, model::drift_hash_versions::nodepool);
}

bool nodeclass_hash_current(const proxmox_node_class& node_class) {
  namespace ma = model::annotations;
  return carries(node_class.metadata.annotations, ma::nodeclass_hash, nodeclass_hash(node_class),
                 ma::nodeclass_hash_version, model::drift_hash_versions::nodeclass);
}

}  // namespace kp::kube
