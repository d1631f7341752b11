#include <gtest/gtest.h>

#include "protocol/kube/codec.hpp"
#include "protocol/kube/karpenter_v1alpha1.hpp"
#include "protocol/kube/node_overlay_translation.hpp"

namespace kp::kube {
namespace {

constexpr const char* overlay_json = R"({
  "apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay",
  "metadata": {"name": "dongles", "generation": 2},
  "spec": {
    "requirements": [{"key": "karpenter.proxmox.sinextra.dev/instance-family",
                      "operator": "In", "values": ["t1"]}],
    "priceAdjustment": "-10%",
    "capacity": {"example.com/dongle": 1},
    "weight": 20
  },
  "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "Ready",
                             "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
})";

TEST(NodeOverlayCodec, ANodeOverlayDecodesWithItsSpecAndStatusAndEncodesBack) {
  auto o = decode<node_overlay>(overlay_json);
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->metadata.name, "dongles");
  ASSERT_EQ(o->spec.requirements.size(), 1u);
  EXPECT_EQ(o->spec.requirements[0].operator_, "In");
  EXPECT_EQ(o->spec.price_adjustment, "-10%");
  EXPECT_FALSE(o->spec.price);
  EXPECT_EQ(o->spec.capacity.at("example.com/dongle"), "1");
  EXPECT_EQ(o->spec.weight, 20);
  ASSERT_EQ(o->status.conditions.size(), 1u);
  auto again = decode<node_overlay>(encode(*o));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(*again, *o);
  EXPECT_NE(encode(*o).find("\"karpenter.sh/v1alpha1\""), std::string::npos);
}

TEST(NodeOverlayCodec, TheTranslationKeepsWhatItCannotReadAsTheReasonToRefuse) {
  auto o = decode<node_overlay>(overlay_json);
  ASSERT_TRUE(o) << o.error().message;
  auto good = to_overlay(*o);
  EXPECT_EQ(good.unreadable, "");
  EXPECT_EQ(good.weight, 20);
  EXPECT_EQ(good.capacity.milli("example.com/dongle"), 1000);
  o->spec.capacity["example.com/dongle"] = "lots";
  auto bad = to_overlay(*o);
  EXPECT_NE(bad.unreadable.find("spec.capacity"), std::string::npos);
  o->spec.capacity.clear();
  o->spec.weight = 0;
  EXPECT_NE(to_overlay(*o).unreadable.find("spec.weight"), std::string::npos);
}

}  // namespace
}  // namespace kp::kube
