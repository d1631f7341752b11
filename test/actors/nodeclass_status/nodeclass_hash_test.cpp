// The node class hash drift compares: what a running VM can take in place never changes it.
#include <gtest/gtest.h>

#include "actors/nodeclass_status/nodeclass_hash.hpp"

namespace kp::actors::nodeclass_status {
namespace {

kube::proxmox_node_class node_class() {
  kube::proxmox_node_class nc;
  nc.metadata.name = "default";
  nc.spec.instance_template_ref = {"ProxmoxUnmanagedTemplate", "k8s"};
  nc.spec.metadata.type = "cdrom";
  nc.spec.tags = {"lab"};
  return nc;
}

TEST(NodeClassHash, InPlaceAndPlacementFieldsNeverChangeIt) {
  auto before = node_class();
  auto after = before;
  after.spec.tags = {"lab", "rolled"};
  after.spec.security_groups.push_back({"net0", "kubernetes"});
  after.spec.resource_pool = "kubernetes";
  after.spec.zone_balance = "Pack";
  after.spec.excluded_zones = {"pve3"};
  after.spec.min_free_cpu = 2;
  after.metadata.annotations["unrelated"] = "x";
  EXPECT_EQ(nodeclass_hash(before), nodeclass_hash(after));
}

TEST(NodeClassHash, WhatARunningVmCannotTakeChangesIt) {
  auto base = node_class();
  auto kubelet = base;
  kubelet.spec.kubelet = kube::kubelet_configuration{};
  kubelet.spec.kubelet->max_pods = 60;
  auto tmpl = base;
  tmpl.spec.instance_template_ref.name = "k8s-2";
  auto keys = base;
  keys.spec.ssh_keys = {"ssh-ed25519 AAAA user"};
  for (const auto* changed : {&kubelet, &tmpl, &keys}) {
    EXPECT_NE(nodeclass_hash(base), nodeclass_hash(*changed));
  }
}

TEST(NodeClassHash, IsCurrentOnlyWithItsValueAndOurVersion) {
  auto nc = node_class();
  EXPECT_FALSE(nodeclass_hash_current(nc));
  nc.metadata.annotations["karpenter.proxmox.sinextra.dev/nodeclass-hash"] = nodeclass_hash(nc);
  nc.metadata.annotations["karpenter.proxmox.sinextra.dev/nodeclass-hash-version"] = "v1";
  EXPECT_FALSE(nodeclass_hash_current(nc)) << "another algorithm's version re-stamps";
  nc.metadata.annotations["karpenter.proxmox.sinextra.dev/nodeclass-hash-version"] =
      nodeclass_hash_version;
  EXPECT_TRUE(nodeclass_hash_current(nc));
}

}  // namespace
}  // namespace kp::actors::nodeclass_status
