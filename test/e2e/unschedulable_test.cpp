// Pods that fit nowhere get a clear reason (a FailedScheduling Event from the controller) and
// create no NodeClaim and no VM; a schedulable pod made afterwards still gets exactly one node,
// which shows the controller went past the unschedulable ones.
#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

class unschedulable : public e2e_test {
 protected:
  std::string failed_scheduling(const std::string& pod_prefix) {
    return controller_event("FailedScheduling", pod_prefix);
  }
};

TEST_F(unschedulable, podsThatFitNowhereGetAClearReasonAndCreateNothing) {
  KP_E2E_START();
  start_controller();
  // Larger than any host (32 CPUs), and an architecture the NodePool does not offer.
  scale("huge", 1, "200", "1Gi");
  apply(R"(
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: arm, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: arm}}
  template:
    metadata: {labels: {app: arm}}
    spec:
      nodeSelector: {kubernetes.io/arch: arm64}
      containers: [{name: app, image: pause, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
)");
  std::string huge, arm;
  ASSERT_TRUE(lab::lab_world::eventually(
      [&] {
        huge = failed_scheduling("huge-");
        arm = failed_scheduling("arm-");
        return !huge.empty() && !arm.empty();
      },
      20s))
      << "FailedScheduling events: huge=\"" << huge << "\" arm=\"" << arm << "\"" << diagnose();
  EXPECT_GT(huge.size(), 20u) << huge;
  EXPECT_GT(arm.size(), 20u) << arm;

  scale("fits", 1, "250m", "256Mi");
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) {
        for (const auto& p : v.pods)
          if (p.name.rfind("fits-", 0) == 0 && p.phase == "Running") return true;
        return false;
      },
      40s))
      << diagnose();
  auto v = view();
  EXPECT_EQ(v.nodeclaims.size(), 1u) << diagnose();
  EXPECT_EQ(v.vms.size(), 1u) << diagnose();
  for (const auto& p : v.pods)
    if (p.name.rfind("huge-", 0) == 0 || p.name.rfind("arm-", 0) == 0) {
      EXPECT_EQ(p.phase, "Pending");
    }
}

}  // namespace
}  // namespace kp::e2e
