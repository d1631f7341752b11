#include "actors/provisioning/nodeclaim_builder.hpp"

#include <algorithm>
#include <cctype>

#include "protocol/kube/model_translation.hpp"

namespace kp::actors::provisioning {

std::string random_suffix(std::mt19937_64& rng) {
  static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::uniform_int_distribution<std::size_t> pick(0, sizeof(alphabet) - 2);
  std::string out(5, 'x');
  for (auto& c : out) c = alphabet[pick(rng)];
  return out;
}

kube::node_claim build_nodeclaim(const scheduling::planned_nodeclaim& plan,
                                 const scheduling::snapshot& snap, const kube::node_pool& pool,
                                 const std::string& name) {
  const auto& tmpl = pool.spec.template_;
  model::nodeclaim m;
  m.name = name;
  m.nodepool = plan.nodepool;
  m.labels = plan.labels;
  for (const auto& [k, v] : tmpl.metadata.labels) m.labels.emplace(k, v);
  m.labels["karpenter.sh/nodepool"] = plan.nodepool;
  // "<group>/<lowercased kind>" = the node class name, as Karpenter labels it.
  std::string kind = plan.node_class.kind;
  std::transform(kind.begin(), kind.end(), kind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!plan.node_class.group.empty() && !kind.empty())
    m.labels[plan.node_class.group + "/" + kind] = plan.node_class.name;
  m.annotations.insert(tmpl.metadata.annotations.begin(), tmpl.metadata.annotations.end());
  for (const char* key : {nodepool_hash_annotation, nodepool_hash_version_annotation}) {
    auto it = pool.metadata.annotations.find(key);
    if (it != pool.metadata.annotations.end()) m.annotations[key] = it->second;
  }
  m.annotations[min_values_relaxed_annotation] = plan.min_values_relaxed ? "true" : "false";
  m.requirements = scheduling::nodeclaim_requirements(plan, snap);
  m.taints = plan.taints;
  m.startup_taints = plan.startup_taints;
  m.requests = plan.requests;
  m.node_class = plan.node_class;
  m.expire_after = tmpl.spec.expire_after.empty() ? "720h" : tmpl.spec.expire_after;
  m.termination_grace_period = tmpl.spec.termination_grace_period;

  auto out = kube::from_model(m);
  kube::owner_reference owner;
  owner.api_version = "karpenter.sh/v1";
  owner.kind = "NodePool";
  owner.name = pool.metadata.name;
  owner.uid = pool.metadata.uid;
  owner.block_owner_deletion = true;
  out.metadata.owner_references.push_back(std::move(owner));
  return out;
}

}  // namespace kp::actors::provisioning
