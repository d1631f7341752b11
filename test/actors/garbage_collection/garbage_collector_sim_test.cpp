// The garbage collector against real kube-sim and pve-sim processes and real region actors: an
// orphan VM of this cluster goes once the grace period has passed, never a VM marked for
// another cluster, a Go-provider VM or an unmarked one; a launched NodeClaim whose VM is gone is
// deleted; bootstrap token Secrets go when expired or when their NodeClaim is gone. The wall
// clock the collector sees is moved forward instead of waiting for the grace period.
#include <gtest/gtest.h>

#include "actors/garbage_collection/garbage_collector.hpp"
#include "protocol/kube/model_translation.hpp"
#include "test/actors/termination/sim_world.hpp"

namespace kp::test {
namespace {

using namespace std::chrono_literals;

class GarbageCollectorSim : public sim_world {
 protected:
  // Deleted, and held by the termination finalizer (the termination actor finishes it).
  bool deleting(const std::string& claim) {
    auto c = get<kube::node_claim>("", claim);
    return c.ok() && c->metadata.deletion_timestamp.has_value();
  }
  void make_token(const std::string& id, const std::string& owner, std::int64_t expires_ms) {
    kube::secret s;
    s.metadata.namespace_ = "kube-system";
    s.metadata.name = "bootstrap-token-" + id;
    s.metadata.labels[protocol::bootstrap_token_owner_label] = owner;
    s.type = "bootstrap.kubernetes.io/token";
    s.data["token-id"] = kube::base64_bytes{id};
    s.data["token-secret"] = kube::base64_bytes{"0123456789abcdef"};
    s.data["expiration"] = kube::base64_bytes{kube::format_rfc3339(expires_ms)};
    s.data["usage-bootstrap-authentication"] = kube::base64_bytes{"true"};
    auto created = create(s);
    ASSERT_TRUE(created.ok()) << created.error().message;
  }
};

TEST_F(GarbageCollectorSim, RemovesOnlyThisClustersOrphansLostClaimsAndStaleTokens) {
  auto other = spawn_region("other-cluster", 25000);
  auto orphan = launch(region(), "orphan-1");
  ASSERT_TRUE(orphan.ok) << orphan.error.message;
  auto kept = launch(region(), "kept-1");
  ASSERT_TRUE(kept.ok) << kept.error.message;
  auto theirs = launch(other, "their-1", "other-cluster");
  ASSERT_TRUE(theirs.ok) << theirs.error.message;
  clone_directly(30000, "legacy-node",
                 "Karpenter managed instance, class=default, capacity-type=on-demand");
  clone_directly(30001, "hand-made", "made by hand");
  make_claim("kept-1", kept.provider_id, "");
  make_claim("lost-1", std::string("proxmox://") + region_name + "/29999", "");
  auto now = context().wall_clock_ms();
  make_token("aaaaaa", "kept-1", now - 60'000);         // expired
  make_token("bbbbbb", "gone-claim", now + 7'200'000);  // its NodeClaim never existed
  make_token("cccccc", "kept-1", now + 7'200'000);      // fine

  auto gc = track(actors::spawn_garbage_collector(sys(), context()));
  caf::anon_send(gc, snapshot());
  caf::anon_send(gc, protocol::collect_atom::value);
  // The expired token marks the end of the first pass; everything else is younger than the
  // grace period (60 s) and stays.
  ASSERT_TRUE(eventually(
      [&] { return !exists<kube::secret>("kube-system", "bootstrap-token-aaaaaa"); }, 30s));
  // A second pass (another expired token marks its end) gives any wrong deletion of the first
  // time to show.
  make_token("eeeeee", "kept-1", now - 60'000);
  caf::anon_send(gc, snapshot());
  caf::anon_send(gc, protocol::collect_atom::value);
  ASSERT_TRUE(eventually(
      [&] { return !exists<kube::secret>("kube-system", "bootstrap-token-eeeeee"); }, 30s));
  for (auto vmid : {orphan.vmid, kept.vmid, theirs.vmid, 30000u, 30001u}) {
    EXPECT_TRUE(vm_exists(vmid)) << vmid;
  }
  EXPECT_FALSE(deleting("lost-1"));
  EXPECT_TRUE(exists<kube::secret>("kube-system", "bootstrap-token-bbbbbb"));

  // An hour later (as far as the collector can tell).
  clock_offset_ms = 3'600'000;
  caf::anon_send(gc, snapshot());
  caf::anon_send(gc, protocol::collect_atom::value);
  ASSERT_TRUE(eventually(
      [&] {
        return !vm_exists(orphan.vmid) && deleting("lost-1") &&
               !exists<kube::secret>("kube-system", "bootstrap-token-bbbbbb");
      },
      60s));
  // One more pass over the same world removes nothing else.
  caf::anon_send(gc, snapshot());
  caf::anon_send(gc, protocol::collect_atom::value);
  auto listed = owned(region());
  for (auto vmid : {kept.vmid, theirs.vmid, 30000u, 30001u}) {
    EXPECT_TRUE(vm_exists(vmid)) << vmid;
  }
  EXPECT_TRUE(exists<kube::node_claim>("", "kept-1"));
  EXPECT_FALSE(deleting("kept-1"));
  EXPECT_TRUE(exists<kube::secret>("kube-system", "bootstrap-token-cccccc"));
  EXPECT_EQ(metric("karpenter_nodeclaims_disrupted_total", {{"reason", "garbage_collected"}}), 1);
  EXPECT_TRUE(
      eventually([&] { return has_event("NodeClaim", "lost-1", "GarbageCollected"); }, 10s));
  bool legacy_listed = false;
  for (const auto& vm : listed) legacy_listed |= vm.vmid == 30000u && !vm.collectable;
  EXPECT_TRUE(legacy_listed) << "the Go provider's VM is ours to adopt, never to collect";
}

TEST_F(GarbageCollectorSim, AnUnsyncedSnapshotProtectsEveryVm) {
  auto orphan = launch(region(), "orphan-2");
  ASSERT_TRUE(orphan.ok) << orphan.error.message;
  auto now = context().wall_clock_ms();
  make_token("dddddd", "whoever", now - 60'000);  // expired: needs no other object to decide
  clock_offset_ms = 3'600'000;
  auto gc = track(actors::spawn_garbage_collector(sys(), context()));
  auto s = std::make_shared<protocol::cluster_snapshot>(*snapshot());
  s->synced = false;
  caf::anon_send(gc, protocol::snapshot_ptr(s));
  caf::anon_send(gc, protocol::collect_atom::value);
  ASSERT_TRUE(eventually(
      [&] { return !exists<kube::secret>("kube-system", "bootstrap-token-dddddd"); }, 30s));
  EXPECT_TRUE(vm_exists(orphan.vmid));
}

}  // namespace
}  // namespace kp::test
