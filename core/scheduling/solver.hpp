#pragma once
// Internal to core/scheduling: the state of one provisioning simulation and the steps that
// build, run and report it (solver_build.cpp, solver_place.cpp, solver_plan.cpp).
// Nothing outside this folder includes it; the public entry point is provision.hpp.

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

#include "core/model/labels.hpp"
#include "core/scheduling/label_table.hpp"
#include "core/scheduling/requirements.hpp"
#include "core/scheduling/resources.hpp"
#include "core/scheduling/topology.hpp"

#include "core/scheduling/provision.hpp"

namespace kp::scheduling::detail {

namespace L = model::labels;
using model::selector_operator;
constexpr std::int64_t kUnlimited = std::numeric_limits<std::int64_t>::max() / 4;

// ---------------------------------------------------------------------------------------------
// Requirement helpers that never allocate (the hot path asks them for every candidate node).

inline bool not_in_or_dne(selector_operator op) {
  return op == selector_operator::not_in || op == selector_operator::does_not_exist;
}

// True when `a` and `b` have a common value (the non-allocating twin of intersect().is_empty()).
inline bool overlaps(const requirement& a, const requirement& b, const label_table& t) {
  auto gte = a.gte;
  if (b.gte) gte = gte ? std::max(*gte, *b.gte) : *b.gte;
  auto lte = a.lte;
  if (b.lte) lte = lte ? std::min(*lte, *b.lte) : *b.lte;
  if (gte && lte && *gte > *lte) return false;
  auto ok = [&](label_id v) {
    if (gte || lte) {
      auto n = t.number(v);
      if (!n || (gte && *n < *gte) || (lte && *n > *lte)) return false;
    }
    return true;
  };
  if (a.complement && b.complement) return true;
  const requirement& listed = a.complement ? b : a;
  const requirement& other = a.complement ? a : b;
  for (label_id v : listed.values)
    if (ok(v) && other.has(v, t)) return true;
  return false;
}

// Karpenter's Intersects on one key.
inline bool key_intersects(const requirement& node, const requirement& pod, const label_table& t) {
  if (overlaps(node, pod, t)) return true;
  return not_in_or_dne(pod.op()) && not_in_or_dne(node.op());
}

// Every value allowed by `s` is allowed by `r` (conservative: false when unsure).
inline bool implies(const requirement& s, const requirement& r, const label_table& t) {
  if (r.complement && r.values.empty() && !r.gte && !r.lte) return !s.is_empty();  // Exists
  if (!s.complement) {
    if (s.values.empty()) return !r.complement && r.values.empty();  // DNE implies DNE only
    for (label_id v : s.values)
      if (!r.has(v, t)) return false;
    return true;
  }
  if (!r.complement || s.gte != r.gte || s.lte != r.lte) return false;
  return std::includes(s.values.begin(), s.values.end(), r.values.begin(), r.values.end());
}

// ---------------------------------------------------------------------------------------------
// Compiled inputs.

struct offering_ids {
  label_id zone, capacity_type, region;
  double price;
  bool available;
};

struct itype {
  const instance_types::instance_type* src = nullptr;
  label_id name = no_label;
  double price = std::numeric_limits<double>::max();  // cheapest available offering
  requirements reqs;
  resources alloc;
  resources capacity;
  std::vector<offering_ids> offerings;
  // Fast path for the plan: every available offering has the same price and capacity type.
  bool uniform = true;
  label_id uniform_ct = no_label;
  std::uint64_t zone_mask = 0;  // zones of available offerings
};

struct tmpl {
  std::size_t pool = 0;
  requirements reqs;
  std::vector<model::taint> taints;
  std::vector<model::taint> startup_taints;
  std::vector<std::uint16_t> types;  // compatible with the template, by index into types_
  std::vector<resources> room;       // per type index: allocatable - daemon overhead
  resources daemon;
  std::vector<model::host_port> daemon_ports;
  resources limit_remaining;
  resources max_capacity;  // component-wise, over its types
  std::int64_t nodes_remaining = kUnlimited;
  std::int64_t nodes_limit = kUnlimited;  // spec.limits.nodes, for the reason a pod is refused
  bool limited = false;
  std::int64_t kubelet_max_pods = 0;  // 0: none
  // Family f1: the pool opted in and some host has room. `right_sized_room` is the allocatable
  // of the largest size a host holds, less the daemon overhead (a quick rejection test).
  bool right_sized = false;
  resources right_sized_room;
};

// Instance types a NodeClaim may still become, cheapest first, shared by every NodeClaim of one
// template with the same type-relevant requirements. Requests only grow, so each NodeClaim keeps
// just a position in the list before which nothing fits any more.
struct type_list {
  int tmpl = -1;
  std::vector<std::uint16_t> types;
  resources max_room;                      // component-wise maximum: a quick rejection test
  resources max_capacity;                  // component-wise maximum capacity (for NodePool limits)
  std::vector<resources> suffix_min_room;  // [k]: component-wise minimum room of types k..end
  std::uint64_t common_zone_mask = ~std::uint64_t{0};  // zones every type is offered in
  bool uniform = true;  // every type has one price and one capacity type for all offerings
  label_id uniform_ct = no_label;
  std::uint64_t zone_mask = 0;  // zones with an available offering (bit per zone)
};

enum class slot_kind : std::uint8_t { existing, in_flight, fresh };

struct slot {
  slot_kind kind = slot_kind::fresh;
  std::string name;
  int tmpl = -1;
  requirements reqs;
  std::vector<model::taint> taints;
  resources remaining;         // existing and in-flight
  resources total;             // fresh: requests of its pods
  int list = -1;               // fresh: its candidate types (index into lists_)
  std::uint32_t fit_from = 0;  // fresh: types before this position no longer fit
  // Fresh: an f1 type still holds its pods; `size` is the smallest that does. `reserved` is what
  // it counts against its NodePool's limits (f1 claims count their size as they grow).
  bool right_sized = false;
  instance_types::vm_size size;
  resources reserved;
  std::vector<model::host_port> ports;
  std::vector<std::uint32_t> pods;
  // Existing nodes: attachable volumes left per CSI driver (CSINode limits); absent = no limit.
  std::vector<std::pair<std::string, std::int32_t>> volumes_left;
};

struct variant {
  requirements reqs;
  std::vector<int> topo;  // owned topology groups
  bool tolerate_prefer_no_schedule = false;
  std::uint32_t cursor = 0;  // slots before it fail for this variant for good
};

struct pod_group {
  const model::pod* rep = nullptr;
  std::vector<std::uint32_t> members;
  resources req;
  std::vector<model::host_port> ports;
  std::vector<std::pair<std::string, std::int32_t>> volumes;  // PVCs per CSI driver
  std::vector<variant> variants;
  std::vector<int> selected_by;  // topology groups whose selector matches these pods
  std::vector<int> inverse;      // anti-affinity groups among them
  std::string invalid;           // set when the pods cannot be considered at all
  int cost_table = -1;           // per-pod price by type, shared by groups with equal requests
  std::vector<int> rs_cost;      // by template: its f1 per-pod prices (rs_costs_), -1 unknown
};

// Why one attempt failed. Formatted only when a pod finally fails.
enum class why : std::uint8_t {
  none,
  taint,
  ports,
  volumes,
  resources,
  requirements,
  undefined_label,
  spread,
  affinity,
  anti_affinity,
  no_type,
  min_values,
  limits,
  limits_nodes,
  no_types_at_all,
  costlier,
};

struct failure {
  why code = why::none;
  label_id key = no_label;
  int group = -1;
  const model::taint* taint = nullptr;
  int extra = 0;
  bool hard = false;  // a topology failure that more pods can never undo
  // A zonal spread/affinity failure of a node in exactly this domain: every node in it fails
  // alike until a pod is placed, so one scan may skip them.
  label_id domain = no_label;
  // Monotone failures stay failures for identical pods on the same slot.
  bool monotone() const {
    return hard || (code != why::spread && code != why::affinity && code != why::none);
  }
};

// A successful fit, not yet applied.
struct tentative {
  std::optional<requirements> reqs;  // set when the slot's requirements change
  int list = -1;                     // fresh slots: the candidate list and first fitting type
  std::uint32_t fit_from = 0;
  bool right_sized = false;  // fresh slots: an f1 type of `size` holds the pods
  instance_types::vm_size size;
  bool relaxed_min_values = false;
};

// The family f1 as this solve offers it: the hosts with room for its smallest size.
struct right_sized_zone {
  label_id zone = no_label, region = no_label;
  std::int64_t free_cpus = 0, free_memory_bytes = 0;
};

// Per-pod price of f1 sizes for one pod shape in one template: [k] is the price of the smallest
// size holding k such pods (plus the daemon overhead) divided by k; k = 1..per_pod.size()-1.
struct right_sized_costs {
  std::vector<float> per_pod;
  std::vector<float> suffix_min;  // [k]: the minimum of per_pod[k..]
  float best = std::numeric_limits<float>::max();
};

class solver {
 public:
  solver(const snapshot& s, const options& o) : snap_(s), opts_(o) {}
  plan run();

