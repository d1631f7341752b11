// CapacityBuffer, PodTemplate and Scale as the API sends them, and the buffer's status patch.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "protocol/kube/autoscaling_v1beta1.hpp"
#include "protocol/kube/codec.hpp"

namespace kp::kube {
namespace {

TEST(CapacityBufferCodec, decodesASpecWithEveryField) {
  auto b = decode<capacity_buffer>(R"({
    "apiVersion": "autoscaling.x-k8s.io/v1beta1", "kind": "CapacityBuffer",
    "metadata": {"name": "spare", "namespace": "team", "generation": 3},
    "spec": {"provisioningStrategy": "buffer.x-k8s.io/active-capacity",
             "scalableRef": {"apiGroup": "apps", "kind": "Deployment", "name": "web"},
             "replicas": 2, "percentage": 20, "limits": {"cpu": 8, "memory": "16Gi"}},
    "status": {"replicas": 2, "conditions": [{"type": "ReadyForProvisioning", "status": "True",
               "reason": "Resolved", "message": "", "lastTransitionTime": "2026-11-26T09:00:00Z"}]}
  })");
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b->metadata.generation, 3);
  ASSERT_TRUE(b->spec.scalable_ref.has_value());
  EXPECT_EQ(b->spec.scalable_ref->kind, "Deployment");
  EXPECT_FALSE(b->spec.pod_template_ref.has_value());
  EXPECT_EQ(b->spec.replicas, 2);
  EXPECT_EQ(b->spec.percentage, 20);
  ASSERT_TRUE(b->spec.limits.has_value());
  EXPECT_EQ(b->spec.limits->at("cpu"), "8");  // numbers kept as quantity text
  EXPECT_EQ(b->status.replicas, 2);
  ASSERT_EQ(b->status.conditions.size(), 1u);
}

TEST(CapacityBufferCodec, aReferenceWithoutANameIsAnErrorNamingItsPath) {
  auto b =
      decode<capacity_buffer>(R"({"metadata": {"name": "x"}, "spec": {"podTemplateRef": {}}})");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("spec.podTemplateRef.name"), std::string::npos)
      << b.error().message;
}

TEST(CapacityBufferCodec, decodesAPodTemplateAndAScale) {
  auto t = decode<pod_template>(R"({"metadata": {"name": "chunk", "namespace": "team",
    "generation": 4}, "template": {"spec": {"containers": [{"name": "c", "image": "pause",
    "resources": {"requests": {"cpu": "1"}}}]}}})");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->metadata.generation, 4);
  ASSERT_EQ(t->template_.spec.containers.size(), 1u);
  auto s = decode<scale>(R"({"kind": "Scale", "apiVersion": "autoscaling/v1",
    "metadata": {"name": "web"}, "spec": {"replicas": 5},
    "status": {"replicas": 4, "selector": "app=web"}})");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->spec_replicas, 5);
  EXPECT_EQ(s->status_replicas, 4);
  EXPECT_EQ(s->selector, "app=web");
}

TEST(CapacityBufferCodec, theStatusPatchRemovesWhatNoLongerApplies) {
  capacity_buffer_status st;
  st.replicas = 0;
  st.provisioning_strategy = "buffer.x-k8s.io/active-capacity";
  condition c;
  c.type = "ReadyForProvisioning";
  c.status = "False";
  c.reason = "PodTemplateNotFound";
  c.message = "spec.podTemplateRef.name: PodTemplate team/chunk not found";
  c.last_transition_time = "2026-11-26T09:00:00Z";
  st.conditions.push_back(c);
  auto patch = boost::json::parse(capacity_buffer_status_merge_patch(st)).as_object();
  const auto& s = patch.at("status").as_object();
  EXPECT_EQ(s.at("replicas").as_int64(), 0);
  EXPECT_TRUE(s.at("podTemplateRef").is_null());
  EXPECT_TRUE(s.at("podTemplateGeneration").is_null());
  ASSERT_EQ(s.at("conditions").as_array().size(), 1u);
  const auto& written = s.at("conditions").as_array()[0].as_object();
  EXPECT_EQ(written.at("reason").as_string(), "PodTemplateNotFound");
  EXPECT_TRUE(written.contains("message"));
}

}  // namespace
}  // namespace kp::kube
