// CapacityBuffer sizing: references, replicas, percentage (rounded up as upstream), limits, and
// a verdict naming the field for every bad buffer.
#include "core/capacity_buffer/capacity_buffer.hpp"

#include <gtest/gtest.h>

namespace kp::capacity_buffer {
namespace {

model::pod chunk(std::int64_t cpu_milli, std::int64_t memory_bytes) {
  model::pod p;
  model::container c;
  c.name = "app";
  c.requests.set_milli(model::resource_names::cpu, cpu_milli);
  c.requests.set_milli(model::resource_names::memory, memory_bytes * 1000);
  p.containers.push_back(c);
  p.labels["app"] = "web";
  return p;
}

constexpr std::int64_t gib = 1024LL * 1024 * 1024;

buffer template_buffer(std::string name, std::optional<std::int64_t> replicas) {
  buffer b;
  b.namespace_ = "default";
  b.name = std::move(name);
  b.uid = "uid-" + b.name;
  b.pod_template_ref = "chunk";
  b.replicas = replicas;
  return b;
}

buffer scalable_buffer(std::string kind, std::string target) {
  buffer b;
  b.namespace_ = "default";
  b.name = "follow";
  b.scalable = scalable_ref{"apps", std::move(kind), std::move(target)};
  return b;
}

inputs with_template(buffer b) {
  inputs in;
  in.buffers.push_back(std::move(b));
  in.templates.push_back({"default", "chunk", 3, chunk(1000, gib), ""});
  return in;
}

inputs with_deployment(buffer b, std::int64_t replicas) {
  inputs in;
  in.buffers.push_back(std::move(b));
  scalable_object s;
  s.namespace_ = "default";
  s.ref = {"apps", "Deployment", "web"};
  s.replicas = replicas;
  s.pod = chunk(500, gib / 2);
  in.scalables.push_back(s);
  return in;
}

TEST(CapacityBuffer, APodTemplateBufferMakesReplicasVirtualPodsOfTheTemplate) {
  auto r = resolve(with_template(template_buffer("spare", 2)));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].ready) << r[0].message;
  EXPECT_EQ(r[0].reason, "Resolved");
  EXPECT_EQ(r[0].replicas, 2);
  ASSERT_EQ(r[0].pods.size(), 2u);
  EXPECT_EQ(r[0].status_pod_template, "chunk");
  EXPECT_EQ(r[0].pod_template_generation, 3);
  const auto& p = r[0].pods[1];
  EXPECT_EQ(p.name, "capacity-buffer-spare-2");
  EXPECT_EQ(p.namespace_, "default");
  EXPECT_EQ(p.uid, "uid-spare-2");
  EXPECT_NE(r[0].pods[0].uid, p.uid);
  EXPECT_TRUE(is_virtual_pod(p));
  EXPECT_EQ(buffer_key_of(p), "default/spare");
  EXPECT_EQ(model::pod_requests(p).milli("cpu"), 1000);
  EXPECT_EQ(p.labels.at("app"), "web");
  EXPECT_TRUE(p.node_name.empty());
}

TEST(CapacityBuffer, ARealPodIsNeverTakenForAVirtualOne) {
  model::pod real = chunk(100, gib);
  EXPECT_FALSE(is_virtual_pod(real));
  EXPECT_EQ(buffer_key_of(real), "");
  real.annotations[std::string(virtual_pod_annotation)] = "false";
  EXPECT_FALSE(is_virtual_pod(real));
}

TEST(CapacityBuffer, PercentageOfTheScalableReplicasRoundsUp) {
  EXPECT_EQ(percentage_chunks(10, 20), 2);
  EXPECT_EQ(percentage_chunks(10, 25), 3);  // 2.5 -> 3
  EXPECT_EQ(percentage_chunks(3, 10), 1);   // 0.3 -> 1
  EXPECT_EQ(percentage_chunks(1, 1), 1);
  EXPECT_EQ(percentage_chunks(0, 50), 0);
  EXPECT_EQ(percentage_chunks(7, 0), 0);
  EXPECT_EQ(percentage_chunks(7, 200), 14);
  EXPECT_EQ(percentage_chunks(2147483647, 2147483647), 46116860141324207);
}

