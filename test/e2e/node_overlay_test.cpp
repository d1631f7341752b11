// NodeOverlays (FEATURE_GATES NodeOverlay) end to end: an overlay that raises the price of the
// cheapest family steers a pod's node to another type, one that adds an extended resource lets a
// pod asking for it get a NodeClaim, two overlays of equal weight that overlap show the conflict
// in status (and an Event), and with the gate off overlays change nothing.
#include <boost/json.hpp>

#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

namespace json = boost::json;

constexpr const char* dearer_c1 = R"(
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: dearer-c1}
spec:
  requirements:
    - {key: karpenter.proxmox.sinextra.dev/instance-family, operator: In, values: [c1]}
  priceAdjustment: "+1"
)";

const json::value* at(const json::value& v, std::initializer_list<const char*> path) {
  const json::value* p = &v;
  for (const char* k : path) {
    if (!p->is_object()) return nullptr;
    p = p->as_object().if_contains(k);
    if (p == nullptr) return nullptr;
  }
  return p;
}

std::string text_at(const json::value& v, std::initializer_list<const char*> path) {
  const auto* p = at(v, path);
  return p && p->is_string() ? std::string(p->as_string()) : "";
}

class node_overlay : public e2e_test {
 protected:
  // Instance types of the Nodes the controller made (their node.kubernetes.io/instance-type).
  std::set<std::string> node_types() {
    std::set<std::string> out;
    auto nodes = world->list("/api/v1/nodes");
    if (!nodes) return out;
    for (const auto& n : *nodes) {
      auto t = text_at(n, {"metadata", "labels", "node.kubernetes.io/instance-type"});
      if (!t.empty()) out.insert(t);
    }
    return out;
  }

  // "status/reason: message" of a condition of a NodeOverlay; "" when absent.
  std::string overlay_condition(const std::string& name, const std::string& type) {
    auto overlays = world->list("/apis/karpenter.sh/v1alpha1/nodeoverlays");
    if (!overlays) return "";
    for (const auto& o : *overlays) {
      if (text_at(o, {"metadata", "name"}) != name) continue;
      const auto* conditions = at(o, {"status", "conditions"});
      if (!conditions || !conditions->is_array()) return "";
      for (const auto& c : conditions->as_array())
        if (text_at(c, {"type"}) == type)
          return text_at(c, {"status"}) + "/" + text_at(c, {"reason"}) + ": " +
                 text_at(c, {"message"});
    }
    return "";
  }

  // NodeClaims that request the resource, with the instance types their requirements allow.
  std::map<std::string, std::vector<std::string>> claims_requesting(const std::string& resource) {
    std::map<std::string, std::vector<std::string>> out;
    auto claims = world->list("/apis/karpenter.sh/v1/nodeclaims");
    if (!claims) return out;
    for (const auto& c : *claims) {
      if (!at(c, {"spec", "resources", "requests", resource.c_str()})) continue;
      auto& types = out[text_at(c, {"metadata", "name"})];
      const auto* reqs = at(c, {"spec", "requirements"});
      if (!reqs || !reqs->is_array()) continue;
      for (const auto& r : reqs->as_array()) {
        if (text_at(r, {"key"}) != "node.kubernetes.io/instance-type") continue;
        if (const auto* vs = at(r, {"values"}); vs && vs->is_array())
          for (const auto& v : vs->as_array()) types.emplace_back(v.as_string());
      }
    }
    return out;
  }

  bool one_node_running() {
    return wait_for([](const cluster_view& v) { return v.running() == 1; }, 60s);
  }
};

TEST_F(node_overlay, anOverlayThatMakesTheCheapestFamilyDearerSteersThePodsNodeToAnotherType) {
  KP_E2E_START();
  start_controller({{"feature-gates", "NodeOverlay=true"}});
  apply(dearer_c1);
  // The controller has read the overlay once it judged it.
  ASSERT_TRUE(lab::lab_world::eventually(
      [&] { return overlay_condition("dearer-c1", "Ready").rfind("True/", 0) == 0; }, 30s))
      << overlay_condition("dearer-c1", "Ready") << diagnose();
  EXPECT_EQ(overlay_condition("dearer-c1", "ValidationSucceeded"), "True/ValidationSucceeded: ");

  scale("web", 1);
  ASSERT_TRUE(one_node_running()) << diagnose();
  auto types = node_types();
  ASSERT_EQ(types.size(), 1u) << diagnose();
  // Without the overlay c1.1VCPU-2GB is the cheapest type that holds the pod (next test).
  EXPECT_EQ(types.begin()->rfind("c1.", 0), std::string::npos) << *types.begin();
  EXPECT_EQ(*types.begin(), "t1.1VCPU-3GB");
  EXPECT_EQ(settled_leaks(), "");
}

