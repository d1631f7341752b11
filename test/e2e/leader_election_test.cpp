// Two controller replicas never both provision: with both running, each pending pod leads to one
// clone only (Proxmox saw as many clones as there are VMs and NodeClaims); when one replica dies,
// the other takes the Lease over and provisions the next pods.
#include "sim/lab/proxmox_calls.hpp"
#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

class leader_election : public e2e_test {};

TEST_F(leader_election, twoReplicasNeverBothProvisionAndTheSurvivorTakesOver) {
  KP_E2E_START();
  auto a = start_controller();
  start_controller();
  scale("web", 8, "500m", "1Gi");
  ASSERT_TRUE(wait_for([](const cluster_view& v) { return v.running() == 8; }, 45s)) << diagnose();
  auto v = view();
  auto calls = lab::read_proxmox_calls(*world);
  ASSERT_TRUE(calls.ok());
  EXPECT_EQ(calls->vms_created, static_cast<long>(v.vms.size())) << calls->summary() << diagnose();
  EXPECT_EQ(v.vm_names(), v.nodeclaim_names()) << diagnose();
  EXPECT_EQ(leaks(v), "");

  auto leases = world->list("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases");
  ASSERT_TRUE(leases.ok());
  int held = 0;
  for (const auto& l : *leases) {
    const auto& spec = l.as_object().at("spec").as_object();
    if (auto* h = spec.if_contains("holderIdentity");
        h && h->is_string() && !h->as_string().empty())
      ++held;
  }
  EXPECT_EQ(held, 1) << "expected one leader Lease held";

  world->kill_controller(a);
  scale("web", 12, "500m", "1Gi");
  ASSERT_TRUE(wait_for([](const cluster_view& v) { return v.running() == 12; }, 45s)) << diagnose();
  auto after = view();
  auto calls_after = lab::read_proxmox_calls(*world);
  ASSERT_TRUE(calls_after.ok());
  EXPECT_EQ(calls_after->vms_created, static_cast<long>(after.vms.size())) << diagnose();
  EXPECT_EQ(leaks(after), "");
}

}  // namespace
}  // namespace kp::e2e
