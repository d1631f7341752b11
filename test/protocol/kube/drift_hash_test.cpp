// The drift hashes: the NodePool template's and the node class's. What a running VM can take in
// place never changes the node class hash; requirements and taint order never change the pool's.
#include "protocol/kube/drift_hash.hpp"

#include <gtest/gtest.h>

namespace kp::kube {
namespace {

node_pool pool() {
  node_pool p;
  p.metadata.name = "general";
  auto& s = p.spec.template_.spec;
  s.node_class_ref = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass", "default"};
  s.requirements.push_back({"kubernetes.io/arch", "In", {"amd64"}, std::nullopt});
  return p;
}

TEST(NodePoolHash, changesWithTheTemplateButNotWithRequirementsOrTaintOrder) {
  auto base = pool();
  base.spec.template_.spec.taints = {{"a", "1", "NoSchedule", ""}, {"b", "", "NoExecute", ""}};
  const auto h = nodepool_hash(base);
  auto reordered = base;
  std::swap(reordered.spec.template_.spec.taints[0], reordered.spec.template_.spec.taints[1]);
  EXPECT_EQ(nodepool_hash(reordered), h);
  auto other_requirements = base;
  other_requirements.spec.template_.spec.requirements.clear();
  EXPECT_EQ(nodepool_hash(other_requirements), h);
  auto relabelled = base;
  relabelled.spec.template_.metadata.labels["team"] = "a";
  EXPECT_NE(nodepool_hash(relabelled), h);
  auto expiring = base;
  expiring.spec.template_.spec.expire_after = "24h";
  EXPECT_NE(nodepool_hash(expiring), h);
}

TEST(NodePoolHash, isCurrentOnlyWithOurValueAndVersion) {
  auto p = pool();
  EXPECT_FALSE(nodepool_hash_current(p));
  p.metadata.annotations["karpenter.sh/nodepool-hash"] = nodepool_hash(p);
  EXPECT_FALSE(nodepool_hash_current(p));
  p.metadata.annotations["karpenter.sh/nodepool-hash-version"] = "v3";
  EXPECT_FALSE(nodepool_hash_current(p)) << "Karpenter's own version is another algorithm";
  p.metadata.annotations["karpenter.sh/nodepool-hash-version"] = "kp-v1";
  EXPECT_TRUE(nodepool_hash_current(p));
}

proxmox_node_class node_class() {
  proxmox_node_class nc;
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
  after.spec.clone_mode = "full";  // how new VMs are copied, not what they are
  after.metadata.annotations["unrelated"] = "x";
  EXPECT_EQ(nodeclass_hash(before), nodeclass_hash(after));
}

TEST(NodeClassHash, WhatARunningVmCannotTakeChangesIt) {
  auto base = node_class();
  auto kubelet = base;
  kubelet.spec.kubelet = kubelet_configuration{};
  kubelet.spec.kubelet->max_pods = 60;
  auto tmpl = base;
  tmpl.spec.instance_template_ref.name = "k8s-2";
  auto keys = base;
  keys.spec.ssh_keys = {"ssh-ed25519 AAAA user"};
  auto disks = base;
  disks.spec.additional_disks.push_back({"20Gi", "local-lvm", "", {}, {}, {}});
  auto bigger = disks;
  bigger.spec.additional_disks[0].size = "40Gi";
  EXPECT_NE(nodeclass_hash(disks), nodeclass_hash(bigger)) << "a resized data disk drifts";
  auto ssd = disks;
  ssd.spec.additional_disks[0].ssd = true;
  EXPECT_NE(nodeclass_hash(disks), nodeclass_hash(ssd));
  auto gpu = base;
  gpu.spec.pci_devices.push_back({"gpu", "nvidia.com/gpu", {}, {}, ""});
  auto two_gpus = gpu;
  two_gpus.spec.pci_devices[0].count = 2;
  EXPECT_NE(nodeclass_hash(gpu), nodeclass_hash(two_gpus)) << "another device count drifts";
  for (const auto* changed : {&kubelet, &tmpl, &keys, &disks, &gpu}) {
    EXPECT_NE(nodeclass_hash(base), nodeclass_hash(*changed));
  }
}

// The value a node class without additionalDisks or cloneMode hashed to before either field
// existed: new optional fields must leave it alone, or every running cluster drifts on upgrade.
TEST(NodeClassHash, ANodeClassWithoutTheNewerFieldsKeepsItsEarlierHash) {
  auto nc = node_class();
  nc.spec.boot = {"30G", "local-lvm"};
  EXPECT_EQ(nodeclass_hash(nc), "3768667570298569945");
}

TEST(NodeClassHash, IsCurrentOnlyWithItsValueAndOurVersion) {
  auto nc = node_class();
  EXPECT_FALSE(nodeclass_hash_current(nc));
  nc.metadata.annotations["karpenter.proxmox.sinextra.dev/nodeclass-hash"] = nodeclass_hash(nc);
  nc.metadata.annotations["karpenter.proxmox.sinextra.dev/nodeclass-hash-version"] = "v1";
  EXPECT_FALSE(nodeclass_hash_current(nc)) << "another algorithm's version re-stamps";
  nc.metadata.annotations["karpenter.proxmox.sinextra.dev/nodeclass-hash-version"] = "kp-v1";
  EXPECT_TRUE(nodeclass_hash_current(nc));
}

}  // namespace
}  // namespace kp::kube
