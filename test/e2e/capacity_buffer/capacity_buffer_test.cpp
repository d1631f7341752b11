// CapacityBuffers end to end: a buffer of 2 x (1 CPU, 1Gi) keeps a node with no real pod on it; a
// real pod then takes the buffer's room and a new node appears for the buffer; the node holding
// only buffer room is not consolidated away; with the gate off, buffers are ignored.
#include <boost/json.hpp>

#include "test/e2e/disruption/disruption_support.hpp"

namespace kp::e2e::capacity_buffer {
namespace {

namespace json = boost::json;
using disruption::disruption_test;

// 4 CPUs (about 3.9 allocatable): both chunks fit on one node, and a 2.5 CPU pod leaves room for
// one chunk only.
constexpr const char* nodepool = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  limits: {cpu: "1000"}
  template:
    spec:
      nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, name: default}
      requirements:
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
        - {key: node.kubernetes.io/instance-type, operator: In, values: [c1.4VCPU-8GB]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1s
    budgets: [{nodes: "100%"}]
)";

constexpr const char* buffer = R"(
apiVersion: v1
kind: PodTemplate
metadata: {name: chunk, namespace: default}
template:
  metadata: {labels: {app: chunk}}
  spec:
    containers:
      - name: pause
        image: registry.k8s.io/pause:3.10
        resources: {requests: {cpu: "1", memory: 1Gi}}
---
apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: spare, namespace: default}
spec:
  podTemplateRef: {name: chunk}
  replicas: 2
)";

struct buffer_status {
  std::int64_t replicas = -1;
  std::string ready;         // ReadyForProvisioning "status/reason"
  std::string provisioning;  // Provisioning "status/reason"
};

class capacity_buffers : public disruption_test {
 protected:
  buffer_status status_of(const std::string& name) {
    buffer_status out;
    auto items =
        world->list("/apis/autoscaling.x-k8s.io/v1beta1/namespaces/default/capacitybuffers");
    if (!items) return out;
    for (const auto& item : *items) {
      const auto& o = item.as_object();
      if (o.at("metadata").as_object().at("name") != name.c_str()) continue;
      const auto* st = o.if_contains("status");
      if (!st || !st->is_object()) return out;
      const auto& s = st->as_object();
      if (const auto* r = s.if_contains("replicas"); r && r->is_int64())
        out.replicas = r->as_int64();
      if (const auto* cs = s.if_contains("conditions"); cs && cs->is_array())
        for (const auto& c : cs->as_array()) {
          const auto& co = c.as_object();
          std::string text = std::string(co.at("status").as_string()) + "/" +
                             std::string(co.at("reason").as_string());
          if (co.at("type") == "ReadyForProvisioning") out.ready = text;
          if (co.at("type") == "Provisioning") out.provisioning = text;
        }
    }
    return out;
  }
  static long ready_claims(const cluster_view& v) {
    long n = 0;
    for (const auto& [name, c] : v.nodeclaims) {
      if (c.terminating) continue;
      auto node = v.nodes.find(c.node_name);
      if (node != v.nodes.end() && node->second.ready) ++n;
    }
    return n;
  }
};

TEST_F(capacity_buffers, aBufferKeepsANodeARealPodDisplacesItsRoomAndTheBufferOnlyNodeStays) {
  KP_E2E_START(disruption::disruption_options());
  apply(nodepool);
  start_controller({{"feature-gates", "CapacityBuffer=true"}});
  apply(buffer);

  // A node for the buffer alone: no real pod asks for it.
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) { return ready_claims(v) == 1 && v.nodeclaims.size() == 1; }, 90s))
      << diagnose();
  EXPECT_TRUE(view().pods.empty());
  ASSERT_TRUE(lab::lab_world::eventually(
      [&] {
        auto s = status_of("spare");
        return s.replicas == 2 && s.ready == "True/Resolved" &&
               s.provisioning == "True/FitsExistingCapacity";
      },
      30s))
      << "status: " << status_of("spare").replicas << " " << status_of("spare").ready << " "
      << status_of("spare").provisioning << diagnose();
  const std::string first = view().nodeclaims.begin()->first;
  // The buffer holds the node: emptiness and consolidation leave it alone.
  EXPECT_FALSE(wait_for([](const cluster_view& v) { return v.nodeclaims.size() != 1; }, 6s))
      << "the buffer's node was disrupted" << diagnose();

  // A real pod takes the buffer's room on the first node; the buffer gets a node of its own.
  replica_set({.name = "web", .replicas = 1, .cpu = "2500m", .memory = "1Gi"});
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) {
        return v.running() == 1 && ready_claims(v) == 2 && v.nodeclaims.size() == 2;
      },
      90s))
      << diagnose();
  EXPECT_EQ(claim_of_pod(view(), "web"), first) << diagnose();
  ASSERT_TRUE(lab::lab_world::eventually(
      [&] { return status_of("spare").provisioning == "True/FitsExistingCapacity"; }, 30s))
      << status_of("spare").provisioning << diagnose();

  // The second node holds only buffer room, and nothing can take it: it is not consolidated.
  EXPECT_FALSE(wait_for(
      [](const cluster_view& v) {
        if (v.nodeclaims.size() != 2) return true;
        for (const auto& [name, c] : v.nodeclaims)
          if (c.terminating) return true;
        return !disrupting(v).empty();
      },
      10s))
      << "a node was disrupted while the buffer wants it" << diagnose();
  EXPECT_EQ(view().running(), 1);
  for (const auto& e : events())
    EXPECT_NE(e.name.rfind("capacity-buffer-", 0), 0u)
        << "an Event about a virtual pod: " << e.reason << " " << e.message;
  EXPECT_EQ(settled_leaks(), "");
}

TEST_F(capacity_buffers, aBadBufferGetsAConditionNamingTheFieldAndAWarningEvent) {
  KP_E2E_START(disruption::disruption_options());
  apply(nodepool);
  start_controller({{"feature-gates", "CapacityBuffer=true"}});
  apply(R"(
apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: lost, namespace: default}
spec:
  podTemplateRef: {name: missing}
  replicas: 1
)");
  ASSERT_TRUE(lab::lab_world::eventually(
      [&] {
        auto s = status_of("lost");
        return s.ready == "False/PodTemplateNotFound" &&
               s.provisioning == "False/NotReadyForProvisioning";
      },
      30s))
      << status_of("lost").ready << diagnose();
  ASSERT_TRUE(lab::lab_world::eventually(
      [&] {
        for (const auto& e : events())
          if (e.kind == "CapacityBuffer" && e.reason == "PodTemplateNotFound" &&
              e.type == "Warning" &&
              e.message.find("spec.podTemplateRef.name") != std::string::npos)
            return true;
        return false;
      },
      20s))
      << diagnose();
  EXPECT_TRUE(view().nodeclaims.empty());
}

TEST_F(capacity_buffers, withTheGateOffBuffersAreIgnored) {
  KP_E2E_START(disruption::disruption_options());
  apply(nodepool);
  start_controller();
  apply(buffer);
  EXPECT_FALSE(wait_for([](const cluster_view& v) { return !v.nodeclaims.empty(); }, 8s))
      << diagnose();
  EXPECT_EQ(status_of("spare").replicas, -1) << "the buffer's status was written";
  EXPECT_EQ(status_of("spare").ready, "");
}

}  // namespace
}  // namespace kp::e2e::capacity_buffer
