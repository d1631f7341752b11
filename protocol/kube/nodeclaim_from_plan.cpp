#include "protocol/kube/nodeclaim_from_plan.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "core/model/drift_hash.hpp"
#include "core/model/labels.hpp"
#include "protocol/kube/model_translation.hpp"

namespace kp::kube {

std::string generated_name_suffix(std::mt19937_64& rng) {
  static constexpr std::string_view alphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::string out(5, 'x');
  for (auto& c : out) c = alphabet[pick(rng)];
  return out;
}

node_claim nodeclaim_from_plan(const scheduling::planned_nodeclaim& planned,
                               const scheduling::snapshot& snap, const node_pool& pool,
                               const std::string& name) {
  namespace ma = model::annotations;
  const auto& tmpl = pool.spec.template_;
  model::nodeclaim m;
  m.name = name;
  m.nodepool = pool.metadata.name;
  m.labels.insert(tmpl.metadata.labels.begin(), tmpl.metadata.labels.end());
  for (const auto& [k, v] : planned.labels) m.labels[k] = v;
  m.labels[std::string(model::labels::nodepool)] = pool.metadata.name;
  m.annotations.insert(tmpl.metadata.annotations.begin(), tmpl.metadata.annotations.end());
  for (auto key : {ma::nodepool_hash, ma::nodepool_hash_version}) {
    auto it = pool.metadata.annotations.find(std::string(key));
    if (it != pool.metadata.annotations.end() && !it->second.empty())
      m.annotations[it->first] = it->second;
  }
  m.annotations[std::string(ma::min_values_relaxed)] =
      planned.min_values_relaxed ? "true" : "false";
  m.requirements = scheduling::nodeclaim_requirements(planned, snap);
  m.taints = planned.taints;
  m.startup_taints = planned.startup_taints;
  m.requests = planned.requests;
  m.node_class = planned.node_class;
  if (m.node_class.name.empty())
    m.node_class = {tmpl.spec.node_class_ref.group, tmpl.spec.node_class_ref.kind,
                    tmpl.spec.node_class_ref.name};
  // "<group>/<lowercased kind>" = the node class name, as Karpenter labels NodeClaims.
  std::string kind = m.node_class.kind;
  std::transform(kind.begin(), kind.end(), kind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!m.node_class.group.empty() && !kind.empty())
    m.labels[m.node_class.group + "/" + kind] = m.node_class.name;
  m.expire_after = tmpl.spec.expire_after.empty() ? "720h" : tmpl.spec.expire_after;
  m.termination_grace_period = tmpl.spec.termination_grace_period;
  auto out = from_model(m);
  out.metadata.owner_references.push_back(
      {"karpenter.sh/v1", "NodePool", pool.metadata.name, pool.metadata.uid, std::nullopt, true});
  return out;
}

}  // namespace kp::kube