TEST(CapacityBuffer, AScalableBufferUsesTheWorkloadsTemplateAndAPercentageOfItsReplicas) {
  auto b = scalable_buffer("Deployment", "web");
  b.percentage = 25;
  auto r = resolve(with_deployment(b, 10));
  ASSERT_TRUE(r[0].ready) << r[0].message;
  EXPECT_EQ(r[0].replicas, 3);
  ASSERT_EQ(r[0].pods.size(), 3u);
  EXPECT_EQ(model::pod_requests(r[0].pods[0]).milli("cpu"), 500);
  EXPECT_FALSE(r[0].status_pod_template.has_value());
}

TEST(CapacityBuffer, ReplicasAndPercentageTogetherTakeTheLarger) {
  auto b = scalable_buffer("Deployment", "web");
  b.percentage = 10;
  b.replicas = 4;
  EXPECT_EQ(resolve(with_deployment(b, 10))[0].replicas, 4);
  b.percentage = 50;
  EXPECT_EQ(resolve(with_deployment(b, 10))[0].replicas, 5);
}

TEST(CapacityBuffer, AScaledToZeroWorkloadLeavesOnlyTheReplicas) {
  auto b = scalable_buffer("Deployment", "web");
  b.percentage = 50;
  EXPECT_EQ(resolve(with_deployment(b, 0))[0].replicas, 0);
  b.replicas = 1;
  EXPECT_EQ(resolve(with_deployment(b, 0))[0].replicas, 1);
}

TEST(CapacityBuffer, LimitsCapTheChunksByTheScarcestResource) {
  auto b = template_buffer("capped", 10);
  b.limits = model::resource_list{};
  b.limits->set_milli("cpu", 3500);               // 3 chunks of 1 CPU
  b.limits->set_milli("memory", 2 * gib * 1000);  // 2 chunks of 1Gi
  auto r = resolve(with_template(b));
  ASSERT_TRUE(r[0].ready) << r[0].message;
  EXPECT_EQ(r[0].replicas, 2);
  EXPECT_EQ(r[0].pods.size(), 2u);
}

TEST(CapacityBuffer, LimitsAloneMakeAsManyChunksAsFit) {
  auto b = template_buffer("fill", std::nullopt);
  b.limits = model::resource_list{};
  b.limits->set_milli("cpu", 4000);
  EXPECT_EQ(resolve(with_template(b))[0].replicas, 4);
}

TEST(CapacityBuffer, LimitsOnResourcesTheChunkDoesNotRequestConstrainNothing) {
  auto b = template_buffer("gpu", 3);
  b.limits = model::resource_list{};
  b.limits->set_milli("nvidia.com/gpu", 1000);
  EXPECT_EQ(resolve(with_template(b))[0].replicas, 3);
  EXPECT_EQ(chunks_within_limits(*b.limits, chunk(1000, gib).containers[0].requests), std::nullopt);
}

TEST(CapacityBuffer, ZeroReplicasIsReadyWithNoVirtualPods) {
  auto r = resolve(with_template(template_buffer("none", 0)));
  EXPECT_TRUE(r[0].ready);
  EXPECT_EQ(r[0].replicas, 0);
  EXPECT_TRUE(r[0].pods.empty());
}

void expect_refused(const buffer& b, const inputs& base, std::string_view reason,
                    std::string_view field) {
  inputs in = base;
  in.buffers = {b};
  auto r = resolve(in);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].ready);
  EXPECT_EQ(r[0].reason, reason);
  EXPECT_EQ(r[0].field, field);
  EXPECT_EQ(r[0].message.rfind(std::string(field) + ": ", 0), 0u) << r[0].message;
  EXPECT_EQ(r[0].replicas, 0);
  EXPECT_TRUE(r[0].pods.empty());
}