 private:
  // building
  void build_well_known();
  void build_resources();
  void build_types();
  void build_templates();
  void build_existing();
  void build_groups();
  void build_domains();
  void seed_counts();
  requirements labels_to_reqs(const model::label_map& labels);
  resources requests_of(const model::pod& p) const;
  resources unlaunched_room(const model::nodeclaim& nc, const requirements& reqs);
  label_id normalize_key(std::string_view key);
  bool compile_pod_requirements(const model::pod& p, std::size_t term, int pref_node_drop,
                                requirements& out, std::string& error);
  int topology_for(topology_group g);
  void build_variants(pod_group& g);
  bool type_compatible(const itype& t, const requirements& reqs) const;
  int list_for(int ti, const requirements& reqs, bool ignore_limits = false);
  std::uint32_t first_fit(const type_list& l, std::uint32_t from, const tmpl& tp,
                          const resources& total) const;
  bool hostname_blocked(const topology_group& tg, std::size_t si) const;
  // family f1 (solver_right_sized.cpp)
  void build_right_sized();
  // A type's allocatable by name: a listed type, or an f1 size built from its name.
  std::optional<resources> allocatable_by_name(std::string_view name) const;
  model::resource_list capacity_by_name(std::string_view name) const;
  bool right_sized_opt_in(const model::nodepool& np);
  void offer_right_sized(tmpl& tp, const model::nodepool& np);  // once its daemon overhead is known
  bool right_sized_allowed(const requirements& reqs) const;
  std::optional<instance_types::vm_size> right_size(const slot& s, const tmpl& tp,
                                                    const resources& total,
                                                    const requirements& reqs, failure& f) const;
  resources right_sized_capacity(const instance_types::vm_size& size) const;
  resources right_sized_room(const tmpl& tp, const instance_types::vm_size& size) const;
  std::optional<instance_types::vm_size> smallest_size(const tmpl& tp,
                                                       const resources& total) const;
  const right_sized_costs& right_sized_cost(pod_group& g, int ti);
  double right_sized_reachable(pod_group& g, int ti, const resources& total);
  void reserve_limits(tmpl& tp, int ti, slot& s, const resources& capacity);
  void add_right_sized_option(const slot& s, const tmpl& tp, planned_nodeclaim& nc,
                              std::vector<std::pair<double, std::uint16_t>>& priced,
                              std::vector<label_id>& cts);