TEST_F(node_overlay, withTheGateOffOverlaysAreIgnored) {
  KP_E2E_START();
  start_controller();
  apply(dearer_c1);
  scale("web", 1);
  ASSERT_TRUE(one_node_running()) << diagnose();
  auto types = node_types();
  ASSERT_EQ(types.size(), 1u) << diagnose();
  EXPECT_EQ(*types.begin(), "c1.1VCPU-2GB");
  // Nothing watched the overlay, so nothing judged it either.
  EXPECT_EQ(overlay_condition("dearer-c1", "Ready"), "");
}

constexpr const char* dongle_pod = R"(
apiVersion: v1
kind: Pod
metadata: {name: dongle-user, namespace: default}
spec:
  containers:
    - name: app
      image: registry.k8s.io/pause:3.9
      resources:
        requests: {cpu: 250m, memory: 256Mi, example.com/dongle: "1"}
        limits: {example.com/dongle: "1"}
)";

TEST_F(node_overlay, anOverlayAddingAnExtendedResourceLetsAPodRequestingItGetANodeClaim) {
  KP_E2E_START();
  start_controller({{"feature-gates", "NodeOverlay=true"}});
  apply(dongle_pod);
  // No instance type has the resource yet: the pod cannot be scheduled anywhere.
  ASSERT_TRUE(lab::lab_world::eventually(
      [&] { return !controller_event("FailedScheduling", "dongle-user").empty(); }, 30s))
      << diagnose();
  EXPECT_TRUE(claims_requesting("example.com/dongle").empty());

  apply(R"(
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: dongles-on-t1}
spec:
  requirements:
    - {key: karpenter.proxmox.sinextra.dev/instance-family, operator: In, values: [t1]}
  capacity: {example.com/dongle: "1"}
)");
  std::map<std::string, std::vector<std::string>> claims;
  ASSERT_TRUE(lab::lab_world::eventually(
      [&] { return !(claims = claims_requesting("example.com/dongle")).empty(); }, 60s))
      << diagnose();
  for (const auto& [name, types] : claims) {
    ASSERT_FALSE(types.empty()) << name;
    for (const auto& t : types) EXPECT_EQ(t.rfind("t1.", 0), 0u) << name << " allows " << t;
  }
  // The event is written after the claim, by the event recorder: waited for, not raced.
  EXPECT_TRUE(lab::lab_world::eventually(
      [&] { return !controller_event("Nominated", "dongle-user").empty(); }, 30s))
      << diagnose();
}

TEST_F(node_overlay, twoOverlaysOfEqualWeightThatOverlapShowTheConflictInStatus) {
  KP_E2E_START();
  start_controller({{"feature-gates", "NodeOverlay=true"}});
  apply(R"(
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: alpha}
spec:
  weight: 10
  requirements:
    - {key: karpenter.proxmox.sinextra.dev/instance-family, operator: In, values: [c1, t1]}
  price: "0.5"
---
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: beta}
spec:
  weight: 10
  requirements:
    - {key: karpenter.proxmox.sinextra.dev/instance-family, operator: In, values: [c1]}
  priceAdjustment: "-10%"
)");
  // Equal weights go by name, later in the alphabet first: beta applies, alpha is refused.
  ASSERT_TRUE(lab::lab_world::eventually(
      [&] {
        return overlay_condition("alpha", "ValidationSucceeded").rfind("False/Conflict", 0) == 0;
      },
      30s))
      << overlay_condition("alpha", "ValidationSucceeded") << diagnose();
  EXPECT_NE(overlay_condition("alpha", "ValidationSucceeded").find("beta"), std::string::npos);
  EXPECT_EQ(overlay_condition("alpha", "Ready").rfind("False/", 0), 0u);
  EXPECT_EQ(overlay_condition("beta", "Ready"), "True/Ready: ");
  ASSERT_TRUE(lab::lab_world::eventually(
      [&] { return !controller_event("Conflict", "alpha").empty(); }, 20s))
      << diagnose();
  EXPECT_NE(controller_event("Conflict", "alpha").find("beta"), std::string::npos);
}

}  // namespace
}  // namespace kp::e2e
