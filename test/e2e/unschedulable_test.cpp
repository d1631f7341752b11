// Pods that fit nowhere get a clear reason (a FailedScheduling Event from the controller) and
// create no NodeClaim and no VM; a schedulable pod made afterwards still gets exactly one node,
// which shows the controller went past the unschedulable ones.
#include <boost/json.hpp>

#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

namespace json = boost::json;

class unschedulable : public e2e_test {
 protected:
  // The message of the controller's FailedScheduling Event for a pod, "" when none yet.
  std::string failed_scheduling(const std::string& pod_prefix) {
    auto events = world->list("/api/v1/namespaces/default/events");
    if (!events) return {};
    for (const auto& e : *events) {
      const auto& o = e.as_object();
      auto reason = o.if_contains("reason");
      if (reason == nullptr || !reason->is_string() || reason->as_string() != "FailedScheduling")
        continue;
      std::string component;
      if (auto* rc = o.if_contains("reportingComponent"); rc && rc->is_string())
        component = rc->as_string();
      if (auto* src = o.if_contains("source"); component.empty() && src && src->is_object())
        if (auto* c = src->as_object().if_contains("component"); c && c->is_string())
          component = c->as_string();
      if (component.find("karpenter") == std::string::npos) continue;
      auto* involved = o.if_contains("involvedObject");
      if (involved == nullptr || !involved->is_object()) continue;
      auto* name = involved->as_object().if_contains("name");
      if (name == nullptr || !name->is_string()) continue;
      if (std::string(name->as_string()).rfind(pod_prefix, 0) != 0) continue;
      auto* message = o.if_contains("message");
      return message && message->is_string() ? std::string(message->as_string()) : "(no message)";
    }
    return {};
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
