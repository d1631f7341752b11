// The one NodeClaim builder provisioning and disruption share: Karpenter's name shape, the
// template's and the plan's labels, the pool's hash annotations, the requirements with the
// instance types, and an owner reference to the NodePool.
#include "protocol/kube/nodeclaim_from_plan.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string_view>

#include "core/instance_types/instance_type.hpp"

namespace kp::kube {
namespace {

node_pool pool() {
  node_pool p;
  p.metadata.name = "general";
  p.metadata.uid = "uid-general";
  p.metadata.annotations = {{"karpenter.sh/nodepool-hash", "99"},
                            {"karpenter.sh/nodepool-hash-version", "kp-v1"},
                            {"unrelated", "not copied"}};
  p.spec.template_.metadata.labels = {{"team", "ml"}, {"karpenter.sh/capacity-type", "spot"}};
  p.spec.template_.metadata.annotations = {{"note", "from the template"}};
  p.spec.template_.spec.node_class_ref = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass",
                                          "default"};
  p.spec.template_.spec.termination_grace_period = "1h";
  return p;
}

struct planned_input {
  scheduling::snapshot snap;
  scheduling::planned_nodeclaim planned;
};

planned_input planned_on(const node_pool& p) {
  planned_input in;
  in.snap.instance_types = instance_types::builtin_instance_types();
  in.planned.nodepool = p.metadata.name;
  in.planned.instance_types = {0};
  in.planned.labels = {{"karpenter.sh/capacity-type", "on-demand"}};
  in.planned.requests.set("cpu", model::quantity::from_milli(500));
  in.planned.taints.push_back({"dedicated", "ml", "NoSchedule"});
  return in;
}

TEST(GeneratedNameSuffix, IsFiveCharactersOfTheApiServersGenerateNameAlphabet) {
  std::mt19937_64 rng(7);
  constexpr std::string_view alphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    auto suffix = generated_name_suffix(rng);
    ASSERT_EQ(suffix.size(), 5u);
    for (char c : suffix) EXPECT_NE(alphabet.find(c), std::string_view::npos) << suffix;
    seen.insert(suffix);
  }
  EXPECT_GT(seen.size(), 190u) << "suffixes are random, not a constant";
}

TEST(NodeClaimFromPlan, CarriesTheTemplateThePlanAndThePoolsHashes) {
  const auto p = pool();
  auto in = planned_on(p);
  auto c = nodeclaim_from_plan(in.planned, in.snap, p, "general-x2b4z");
  EXPECT_EQ(c.metadata.name, "general-x2b4z");
  EXPECT_EQ(c.metadata.labels.at("karpenter.sh/nodepool"), "general");
  EXPECT_EQ(c.metadata.labels.at("team"), "ml");
  EXPECT_EQ(c.metadata.labels.at("karpenter.sh/capacity-type"), "on-demand") << "the plan wins";
  EXPECT_EQ(c.metadata.labels.at("karpenter.proxmox.sinextra.dev/proxmoxnodeclass"), "default");
  EXPECT_EQ(c.metadata.annotations.at("note"), "from the template");
  EXPECT_EQ(c.metadata.annotations.at("karpenter.sh/nodepool-hash"), "99");
  EXPECT_EQ(c.metadata.annotations.at("karpenter.sh/nodepool-hash-version"), "kp-v1");
  EXPECT_EQ(c.metadata.annotations.at("karpenter.sh/nodeclaim-min-values-relaxed"), "false");
  EXPECT_EQ(c.metadata.annotations.count("unrelated"), 0u);
  EXPECT_EQ(c.metadata.annotations.count("karpenter.proxmox.sinextra.dev/nodeclass-hash"), 0u)
      << "the launch stamps the node class hash it launched with";
  EXPECT_EQ(c.spec.node_class_ref.name, "default") << "the template's when the plan has none";
  EXPECT_EQ(c.spec.termination_grace_period, "1h");
  EXPECT_EQ(c.spec.expire_after, "720h");
  EXPECT_EQ(c.spec.resource_requests.at("cpu"), "500m");
  ASSERT_EQ(c.spec.taints.size(), 1u);
  EXPECT_EQ(c.spec.taints[0].key, "dedicated");
  ASSERT_EQ(c.metadata.owner_references.size(), 1u);
  EXPECT_EQ(c.metadata.owner_references[0].kind, "NodePool");
  EXPECT_EQ(c.metadata.owner_references[0].name, "general");
  EXPECT_EQ(c.metadata.owner_references[0].uid, "uid-general");
  EXPECT_EQ(c.metadata.owner_references[0].block_owner_deletion, std::optional<bool>(true));
  bool type_listed = false;
  for (const auto& r : c.spec.requirements)
    if (r.key == "node.kubernetes.io/instance-type" && r.operator_ == "In" &&
        r.values == std::vector<std::string>{in.snap.instance_types[0].name})
      type_listed = true;
  EXPECT_TRUE(type_listed);
}

TEST(NodeClaimFromPlan, StampsNoHashAPoolDoesNotCarryYet) {
  auto p = pool();
  p.metadata.annotations.clear();
  p.spec.template_.spec.expire_after = "24h";
  auto in = planned_on(p);
  in.planned.min_values_relaxed = true;
  auto c = nodeclaim_from_plan(in.planned, in.snap, p, "general-bcdfg");
  EXPECT_EQ(c.metadata.annotations.count("karpenter.sh/nodepool-hash"), 0u);
  EXPECT_EQ(c.metadata.annotations.count("karpenter.sh/nodepool-hash-version"), 0u);
  EXPECT_EQ(c.metadata.annotations.at("karpenter.sh/nodeclaim-min-values-relaxed"), "true");
  EXPECT_EQ(c.spec.expire_after, "24h");
}

}  // namespace
}  // namespace kp::kube
