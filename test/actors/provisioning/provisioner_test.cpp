// The provisioner on test_coordinator without a Kubernetes client: it never schedules against
// a snapshot that is not synced (the batch waits for the first synced one), it plans only
// for provisionable pods, and it refuses a pod whose requests cannot be represented.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include <caf/all.hpp>

#include "actors/provisioning/provisioner.hpp"
#include "test/actors/caf_test_fixture.hpp"

namespace kp::actors::provisioning {
namespace {

kube::pod pending(const std::string& name) {
  kube::pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = "default";
  p.metadata.uid = "uid-" + name;
  kube::container c;
  c.name = "c";
  c.resources.requests = {{"cpu", "1"}, {"memory", "1Gi"}};
  p.spec.containers.push_back(c);
  p.status.phase = "Pending";
  p.status.conditions.push_back({"PodScheduled", "False", "Unschedulable", "", "", "", 0});
  return p;
}

protocol::snapshot_ptr snapshot(bool synced, const std::vector<kube::pod>& pods) {
  auto s = std::make_shared<protocol::cluster_snapshot>();
  s->synced = synced;
  auto pm = std::make_shared<protocol::object_map<kube::pod>>();
  for (const auto& p : pods) (*pm)[protocol::object_key_of(p)] = std::make_shared<kube::pod>(p);
  s->pods = protocol::pod_models_of(*pm);
  kube::node_pool np;
  np.metadata.name = "general";
  np.spec.template_.spec.node_class_ref = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass",
                                           "default"};
  auto pools = std::make_shared<protocol::object_map<kube::node_pool>>();
  (*pools)["general"] = std::make_shared<kube::node_pool>(np);
  s->node_pools = pools;
  kube::proxmox_node_class nc;
  nc.metadata.name = "default";
  auto classes = std::make_shared<protocol::object_map<kube::proxmox_node_class>>();
  (*classes)["default"] = std::make_shared<kube::proxmox_node_class>(nc);
  s->node_classes = classes;
  return s;
}

protocol::event_recorder_actor::behavior_type recorder(
    protocol::event_recorder_actor::pointer,
    std::shared_ptr<std::vector<protocol::event_record>> out) {
  return {[out](protocol::event_record& e) { out->push_back(std::move(e)); }};
}

class ProvisionerTest : public kp::test::caf_test {
 protected:
  ProvisionerTest() {
    ctx_.events = sys().spawn(recorder, events_);
    auto types = instance_types::builtin_instance_types();
    instance_types::build_offerings(types,
                                    {{"region1", "pve1", 64, std::int64_t{256} << 30, true}});
    ctx_.instance_types = std::move(types);
    provisioner_options opts;
    opts.on_batch = [this](const batch_report& r) { reports_.push_back(r); };
    provisioner_ = spawn_provisioner(sys(), ctx_, opts);
    sched().run();
  }
  ~ProvisionerTest() override {
    caf::anon_send_exit(provisioner_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(ctx_.events, caf::exit_reason::user_shutdown);
    sched().run();
  }
  void send_snapshot(protocol::snapshot_ptr s) {
    caf::anon_send(provisioner_, std::move(s));
    sched().run();
  }
  void close_batch(std::uint64_t id) {
    protocol::batch_closed b;
    b.id = id;
    caf::anon_send(provisioner_, b);
    sched().run();
  }

  std::shared_ptr<std::vector<protocol::event_record>> events_ =
      std::make_shared<std::vector<protocol::event_record>>();
  controller_context ctx_;
  std::vector<batch_report> reports_;
  protocol::provisioner_actor provisioner_;
};

TEST_F(ProvisionerTest, ABatchWaitsForASyncedSnapshot) {
  close_batch(1);  // no snapshot at all yet
  send_snapshot(snapshot(false, {pending("a")}));
  EXPECT_TRUE(reports_.empty());
  send_snapshot(snapshot(true, {pending("a"), pending("b")}));
  ASSERT_EQ(reports_.size(), 1u);
  EXPECT_EQ(reports_[0].batch, 1u);
  EXPECT_EQ(reports_[0].pending_pods, 2u);
  EXPECT_GE(reports_[0].nodeclaims, 1u);
}

TEST_F(ProvisionerTest, PlansOnlyForProvisionablePods) {
  auto bound = pending("bound");
  bound.spec.node_name = "n1";
  auto daemon = pending("daemon");
  daemon.metadata.owner_references.push_back({"apps/v1", "DaemonSet", "ds", "u", true, true});
  send_snapshot(snapshot(true, {pending("a"), bound, daemon}));
  close_batch(7);
  ASSERT_EQ(reports_.size(), 1u);
  EXPECT_EQ(reports_[0].batch, 7u);
  EXPECT_EQ(reports_[0].pending_pods, 1u);
}

TEST_F(ProvisionerTest, APodWhoseRequestsOverflowIsRefusedWithAnEventAndGetsNoNodeClaim) {
  // Two containers of 8Pi each: each fits 64-bit milli-units, their sum does not.
  auto huge = pending("huge");
  huge.spec.containers[0].resources.requests = {{"memory", "8Pi"}};
  huge.spec.containers.push_back(huge.spec.containers[0]);
  huge.spec.containers[1].name = "d";
  send_snapshot(snapshot(true, {huge}));
  close_batch(3);
  ASSERT_EQ(reports_.size(), 1u);
  EXPECT_EQ(reports_[0].pending_pods, 0u);
  EXPECT_EQ(reports_[0].nodeclaims, 0u);
  EXPECT_EQ(reports_[0].unschedulable, 1u);
  ASSERT_EQ(events_->size(), 1u);
  const auto& e = events_->front();
  EXPECT_EQ(e.name, "huge");
  EXPECT_EQ(e.type, "Warning");
  EXPECT_EQ(e.reason, "FailedScheduling");
  EXPECT_NE(e.message.find("memory requests add up to more than can be represented"),
            std::string::npos)
      << e.message;

  // The provisioner carries on: the next batch still plans for an ordinary pod.
  send_snapshot(snapshot(true, {huge, pending("small")}));
  close_batch(4);
  ASSERT_EQ(reports_.size(), 2u);
  EXPECT_EQ(reports_[1].pending_pods, 1u);
  EXPECT_GE(reports_[1].nodeclaims, 1u);
}

}  // namespace
}  // namespace kp::actors::provisioning
