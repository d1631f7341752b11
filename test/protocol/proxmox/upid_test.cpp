#include "protocol/proxmox/upid.hpp"

#include <gtest/gtest.h>

namespace kp::proxmox {
namespace {

TEST(Upid, AProxmoxUpidParsesIntoItsFields) {
  auto u = parse_upid("UPID:pve1:0000ABCD:0001E240:6789ABCD:qmclone:9000:root@pam!k8s:");
  ASSERT_TRUE(u.ok()) << u.error().message;
  EXPECT_EQ(u->node, "pve1");
  EXPECT_EQ(u->pid, 0xABCDu);
  EXPECT_EQ(u->pstart, 0x1E240u);
  EXPECT_EQ(u->starttime, 0x6789ABCDu);
  EXPECT_EQ(u->type, "qmclone");
  EXPECT_EQ(u->id, "9000");
  EXPECT_EQ(u->user, "root@pam!k8s");
  EXPECT_EQ(u->text, "UPID:pve1:0000ABCD:0001E240:6789ABCD:qmclone:9000:root@pam!k8s:");
}

TEST(Upid, NinePstartDigitsAndAnEmptyIdAreAccepted) {
  auto u =
      parse_upid("UPID:node-a1:00001234:123456789:65000000:imgcopy::kubernetes@pve!karpenter:");
  ASSERT_TRUE(u.ok()) << u.error().message;
  EXPECT_EQ(u->pstart, 0x123456789u);
  EXPECT_EQ(u->id, "");
  EXPECT_EQ(u->node, "node-a1");
}

TEST(Upid, MalformedUpidsAreErrors) {
  for (const char* bad : {
           "",
           "UPID:",
           "PID:pve1:0000ABCD:0001E240:6789ABCD:qmclone:9000:root@pam:",
           "UPID:pve1:0000ABCD:0001E240:6789ABCD:qmclone:9000:root@pam",    // no trailing colon
           "UPID:pve1:ABCD:0001E240:6789ABCD:qmclone:9000:root@pam:",       // short pid
           "UPID:pve1:0000ABCG:0001E240:6789ABCD:qmclone:9000:root@pam:",   // not hex
           "UPID:-pve1:0000ABCD:0001E240:6789ABCD:qmclone:9000:root@pam:",  // bad node
           "UPID:pve1:0000ABCD:0001E240:6789ABCD::9000:root@pam:",          // no type
           "UPID:pve1:0000ABCD:0001E240:6789ABCD:qmclone:9000::",           // no user
           "UPID:pve1:0000ABCD:0001E240:6789ABCD:qm clone:9000:root@pam:",  // space
           "UPID:pve1:0000ABCD:0001E240:6789ABCD:qmclone:90/0:root@pam:",   // slash
           "UPID:pve1:0000ABCD:0001E240:6789ABCD:qmclone:9000:root@pam:extra:",
       }) {
    auto u = parse_upid(bad);
    EXPECT_FALSE(u.ok()) << bad;
    if (!u.ok()) {
      EXPECT_EQ(u.error().code, "invalid_upid");
    }
  }
}

}  // namespace
}  // namespace kp::proxmox