  // solving
  bool place(pod_group& g, std::uint32_t pod, failure& last);
  bool try_slot(std::size_t si, pod_group& g, variant& v, tentative& out, failure& f);
  bool try_fresh(int ti, pod_group& g, variant& v, failure& f, std::uint32_t pod, bool apply);
  bool topology_fits(std::size_t si, slot& s, pod_group& g, variant& v, requirements*& reqs,
                     std::optional<requirements>& owned, failure& f);
  void domains_of(const slot& s, const requirements& reqs, label_id key,
                  std::vector<label_id>& out) const;
  void commit(std::size_t si, pod_group& g, variant& v, tentative& t, std::uint32_t pod);
  bool filter_types(const slot& s, const tmpl& tp, pod_group& g, const requirements& reqs,
                    bool reqs_changed, const resources& total, tentative& out, failure& f);
  bool growth_pays(const slot& s, const tmpl& tp, pod_group& g, const type_list& l,
                   std::uint32_t from, const std::optional<instance_types::vm_size>& size,
                   const resources& total, double cheapest, double before_price);
  void compute_per_pod_cost(pod_group& g);
  std::string explain(const pod_group& g, const std::vector<failure>& per_template,
                      const failure& existing) const;
  std::string describe_failure(const failure& f, const pod_group& g) const;
  void finish(plan& out);

