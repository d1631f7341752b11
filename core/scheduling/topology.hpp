#pragma once
// Topology groups of the simulation (karpenter-core.md 3.6): one per distinct spread,
// affinity or anti-affinity constraint, shared by every pod that owns it, counting the pods its
// selector matches per domain. Domains are label values (zone, capacity type, ...) or, for
// kubernetes.io/hostname, the index of a node slot in the simulation.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/label_selector.hpp"
#include "core/model/pod.hpp"
#include "core/model/taint.hpp"
#include "core/scheduling/requirements.hpp"

namespace kp::scheduling {

enum class topology_kind : std::uint8_t { spread, affinity, anti_affinity };

struct topology_group {
  topology_kind kind = topology_kind::spread;
  label_id key = no_label;
  bool hostname = false;
  bool all_namespaces = false;
  std::vector<std::string> namespaces;  // sorted
  std::optional<model::label_selector> selector;
  std::int32_t max_skew = 1;
  std::int32_t min_domains = 0;
  bool honor_taints = false;
  bool required = true;                        // preferred anti-affinity is not enforced inversely
  std::optional<requirement> node_filter;      // the owner's requirement on `key` (affinity Honor)
  std::vector<model::toleration> tolerations;  // the owner's (taints Honor)
  std::string description;                     // for messages

  // State while solving.
  std::vector<std::pair<label_id, std::int32_t>> counts;  // sorted by domain
  std::vector<std::int32_t> host_counts;                  // by slot index
  std::int64_t total = 0;
  std::vector<label_id> owner_domains;  // sorted; anti-affinity owners' domains (inverse rule)
  std::vector<char> owner_hosts;        // by slot index
  std::vector<label_id> eligible;       // spread: domains a pod may count toward (sorted)
  std::uint32_t host_cursor = 0;  // hostname: slots before it are full for this group's owners

  bool selects(const model::pod& p) const;
  std::int32_t count(label_id domain) const;
  std::int32_t host_count(std::size_t slot) const {
    return slot < host_counts.size() ? host_counts[slot] : 0;
  }
  void record(label_id domain);
  void record_host(std::size_t slot);
  void record_owner(label_id domain);
  void record_owner_host(std::size_t slot);
  bool owner_in(label_id domain) const;
  bool owner_on_host(std::size_t slot) const {
    return slot < owner_hosts.size() && owner_hosts[slot] != 0;
  }
  // Minimum count over the eligible domains, or 0 when fewer than minDomains are eligible.
  std::int32_t global_min() const;
};

// A stable text key so that identical constraints share one group.
std::string signature(const topology_group& g, const label_table& t);

}  // namespace kp::scheduling
