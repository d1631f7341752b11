#include <gtest/gtest.h>

#include "core/ownership/vm_mark.hpp"

namespace kp::ownership {
namespace {

TEST(OwnershipMark, FormatsTheLineOfTheDesign) {
  EXPECT_EQ(format_ownership_mark({"prod", "default-abc12", "default", ""}),
            "karpenter-proxmox: cluster=prod, nodeclaim=default-abc12, nodepool=default");
}

TEST(OwnershipMark, RoundTripsWithAnAffinityPlanHoldingCommas) {
  ownership_mark m{"prod", "pool-x1", "pool", "0-3,16-19"};
  auto parsed = parse_ownership_mark(format_ownership_mark(m));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, m);
  EXPECT_EQ(description_affinity(format_ownership_mark(m)), "0-3,16-19");
}

TEST(OwnershipMark, IsFoundOnAnyLineOfTheDescription) {
  auto parsed = parse_ownership_mark(
      "made by hand\nkarpenter-proxmox: cluster=c1, nodeclaim=n1, nodepool=p1\nmore text");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->cluster, "c1");
  EXPECT_EQ(parsed->nodeclaim, "n1");
  EXPECT_EQ(parsed->nodepool, "p1");
}

TEST(OwnershipMark, MalformedDescriptionsAreIgnored) {
  EXPECT_FALSE(parse_ownership_mark(""));
  EXPECT_FALSE(parse_ownership_mark("Cloud-init ready Kubernetes node template"));
  EXPECT_FALSE(parse_ownership_mark("karpenter-proxmox:"));
  EXPECT_FALSE(parse_ownership_mark("karpenter-proxmox: cluster=, nodeclaim=n"));
  EXPECT_FALSE(parse_ownership_mark("karpenter-proxmox: nodeclaim=n, nodepool=p"));
  EXPECT_FALSE(parse_ownership_mark("karpenter-proxmox: cluster=c, nodeclaim"));
  EXPECT_FALSE(parse_ownership_mark("karpenter-proxmox: cluster=c, nodeclaim=n, owner=x"));
  EXPECT_FALSE(parse_ownership_mark("see karpenter-proxmox: cluster=c, nodeclaim=n"));
}

TEST(OwnershipMark, AnotherClustersMarkParsesWithItsOwnClusterName) {
  auto parsed = parse_ownership_mark("karpenter-proxmox: cluster=other, nodeclaim=n, nodepool=p");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_NE(parsed->cluster, "prod");
  EXPECT_EQ(parsed->cluster, "other");
}

TEST(OwnershipMark, RecognisesTheGoProvidersDescriptionAndItsAffinity) {
  std::string go =
      "Karpenter managed instance, class=default, capacity-type=on-demand, affinity=2-5";
  EXPECT_TRUE(is_go_provider_description(go));
  EXPECT_FALSE(parse_ownership_mark(go));
  EXPECT_EQ(description_affinity(go), "2-5");
  EXPECT_EQ(description_affinity("affinity=1-2"), "");
}

}  // namespace
}  // namespace kp::ownership
