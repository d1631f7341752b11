#pragma once
// The scheduling model of each distinct part a pod takes from its template (containers,
// tolerations, spread constraints, volumes, owners), translated once, and its labels and
// affinities interned. The
// pod informer makes equal API parts one shared value (actors/cluster_state/shared_pod_parts.hpp);
// translating through one `pod_part_models` gives the models of those pods one shared model part
// too, so 100,000 model pods hold each distinct part once instead of a copy each. Not thread-safe:
// one per translating actor.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/model/pod.hpp"
#include "core/result.hpp"
#include "protocol/kube/affinity_interning.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/interning_sweep.hpp"

namespace kp::kube {

// Translations of one kind of part, by the identity of the API part's shared items.
template <class In, class Out>
class part_translations {
 public:
  // The model of `in`: the one made before for these very items, or `translate()`'s (a
  // result<std::vector<Out>>), kept unless it failed (errors name the pod, so they are not).
  template <class Translate>
  result<model::shared_vector<Out>> of(const shared_vector<In>& in, Translate&& translate) {
    if (in.empty()) return model::shared_vector<Out>{};
    // The address names the items while they live; an entry whose items are gone is stale
    // (another part may since live at that address).
    const void* key = &in.items();
    auto at = made_.find(key);
    if (at != made_.end() && !at->second.source.expired()) return at->second.model;
    auto made = translate();
    if (!made) return made.error();
    model::shared_vector<Out> model(std::move(*made));
    made_.insert_or_assign(key, entry{in.identity(), model});
    if (made_.size() >= sweep_at_) {
      std::erase_if(made_, [](const auto& e) { return e.second.source.expired(); });
      sweep_at_ = next_sweep_at(made_.size());
    }
    return model;
  }
  std::size_t size() const { return made_.size(); }

 private:
  struct entry {
    typename shared_vector<In>::identity_type source;  // not kept alive: its holders decide
    model::shared_vector<Out> model;
  };
  std::unordered_map<const void*, entry> made_;
  std::size_t sweep_at_ = 1024;  // parts of pods that are gone are dropped as the table grows
};

// Equal label (and annotation, node selector) maps of model pods made one shared map: the pods
// of a ReplicaSet carry the same labels, and 100,000 pods then hold each distinct map once.
// Maps no pod holds any more are dropped as the table grows (interning_sweep.hpp).
class label_interning {
 public:
  model::shared_label_map of(const string_map& in) {
    if (in.empty()) return {};
    const std::size_t hash = hash_of(in);
    auto [first, last] = maps_.equal_range(hash);
    for (auto at = first; at != last; ++at)
      if (equal(at->second.items(), in)) return at->second;
    model::shared_label_map made(model::label_map(in.begin(), in.end()));
    maps_.emplace(hash, made);
    if (maps_.size() >= sweep_at_) {
      std::erase_if(maps_, [](const auto& e) { return e.second.sole_holder(); });
      sweep_at_ = next_sweep_at(maps_.size());
    }
    return made;
  }
  std::size_t size() const { return maps_.size(); }

 private:
  static std::size_t hash_of(const string_map& in) {
    std::size_t h = in.size();
    for (const auto& [k, v] : in) {
      h = h * 31 + std::hash<std::string>{}(k);
      h = h * 31 + std::hash<std::string>{}(v);
    }
    return h;
  }
  static bool equal(const model::label_map& a, const string_map& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

  std::unordered_multimap<std::size_t, model::shared_label_map> maps_;
  std::size_t sweep_at_ = 1024;
};

struct pod_part_models {
  label_interning labels;
  part_translations<container, model::container> containers;
  part_translations<toleration, model::toleration> tolerations;
  part_translations<topology_spread_constraint, model::topology_spread_constraint> spread;
  part_translations<volume, model::pod_volume> volumes;
  part_translations<owner_reference, model::owner_reference> owners;
  affinity_interning affinities;
};

}  // namespace kp::kube
