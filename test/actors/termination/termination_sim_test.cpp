// The termination actor against real kube-sim and pve-sim processes and a real region actor:
// deleting a NodeClaim taints and drains its Node through the Eviction API (a PDB with
// maxUnavailable 0 blocks until relaxed), deletes the VM in pve-sim, then the Node and both
// finalizers; a claim that never launched is finished after the region deletes by name; a Node
// deleted first takes its NodeClaim with it. Snapshots are built by listing kube-sim.
#include <gtest/gtest.h>

#include "actors/termination/termination_actor.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/kube/policy_v1.hpp"
#include "protocol/kube/storage_v1.hpp"
#include "test/actors/termination/sim_world.hpp"

namespace kp::test {
namespace {

using namespace std::chrono_literals;

class TerminationSim : public sim_world {
 protected:
  protocol::termination_actor spawn() { return track(actors::spawn_termination(sys(), context())); }
  // Sends a fresh snapshot each poll, as cluster_state would on every change.
  std::function<void()> feed(protocol::termination_actor a) {
    return [this, a] { caf::anon_send(a, snapshot()); };
  }
  bool pod_running(const std::string& name) {
    auto p = get<kube::pod>("default", name);
    return p.ok() && p->status.phase == "Running";
  }
};

TEST_F(TerminationSim, DeletingANodeClaimDrainsThroughAPdbThenDeletesVmNodeAndFinalizers) {
  auto vm = launch(region(), "claim-a");
  ASSERT_TRUE(vm.ok) << vm.error.code << ": " << vm.error.message;
  make_node("node-a", vm.provider_id);
  make_claim("claim-a", vm.provider_id, "node-a");
  make_pod("web-1", "node-a", "web");
  make_pod("web-2", "node-a", "web");
  make_pod("agent", "node-a", "agent", /*tolerate_disrupted=*/true);
  kube::pod_disruption_budget pdb;
  pdb.metadata.namespace_ = "default";
  pdb.metadata.name = "web";
  pdb.spec.max_unavailable = kube::int_or_string{true, 0, ""};
  pdb.spec.selector = kube::label_selector{{{"app", "web"}}, {}};
  ASSERT_TRUE(create(pdb).ok());
  ASSERT_TRUE(eventually([&] { return pod_running("web-1") && pod_running("web-2"); }, 20s));
  ASSERT_TRUE(eventually(
      [&] {
        auto p = get<kube::pod_disruption_budget>("default", "web");
        return p.ok() && p->status.current_healthy == 2;
      },
      20s));

  auto actor = spawn();
  ASSERT_TRUE(remove<kube::node_claim>("", "claim-a").ok());
  // The PDB allows no disruption: evictions are refused (429) and retried; nothing is deleted.
  ASSERT_TRUE(eventually(
      [&] {
        return metric("karpenter_pods_eviction_requests_total", {{"code", "429"}}) >= 2;
      },
      30s, feed(actor)));
  auto node = get<kube::node>("", "node-a");
  ASSERT_TRUE(node.ok());
  bool tainted = false;
  for (const auto& t : node->spec.taints) {
    tainted |= t.key == "karpenter.sh/disrupted" && t.effect == "NoSchedule";
  }
  EXPECT_TRUE(tainted);
  EXPECT_EQ(node->metadata.labels["node.kubernetes.io/exclude-from-external-load-balancers"],
            "karpenter");
  EXPECT_TRUE(pod_running("web-1"));
  EXPECT_TRUE(pod_running("web-2"));
  EXPECT_TRUE(vm_exists(vm.vmid));
  EXPECT_TRUE(exists<kube::node_claim>("", "claim-a"));

  // Relaxed, the drain goes through and everything else follows.
  ASSERT_TRUE(patch<kube::pod_disruption_budget>("default", "web", kube::patch_type::merge,
                                                 R"({"spec":{"maxUnavailable":2}})")
                  .ok());
  ASSERT_TRUE(
      eventually([&] { return !exists<kube::node_claim>("", "claim-a"); }, 60s, feed(actor)));
  EXPECT_FALSE(vm_exists(vm.vmid));
  EXPECT_FALSE(exists<kube::node>("", "node-a"));
  EXPECT_FALSE(exists<kube::pod>("default", "web-1"));
  EXPECT_FALSE(exists<kube::pod>("default", "web-2"));
  EXPECT_GE(metric("karpenter_pods_eviction_requests_total", {{"code", "200"}}), 2);
  EXPECT_EQ(metric("karpenter_nodeclaims_terminated_total", {{"nodepool", "default"}}), 1);
  EXPECT_EQ(metric("karpenter_nodes_terminated_total", {{"nodepool", "default"}}), 1);
  EXPECT_EQ(metric("karpenter_nodes_drained_total", {{"nodepool", "default"}}), 1);
  EXPECT_EQ(metric("karpenter_nodeclaims_termination_duration_seconds"), 1);
  EXPECT_GE(metric("karpenter_pods_drained_total"), 2);
  EXPECT_TRUE(has_event("NodeClaim", "claim-a", "Terminating"));
  EXPECT_TRUE(has_event("Node", "node-a", "FailedDraining"));
  EXPECT_TRUE(has_event("Pod", "web-1", "Evicted"));
  EXPECT_TRUE(has_event("Pod", "web-2", "Evicted"));
}

TEST_F(TerminationSim, AClaimThatNeverLaunchedLosesItsFinalizerAfterTheRegionDeletesByName) {
  // The launch succeeded in Proxmox but its reply never reached the NodeClaim's status.
  auto vm = launch(region(), "claim-lost-reply");
  ASSERT_TRUE(vm.ok) << vm.error.message;
  make_claim("claim-lost-reply", "", "");
  make_claim("claim-never", "", "");
  auto actor = spawn();
  ASSERT_TRUE(remove<kube::node_claim>("", "claim-lost-reply").ok());
  ASSERT_TRUE(remove<kube::node_claim>("", "claim-never").ok());
  ASSERT_TRUE(eventually(
      [&] {
        return !exists<kube::node_claim>("", "claim-lost-reply") &&
               !exists<kube::node_claim>("", "claim-never");
      },
      60s, feed(actor)));
  EXPECT_FALSE(vm_exists(vm.vmid));
}

TEST_F(TerminationSim, ANodeDeletedFirstTakesItsNodeClaimAndItsVm) {
  auto vm = launch(region(), "claim-b");
  ASSERT_TRUE(vm.ok) << vm.error.message;
  make_node("node-b", vm.provider_id);
  make_claim("claim-b", vm.provider_id, "node-b");
  make_pod("job-1", "node-b", "job");
  ASSERT_TRUE(eventually([&] { return pod_running("job-1"); }, 20s));
  auto actor = spawn();
  ASSERT_TRUE(remove<kube::node>("", "node-b").ok());
  ASSERT_TRUE(eventually(
      [&] { return !exists<kube::node_claim>("", "claim-b") && !exists<kube::node>("", "node-b"); },
      60s, feed(actor)));
  EXPECT_FALSE(vm_exists(vm.vmid));
  EXPECT_FALSE(exists<kube::pod>("default", "job-1"));
}

TEST_F(TerminationSim, ANodeWithoutNodeClaimWaitsForItsVolumeAttachmentsThenLosesVmAndFinalizer) {
  // Our Node is named like the NodeClaim its VM was launched for (VM name = hostname): with
  // that NodeClaim gone, the Node's name is the owner the VM's mark must name.
  auto vm = launch(region(), "node-d");
  ASSERT_TRUE(vm.ok) << vm.error.message;
  make_node("node-d", vm.provider_id);
  kube::volume_attachment va;
  va.metadata.name = "csi-node-d";
  va.attacher = "csi.example.com";
  va.node_name = "node-d";
  va.persistent_volume_name = "pv-1";
  ASSERT_TRUE(create(va).ok());
  auto actor = spawn();
  ASSERT_TRUE(remove<kube::node>("", "node-d").ok());
  // Drained at once (no pods), then held by the attachment: the VM stays.
  ASSERT_TRUE(eventually(
      [&] {
        return metric("karpenter_nodes_drained_total", {{"nodepool", "default"}}) == 1;
      },
      30s, feed(actor)));
  for (int i = 0; i < 3; ++i) caf::anon_send(actor, snapshot());
  EXPECT_TRUE(vm_exists(vm.vmid));
  EXPECT_TRUE(exists<kube::node>("", "node-d"));
  ASSERT_TRUE(remove<kube::volume_attachment>("", "csi-node-d").ok());
  ASSERT_TRUE(eventually([&] { return !exists<kube::node>("", "node-d"); }, 60s, feed(actor)));
  EXPECT_FALSE(vm_exists(vm.vmid));
  EXPECT_EQ(metric("karpenter_nodes_terminated_total", {{"nodepool", "default"}}), 1);
}

TEST_F(TerminationSim, DoNotDisruptHoldsTheDrainUntilTheGracePeriodThenThePodIsDeleted) {
  auto vm = launch(region(), "claim-c");
  ASSERT_TRUE(vm.ok) << vm.error.message;
  make_node("node-c", vm.provider_id);
  make_claim("claim-c", vm.provider_id, "node-c", "4s");
  kube::pod p;
  p.metadata.namespace_ = "default";
  p.metadata.name = "precious";
  p.metadata.annotations["karpenter.sh/do-not-disrupt"] = "true";
  p.spec.node_name = "node-c";
  p.spec.termination_grace_period_seconds = 1;
  kube::container c;
  c.name = "main";
  c.image = "registry.k8s.io/pause:3.10";
  p.spec.containers = {c};
  ASSERT_TRUE(create(p).ok());
  ASSERT_TRUE(eventually([&] { return pod_running("precious"); }, 20s));
  auto actor = spawn();
  ASSERT_TRUE(remove<kube::node_claim>("", "claim-c").ok());
  auto claim = get<kube::node_claim>("", "claim-c");
  ASSERT_TRUE(claim.ok());
  ASSERT_TRUE(claim->metadata.deletion_timestamp.has_value());
  ASSERT_TRUE(
      eventually([&] { return !exists<kube::node_claim>("", "claim-c"); }, 60s, feed(actor)));
  // Never evicted (do-not-disrupt): deleted once the grace period ran out.
  EXPECT_EQ(metric("karpenter_pods_eviction_requests_total"), 0);
  EXPECT_FALSE(exists<kube::pod>("default", "precious"));
  EXPECT_FALSE(vm_exists(vm.vmid));
  auto gone_at = context().wall_clock_ms();
  auto deleted_at = kube::parse_rfc3339_ms(*claim->metadata.deletion_timestamp);
  ASSERT_TRUE(deleted_at.has_value());
  EXPECT_GE(gone_at - *deleted_at, 2000) << "the pod held the drain until its grace ran out";
}

}  // namespace
}  // namespace kp::test
