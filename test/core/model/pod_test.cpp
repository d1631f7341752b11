#include "core/model/pod.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace {

using namespace kp::model;

container with(std::int64_t cpu_m, std::int64_t mem_mi, bool sidecar = false) {
  container c;
  c.requests.set("cpu", quantity::from_milli(cpu_m));
  c.requests.set("memory", quantity{mem_mi * 1024 * 1024 * 1000, quantity_format::binary_si});
  c.restartable = sidecar;
  return c;
}

TEST(PodRequests, SumOfContainersPlusOverhead) {
  pod p;
  p.containers = {with(100, 64), with(200, 64)};
  p.overhead.edit().set("cpu", quantity::from_milli(50));
  auto r = pod_requests(p);
  EXPECT_EQ(r.milli("cpu"), 350);
  EXPECT_EQ(r.milli("memory"), 128LL * 1024 * 1024 * 1000);
}

TEST(PodRequests, ALargeInitContainerDominates) {
  pod p;
  p.containers = {with(100, 64)};
  p.init_containers = {with(1000, 32)};
  auto r = pod_requests(p);
  EXPECT_EQ(r.milli("cpu"), 1000);
  EXPECT_EQ(r.milli("memory"), 64LL * 1024 * 1024 * 1000);
}

TEST(PodRequests, SidecarsAddToContainersAndToLaterInitContainers) {
  pod p;
  p.containers = {with(100, 10)};
  p.init_containers = {with(50, 10, true), with(500, 10)};
  auto r = pod_requests(p);
  // containers + sidecar = 150m; the later init container runs beside the sidecar: 550m.
  EXPECT_EQ(r.milli("cpu"), 550);
}

TEST(PodRequests, RequestsThatAddUpBeyondSixtyFourBitsAreRefusedNamingTheResource) {
  pod p;
  container c;
  c.requests.set("memory", *parse_quantity("8Pi"));
  c.requests.set("cpu", *parse_quantity("1"));
  p.containers = {c, c};
  auto checked = checked_pod_requests(p);
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.error().code, "unrepresentable_requests");
  EXPECT_NE(checked.error().message.find("memory"), std::string::npos) << checked.error().message;
  // The unchecked sum saturates instead of wrapping: it fits nowhere.
  auto sum = pod_requests(p);
  EXPECT_EQ(sum.milli("memory"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(sum.milli("cpu"), 2000);
  resource_list node;
  node.set("memory", *parse_quantity("8Pi"));  // the largest a node can state
  EXPECT_FALSE(sum.fits_in(node));

  p.containers = {c};
  ASSERT_TRUE(checked_pod_requests(p).ok());
  EXPECT_EQ(checked_pod_requests(p)->milli("memory"), c.requests.milli("memory"));
}

TEST(PodRequests, AnOverflowingInitContainerOrOverheadIsRefusedToo) {
  pod p;
  container big;
  big.requests.set("memory", *parse_quantity("8Pi"));
  container sidecar = big;
  sidecar.restartable = true;
  p.init_containers = {sidecar, big};  // the second init step runs beside the sidecar
  EXPECT_FALSE(checked_pod_requests(p).ok());
  pod q;
  q.containers = {big};
  q.overhead.edit().set("memory", *parse_quantity("8Pi"));
  EXPECT_FALSE(checked_pod_requests(q).ok());
}

TEST(PodKinds, DaemonSetAndMirrorPodsAreNotProvisionable) {
  pod p;
  p.unschedulable = true;
  EXPECT_TRUE(is_provisionable(p));
  p.owners = {{"DaemonSet", "ds", "u", true}};
  EXPECT_FALSE(is_provisionable(p));
  p.owners = {{"Node", "n1", "u", true}};
  EXPECT_FALSE(is_provisionable(p));
}

TEST(PodKinds, DoNotDisruptIsReadFromTheAnnotation) {
  pod p;
  EXPECT_FALSE(has_do_not_disrupt(p));
  p.annotations["karpenter.sh/do-not-disrupt"] = "true";
  EXPECT_TRUE(has_do_not_disrupt(p));
}

}  // namespace

namespace {

// A shared_pod is one block of the pod and its 16-byte control block; 100,000 are held at scale,
// and 384 bytes is the jemalloc size class they fit (pod.hpp). A field added to model::pod must
// go behind a shared part instead, or move this bound knowingly.
TEST(PodModel, APodWithItsControlBlockFitsA384ByteSizeClass) {
  EXPECT_LE(sizeof(kp::model::pod), 368u);
}

}  // namespace
