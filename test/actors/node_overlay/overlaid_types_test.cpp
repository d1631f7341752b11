#include "actors/node_overlay/overlaid_types.hpp"

#include <gtest/gtest.h>

#include "core/instance_types/instance_type.hpp"

namespace kp::actors::node_overlay {
namespace {

protocol::cluster_snapshot snapshot_with(std::vector<kube::node_overlay> overlays) {
  protocol::cluster_snapshot s;
  auto map = std::make_shared<protocol::object_map<kube::node_overlay>>();
  for (auto& o : overlays) {
    auto key = o.metadata.name;
    (*map)[key] = std::make_shared<const kube::node_overlay>(std::move(o));
  }
  s.node_overlays = map;
  auto classes = std::make_shared<protocol::object_map<kube::proxmox_node_class>>();
  kube::proxmox_node_class nc;
  nc.metadata.name = "default";
  nc.status.selected_zones = {"r1/pve1/9000"};
  (*classes)["default"] = std::make_shared<const kube::proxmox_node_class>(nc);
  s.node_classes = classes;
  return s;
}

kube::node_overlay overlay(std::string name, std::string family, std::string adjustment) {
  kube::node_overlay o;
  o.metadata.name = std::move(name);
  o.spec.requirements = {
      {"karpenter.proxmox.sinextra.dev/instance-family", "In", {std::move(family)}, {}}};
  o.spec.price_adjustment = std::move(adjustment);
  return o;
}

TEST(OverlaidTypes, TheSnapshotsOverlaysChangeTheCatalogueWithOfferingsFromTheNodeClasses) {
  auto snap = snapshot_with({overlay("dearer-c1", "c1", "+1")});
  auto types = with_node_class_offerings(instance_types::builtin_instance_types(), snap);
  ASSERT_FALSE(types.front().offerings.empty());
  auto out = overlaid(types, snap);
  for (std::size_t i = 0; i < out.size(); ++i) {
    double before = types[i].offerings.front().price;
    double after = out[i].offerings.front().price;
    if (out[i].family == "c1")
      EXPECT_DOUBLE_EQ(after, before + 1) << out[i].name;
    else
      EXPECT_DOUBLE_EQ(after, before) << out[i].name;
  }
}

TEST(OverlaidTypes, WithoutOverlaysTheTypesComeBackUnchanged) {
  auto snap = snapshot_with({});
  auto types = with_node_class_offerings(instance_types::builtin_instance_types(), snap);
  EXPECT_EQ(overlaid(types, snap), types);
  protocol::cluster_snapshot gate_off;  // nothing watched NodeOverlays: no map at all
  EXPECT_EQ(overlaid(types, gate_off), types);
}

TEST(OverlaidTypes, AnUnknownOperatorIsReportedAsInvalidNamingTheField) {
  auto bad = overlay("bad", "c1", "+1");
  bad.spec.requirements[0].operator_ = "Near";
  auto snap = snapshot_with({bad});
  auto r = overlay_types(with_node_class_offerings(instance_types::builtin_instance_types(), snap),
                         snap);
  ASSERT_EQ(r.verdicts.size(), 1u);
  EXPECT_EQ(r.verdicts[0].kind, overlays::verdict_kind::invalid);
  EXPECT_NE(r.verdicts[0].message.find("spec.requirements[0].operator"), std::string::npos);
}

}  // namespace
}  // namespace kp::actors::node_overlay
