#pragma once
// Equal affinities of model pods made one shared value: pods of many templates carry the same
// anti-affinity ("one per host") or zonal affinity, and pods of one template carry equal ones.
// A pod's node affinity, pod affinity and pod anti-affinity hold their terms as shared vectors
// (core/model); interned, 100,000 pods hold each distinct set of terms once instead of a copy
// each. Values no pod holds any more are dropped as the table grows (interning_sweep.hpp). Not
// thread-safe: one per translating actor (inside pod_part_models).
#include <algorithm>
#include <cstddef>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/model/node_selector.hpp"
#include "core/model/pod_affinity.hpp"
#include "protocol/kube/interning_sweep.hpp"

namespace kp::kube {

namespace affinity_hash {

// A hash of what tells terms apart (keys, values, topology, weights); equal values hash equal,
// and operator== settles the rest.
struct hasher {
  std::size_t h = 0;
  void add(std::size_t n) { h = h * 1'000'003 + n; }
  void add(std::string_view s) { add(std::hash<std::string_view>{}(s)); }
};

inline void add(hasher& to, const model::node_selector_requirement& r) {
  to.add(r.key);
  to.add(static_cast<std::size_t>(r.op));
  for (const auto& v : r.values) to.add(v);
}
inline void add(hasher& to, const model::node_selector_term& t) {
  to.add(t.match_expressions.size());
  for (const auto& r : t.match_expressions) add(to, r);
  to.add(t.match_fields.size());
  for (const auto& r : t.match_fields) add(to, r);
}
inline void add(hasher& to, const model::label_selector& s) {
  for (const auto& [k, v] : s.match_labels) {
    to.add(k);
    to.add(v);
  }
  for (const auto& r : s.match_expressions) {
    to.add(r.key);
    to.add(static_cast<std::size_t>(r.op));
    for (const auto& v : r.values) to.add(v);
  }
}
inline void add(hasher& to, const model::pod_affinity_term& t) {
  to.add(t.topology_key);
  if (t.selector) add(to, *t.selector);
  for (const auto& n : t.namespaces) to.add(n);
  if (t.namespace_selector) add(to, *t.namespace_selector);
  for (const auto& k : t.match_label_keys) to.add(k);
}

inline std::size_t of(const model::node_affinity& a) {
  hasher to;
  for (const auto& t : a.required) add(to, t);
  to.add(a.required.size());
  for (const auto& p : a.preferred) {
    to.add(static_cast<std::size_t>(p.weight));
    add(to, p.preference);
  }
  return to.h;
}
inline std::size_t of(const model::pod_affinity_rules& a) {
  hasher to;
  for (const auto& t : a.required) add(to, t);
  to.add(a.required.size());
  for (const auto& p : a.preferred) {
    to.add(static_cast<std::size_t>(p.weight));
    add(to, p.term);
  }
  return to.h;
}

}  // namespace affinity_hash

// Equal values made one: `of(made)` returns an equal value made before (sharing its items) or
// keeps `made`. Values the table alone still holds are dropped as it grows. T's copies share
// their items (shared_vector, or a struct of them); `hash` tells values apart, operator== settles
// the rest, and `unused` says whether only the table still holds a value.
template <class T>
class interning_table {
 public:
  using hash_fn = std::size_t (*)(const T&);
  using unused_fn = bool (*)(const T&);
  interning_table(hash_fn hash, unused_fn unused) : hash_(hash), unused_(unused) {}

  T of(T made) {
    const std::size_t hash = hash_(made);
    auto [first, last] = values_.equal_range(hash);
    for (auto at = first; at != last; ++at)
      if (at->second == made) return at->second;
    values_.emplace(hash, made);
    if (values_.size() >= sweep_at_) {
      std::erase_if(values_, [this](const auto& e) { return unused_(e.second); });
      sweep_at_ = next_sweep_at(values_.size());
    }
    return made;
  }
  std::size_t size() const { return values_.size(); }

 private:
  hash_fn hash_;
  unused_fn unused_;
  std::unordered_multimap<std::size_t, T> values_;
  std::size_t sweep_at_ = 1024;
};

// One table per kind of affinity; an empty affinity is never kept.
template <class Affinity>
class affinity_table {
 public:
  Affinity of(Affinity made) {
    if (made.required.empty() && made.preferred.empty()) return {};
    return table_.of(std::move(made));
  }
  std::size_t size() const { return table_.size(); }

 private:
  static std::size_t hash(const Affinity& a) { return affinity_hash::of(a); }
  static bool unused(const Affinity& a) {
    return a.required.sole_holder() && a.preferred.sole_holder();
  }
  interning_table<Affinity> table_{&hash, &unused};
};

struct affinity_interning {
  affinity_table<model::node_affinity> node;
  affinity_table<model::pod_affinity_rules> pod;  // affinity and anti-affinity alike
};

}  // namespace kp::kube
