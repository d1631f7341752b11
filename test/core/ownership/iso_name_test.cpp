#include <gtest/gtest.h>

#include "core/ownership/iso_name.hpp"

namespace kp::ownership {
namespace {

TEST(IsoName, CarriesTheClusterTagTheVmidAndTheNodeClaim) {
  auto name = iso_file_name("prod", 20007, "default-abc12");
  EXPECT_EQ(name, "kp-" + cluster_tag("prod") + "-20007-default-abc12.iso");
  auto parsed = parse_iso_name("local:iso/" + name);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->cluster_tag, cluster_tag("prod"));
  EXPECT_EQ(parsed->vmid, 20007u);
  EXPECT_EQ(parsed->nodeclaim, "default-abc12");
}

TEST(IsoName, TwoClustersGetDifferentTags) {
  EXPECT_NE(cluster_tag("prod"), cluster_tag("staging"));
  EXPECT_EQ(cluster_tag("prod").size(), 8u);
  EXPECT_EQ(cluster_tag("prod"), cluster_tag("prod"));
}

TEST(IsoName, OtherFileNamesAreNotOurs) {
  for (const char* other : {"local:iso/debian-12.iso", "local:iso/user-data-20007.iso",
                            "kp-zzzzzzzz-1-a.iso", "kp-0123abcd-x-a.iso", "kp-0123abcd-12-.iso",
                            "kp-0123abcd-0-a.iso", "kp-0123abcd-12-a.img"}) {
    EXPECT_FALSE(parse_iso_name(other).has_value()) << other;
  }
}

TEST(IsoName, OnlyTheIsoOfThatVmAndNodeClaimIsOurs) {
  auto volid = "local:iso/" + iso_file_name("prod", 20007, "default-abc12");
  EXPECT_TRUE(is_our_iso(volid, "prod", 20007, "default-abc12"));
  EXPECT_FALSE(is_our_iso(volid, "staging", 20007, "default-abc12"));
  EXPECT_FALSE(is_our_iso(volid, "prod", 20008, "default-abc12"));
  EXPECT_FALSE(is_our_iso(volid, "prod", 20007, "default-zzz99"));
  EXPECT_TRUE(is_our_iso("local:iso/user-data-20007.iso", "prod", 20007, "default-abc12"))
      << "the name of earlier versions, on a VM whose mark was checked";
  EXPECT_FALSE(is_our_iso("local:iso/user-data-20008.iso", "prod", 20007, "default-abc12"));
}

}  // namespace
}  // namespace kp::ownership
