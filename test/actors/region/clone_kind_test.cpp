// Which clone a launch makes: full when the node class asks, linked from a template whose disk's
// storage can hold linked clones, and full (or, when linked was asked for, an error) otherwise.
#include "actors/region/clone_kind.hpp"

#include <gtest/gtest.h>

namespace kp::actors::region {
namespace {

TEST(CloneKind, ThinStoragesAndQcow2FilesHoldLinkedClonesPlainLvmDoesNot) {
  EXPECT_TRUE(supports_linked_clone("lvmthin", "local-lvm:base-9000-disk-0"));
  EXPECT_TRUE(supports_linked_clone("zfspool", "tank:base-9000-disk-0"));
  EXPECT_TRUE(supports_linked_clone("rbd", "ceph:base-9000-disk-0"));
  EXPECT_TRUE(supports_linked_clone("dir", "local:9000/base-9000-disk-0.qcow2"));
  EXPECT_FALSE(supports_linked_clone("dir", "local:9000/base-9000-disk-0.raw"));
  EXPECT_FALSE(supports_linked_clone("nfs", "nas:9000/base-9000-disk-0.vmdk"));
  EXPECT_FALSE(supports_linked_clone("lvm", "vg:base-9000-disk-0"));
  EXPECT_FALSE(supports_linked_clone("iscsi", "san:0.0.1.scsi-x"));
  EXPECT_TRUE(supports_linked_clone("", "x:base-9000-disk-0")) << "unknown: Proxmox decides";
}

TEST(CloneKind, WithoutCloneModeATemplateIsLinkedWhereItsStorageCanElseCopied) {
  EXPECT_EQ(full_clone("", true, "lvmthin", "local-lvm:base-9000-disk-0").value(), false);
  EXPECT_EQ(full_clone("", true, "lvm", "vg:base-9000-disk-0").value(), true);
  EXPECT_EQ(full_clone("", false, "lvmthin", "local-lvm:vm-9000-disk-0").value(), true)
      << "a VM that is not a template can only be copied";
}

TEST(CloneKind, FullIsAlwaysFullAndLinkedWhereItCannotBeIsAnErrorNamingTheStorage) {
  EXPECT_EQ(full_clone("full", true, "lvmthin", "local-lvm:base-9000-disk-0").value(), true);
  EXPECT_EQ(full_clone("linked", true, "lvmthin", "local-lvm:base-9000-disk-0").value(), false);
  auto refused = full_clone("linked", true, "lvm", "vg:base-9000-disk-0");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, "invalid_request");
  EXPECT_NE(refused.error().message.find("vg:base-9000-disk-0"), std::string::npos);
  EXPECT_NE(refused.error().message.find("lvm"), std::string::npos);
}

}  // namespace
}  // namespace kp::actors::region