TEST(CapacityBuffer, ABadBufferGetsAVerdictNamingItsFieldNeverAThrow) {
  const inputs base = with_deployment(template_buffer("x", 1), 4);
  inputs both = with_template(template_buffer("x", 1));
  both.scalables = base.scalables;

  auto two = template_buffer("both", 1);
  two.scalable = scalable_ref{"apps", "Deployment", "web"};
  expect_refused(two, both, "ResolutionFailed", "spec.podTemplateRef");

  auto none = template_buffer("none", 1);
  none.pod_template_ref.reset();
  expect_refused(none, both, "ResolutionFailed", "spec.podTemplateRef");

  auto pct = template_buffer("pct", 1);
  pct.percentage = 10;
  expect_refused(pct, both, "ResolutionFailed", "spec.percentage");

  expect_refused(template_buffer("unsized", std::nullopt), both, "ResolutionFailed",
                 "spec.replicas");
  expect_refused(template_buffer("negative", -1), both, "ResolutionFailed", "spec.replicas");

  auto negative_pct = scalable_buffer("Deployment", "web");
  negative_pct.percentage = -5;
  expect_refused(negative_pct, both, "ResolutionFailed", "spec.percentage");

  auto job = scalable_buffer("Job", "batch");
  expect_refused(job, both, "ResolutionFailed", "spec.scalableRef.kind");
  auto foreign = scalable_buffer("Deployment", "web");
  foreign.scalable->api_group = "example.com";
  expect_refused(foreign, both, "ResolutionFailed", "spec.scalableRef.kind");

  auto negative_limit = template_buffer("neg-limit", 1);
  negative_limit.limits = model::resource_list{};
  negative_limit.limits->set_milli("cpu", -1000);
  expect_refused(negative_limit, both, "ResolutionFailed", "spec.limits.cpu");

  expect_refused(template_buffer("huge", max_chunks + 1), both, "ResolutionFailed",
                 "spec.replicas");
}

TEST(CapacityBuffer, AMissingReferenceNamesTheKindThatIsMissing) {
  inputs in;
  auto t = template_buffer("lost", 1);
  t.pod_template_ref = "gone";
  expect_refused(t, in, "PodTemplateNotFound", "spec.podTemplateRef.name");
  expect_refused(scalable_buffer("StatefulSet", "db"), in, "ScalableRefNotFound",
                 "spec.scalableRef.name");
  // A template in another namespace is not this buffer's.
  inputs other = with_template(template_buffer("x", 1));
  other.templates[0].namespace_ = "team-b";
  expect_refused(template_buffer("cross", 1), other, "PodTemplateNotFound",
                 "spec.podTemplateRef.name");
}

TEST(CapacityBuffer, ATemplateThatDoesNotTranslateIsAResolutionFailure) {
  inputs in = with_template(template_buffer("broken", 1));
  in.templates[0].error = "spec.containers[0].resources.requests.cpu: invalid quantity \"x\"";
  auto r = resolve(in);
  EXPECT_FALSE(r[0].ready);
  EXPECT_EQ(r[0].reason, "ResolutionFailed");
  EXPECT_NE(r[0].message.find("invalid quantity"), std::string::npos);
}

TEST(CapacityBuffer, EachBufferIsJudgedOnItsOwn) {
  inputs in = with_template(template_buffer("good", 2));
  in.buffers.push_back(template_buffer("bad", -1));
  in.buffers.push_back(template_buffer("also-good", 1));
  auto r = resolve(in);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(r[0].ready);
  EXPECT_FALSE(r[1].ready);
  EXPECT_TRUE(r[2].ready);
  EXPECT_EQ(r[0].pods.size() + r[2].pods.size(), 3u);
}

}  // namespace
}  // namespace kp::capacity_buffer