  const snapshot& snap_;
  const options& opts_;
  label_table t_;
  resource_table rt_;
  std::size_t nres_ = max_resources;  // resource ids in use
  std::vector<label_id> well_known_;  // sorted
  label_id k_zone_ = 0, k_region_ = 0, k_ct_ = 0, k_type_ = 0, k_family_ = 0, k_hostname_ = 0,
           k_nodepool_ = 0, k_arch_ = 0, k_os_ = 0;
  std::vector<itype> types_;
  std::unordered_map<label_id, std::uint16_t> type_by_name_;
  // Anti-affinity groups that running pods own (they keep matching pods out of their domains).
  std::unordered_map<const model::pod*, std::vector<int>> bound_anti_owner_;
  std::vector<tmpl> tmpls_;  // in weight order
  std::deque<slot> slots_;   // a deque: failures point at slot taints while slots are added
  std::size_t first_fresh_ = 0;
  std::vector<pod_group> groups_;
  std::vector<topology_group> topo_;
  std::unordered_map<std::string, int> topo_index_;
  std::unordered_map<label_id, std::vector<label_id>> universe_;  // key -> sorted domains
  std::unordered_map<std::uint64_t, std::vector<const std::vector<model::taint>*>> domain_taints_;
  bool any_prefer_no_schedule_ = false;
  std::vector<std::string> pod_errors_;  // by pod index; empty = none
  std::vector<int> pod_slot_;            // by pod index
  std::vector<label_id> scratch_domains_;
  std::vector<std::pair<label_id, label_id>> blocked_domains_;  // (key, domain) in this scan
  bool in_blocked_domain(const slot& s) const;
  std::deque<type_list> lists_;
  std::unordered_map<std::string, int> list_cache_;
  std::vector<label_id> type_keys_;  // keys that instance types define (sorted)
  std::unordered_map<label_id, int> zone_bit_;
  std::vector<int> limits_epoch_;  // by template: bumped when its remaining limits shrink
  struct cost_table {
    std::vector<float> per_pod;  // by type: price / how many such pods it holds
    float best = 0;
  };
  std::vector<cost_table> cost_tables_;
  std::map<std::array<std::int64_t, max_resources>, int> cost_table_index_;
  std::vector<label_id> scratch_domains2_;
  // family f1
  std::vector<right_sized_zone> rs_zones_;
  requirements rs_reqs_;  // family, arch, os, region, zone, capacity type
  label_id rs_family_ = no_label, rs_ct_ = no_label;
  std::uint64_t rs_zone_mask_ = 0;
  resources rs_max_alloc_;  // allocatable of the largest size some host holds
  // Per-pod f1 prices by pod requests and template: groups of one shape share them.
  std::deque<right_sized_costs> rs_costs_;
  std::map<std::pair<std::array<std::int64_t, max_resources>, int>, int> rs_cost_index_;
  std::map<std::pair<std::int64_t, std::int64_t>, instance_types::instance_type>
      rs_types_;  // by vCPUs and MiB, with offerings
};

}  // namespace kp::scheduling::detail
