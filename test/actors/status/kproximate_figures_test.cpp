// kproximate's gauges from a snapshot: only our Ready nodes, for allocatable and allocated alike.
#include "actors/kproximate_gauges/kproximate_figures.hpp"

#include <gtest/gtest.h>

#include "snapshot_builder.hpp"

namespace kp::actors::kproximate_gauges {
namespace {

kube::pod pod_on(const std::string& name, const std::string& node, const std::string& cpu,
                 const std::string& memory, const std::string& phase = "Running") {
  kube::pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = "apps";
  p.metadata.uid = name;
  p.spec.node_name = node;
  p.status.phase = phase;
  kube::container c;
  c.name = "main";
  c.resources.requests = {{"cpu", cpu}, {"memory", memory}};
  p.spec.containers.push_back(c);
  return p;
}

TEST(KproximateFigures, countOnlyOurReadyNodesForEveryFigure) {
  auto foreign = test::make_node("worker-0", "", "16", "64Gi");
  foreign.spec.provider_id = "aws:///i-123";
  auto snap = test::snapshot_builder()
                  .add(test::make_node("kp-1", "general", "2", "4Gi"))
                  .add(test::make_node("kp-2", "general", "4", "8Gi"))
                  .add(test::make_node("kp-3", "general", "8", "8Gi", /*ready=*/false))
                  .add(foreign)
                  .add(pod_on("a", "kp-1", "500m", "1Gi"))
                  .add(pod_on("b", "kp-2", "1", "2Gi"))
                  .add(pod_on("done", "kp-2", "3", "4Gi", "Succeeded"))
                  .add(pod_on("elsewhere", "worker-0", "8", "8Gi"))
                  .build();
  auto f = figures_of(*snap);
  EXPECT_EQ(f.kpnodes_running, 2);
  EXPECT_DOUBLE_EQ(f.cpu_provisioned, 6);
  EXPECT_DOUBLE_EQ(f.memory_provisioned, 12.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(f.cpu_allocatable, 6);
  EXPECT_DOUBLE_EQ(f.cpu_allocated, 1.5);
  EXPECT_DOUBLE_EQ(f.memory_allocated, 3.0 * 1024 * 1024 * 1024);
  EXPECT_LE(f.cpu_allocated, f.cpu_allocatable);
}

TEST(KproximateFigures, aNodeNamedByANodeClaimIsOursWhateverItsProviderId) {
  auto n = test::make_node("joined", "general", "2", "2Gi");
  n.spec.provider_id.clear();
  auto snap = test::snapshot_builder()
                  .add(n)
                  .add(test::make_claim("general-x", "general", "joined", "2", "2Gi"))
                  .build();
  EXPECT_TRUE(is_our_node(n, *snap));
  EXPECT_EQ(figures_of(*snap).kpnodes_running, 1);
}

}  // namespace
}  // namespace kp::actors::kproximate_gauges
