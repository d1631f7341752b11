// A NodeClaim actor that fails in the middle of its launch, against real kube-sim and pve-sim
// processes: the fleet starts it again after the backoff, the new actor joins the launch the
// region still runs for the claim (or resumes it from the VM's state), and the claim ends
// Launched and Registered with exactly one VM, cloned once, a LifecycleRestarted Event and one
// count in karpenter_proxmox_actor_restarts_total{actor="nodeclaim"}.
#include "actors/nodeclaim/nodeclaim_actor.hpp"
#include "test/actors/nodeclaim/nodeclaim_sims_fixture.hpp"

namespace kp::actors::nodeclaim_sims {
namespace {

constexpr const char* clone_call = "POST /nodes/{node}/qemu/{vmid}/clone";

// The claim actors the fleet starts, for the test thread to stop one.
struct started_actors {
  std::mutex m;
  std::vector<nodeclaim_actor> actors;

  nodeclaim_actor last() {
    std::lock_guard lock(m);
    return actors.empty() ? nodeclaim_actor{} : actors.back();
  }
  std::size_t count() {
    std::lock_guard lock(m);
    return actors.size();
  }
};

TEST_F(NodeClaimSims, AClaimWhoseActorFailsMidLaunchEndsLaunchedAndRegisteredWithExactlyOneVm) {
  // Slow clones keep the launch in the region long enough to cut the claim's actor off in it.
  auto f = sim_call("PUT", "/sim/v1/faults", R"({"slow_clone_factor": 20})");
  ASSERT_TRUE(f.ok() && f->status == 200);
  auto started = std::make_shared<started_actors>();
  fleet_ = spawn_nodeclaim_fleet(
      *system_, ctx_,
      [started](caf::actor_system& sys, const shared_context& ctx, const std::string& name) {
        auto actor = nodeclaim::spawn_nodeclaim_actor(sys, ctx, name);
        std::lock_guard lock(started->m);
        started->actors.push_back(actor);
        return actor;
      },
      restart_policy{1s, 8s});
  status_ = spawn_nodeclass_status(*system_, ctx_);
  kubectl({"apply", "-f", "-"}, claim_yaml("default-s1", "default"));

  auto cloning = drive(
      [this](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "default-s1");
        return c != nullptr && !is_true(c->status.conditions, "Launched") &&
               pve_stats()[clone_call] >= 1;
      },
      60s);
  ASSERT_TRUE(cloning) << "the launch never reached the clone";
  ASSERT_EQ(started->count(), 1u);
  caf::anon_send_exit(started->last(), caf::exit_reason::unhandled_exception);

  auto done = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "default-s1");
        return c != nullptr && is_true(c->status.conditions, "Launched") &&
               is_true(c->status.conditions, "Registered");
      },
      120s);
  ASSERT_TRUE(done) << "the claim never became Launched and Registered after the restart";
  EXPECT_EQ(started->count(), 2u) << "the fleet started the actor once more";
  EXPECT_EQ(vms_named("default-s1").size(), 1u);
  EXPECT_EQ(pve_stats()[clone_call], 1) << "the restarted actor launched nothing new";
  const auto* claim = cluster_snapshot::find(done->node_claims, "default-s1");
  auto id = parse_provider_id(claim->status.provider_id);
  ASSERT_TRUE(id.has_value()) << claim->status.provider_id;
  EXPECT_EQ(vms_named("default-s1").front().vmid, id->vmid);
  EXPECT_TRUE(events_->has("default-s1", "LifecycleRestarted"));
  double restarts = 0;
  for (auto& family : registry_.Collect()) {
    if (family.name != "karpenter_proxmox_actor_restarts_total") continue;
    for (auto& m : family.metric) {
      for (auto& l : m.label) {
        if (l.name == "actor" && l.value == "nodeclaim") restarts += m.counter.value;
      }
    }
  }
  EXPECT_EQ(restarts, 1);
}

}  // namespace
}  // namespace kp::actors::nodeclaim_sims
