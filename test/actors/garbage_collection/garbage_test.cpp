// Which VMs, NodeClaims and bootstrap token Secrets are garbage, as table tests over a
// hand-made snapshot and region listings.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "actors/garbage_collection/garbage.hpp"
#include "protocol/kube/model_translation.hpp"

namespace kp::actors::garbage_collection {
namespace {

const std::int64_t now = *kube::parse_rfc3339_ms("2026-01-01T12:00:00Z");

protocol::owned_vm vm(const std::string& claim, std::uint32_t vmid, std::int64_t age_s,
                      bool collectable = true) {
  protocol::owned_vm v;
  v.nodeclaim = claim;
  v.vmid = vmid;
  v.zone = "pve1";
  v.provider_id = "proxmox://r1/" + std::to_string(vmid);
  v.status = "running";
  v.created_unix = now / 1000 - age_s;
  v.collectable = collectable;
  return v;
}

std::shared_ptr<const kube::node_claim> claim(const std::string& name, const std::string& pid,
                                              const std::string& launched_at = "",
                                              bool deleting = false) {
  auto c = std::make_shared<kube::node_claim>();
  c->metadata.name = name;
  c->metadata.uid = "uid-" + name;
  c->metadata.creation_timestamp = "2026-01-01T10:00:00Z";
  c->metadata.labels["karpenter.sh/nodepool"] = "default";
  if (deleting) c->metadata.deletion_timestamp = "2026-01-01T11:59:00Z";
  c->status.provider_id = pid;
  if (!launched_at.empty()) {
    kube::condition launched;
    launched.type = "Launched";
    launched.status = "True";
    launched.last_transition_time = launched_at;
    c->status.conditions.push_back(launched);
  }
  return c;
}

struct world {
  protocol::cluster_snapshot snap;
  std::map<std::string, std::shared_ptr<const kube::node_claim>> claims;
  std::map<std::string, std::shared_ptr<const kube::node>> nodes;
  std::map<std::string, std::shared_ptr<const kube::secret>> secrets;
  const protocol::cluster_snapshot& build(bool synced = true) {
    snap.synced = synced;
    snap.node_claims =
        std::make_shared<protocol::object_map<kube::node_claim>>(claims.begin(), claims.end());
    snap.nodes = std::make_shared<protocol::object_map<kube::node>>(nodes.begin(), nodes.end());
    snap.bootstrap_tokens =
        std::make_shared<protocol::object_map<kube::secret>>(secrets.begin(), secrets.end());
    return snap;
  }
};

gc_clock clock_at(std::int64_t t) {
  gc_clock c;
  c.now_ms = t;
  c.vm_grace_ms = 30'000;
  c.claim_grace_ms = 30'000;
  c.token_grace_ms = 30'000;
  return c;
}

TEST(OrphanVms, OnlyOldCollectableVmsWithoutTheirNodeClaim) {
  world w;
  w.claims["kept"] = claim("kept", "proxmox://r1/101", "2026-01-01T11:00:00Z");
  w.claims["launching"] = claim("launching", "");
  w.claims["twice"] = claim("twice", "proxmox://r1/105", "2026-01-01T11:00:00Z");
  region_listing l{"r1", true, {}};
  l.vms = {vm("kept", 101, 600),         vm("launching", 102, 600), vm("orphan", 103, 600),
           vm("young", 104, 10),         vm("twice", 105, 600),     vm("twice", 106, 600),
           vm("legacy", 107, 600, false)};
  std::map<std::string, std::int64_t> seen;
  for (const auto& v : l.vms) seen[vm_key("r1", v.vmid)] = now - 600'000;
  EXPECT_TRUE(orphan_vms(w.build(), {l}, {}, clock_at(now)).empty()) << "never seen: not old";
  auto out = orphan_vms(w.build(), {l}, seen, clock_at(now));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].vmid, 103u);
  EXPECT_EQ(out[0].nodeclaim, "orphan");
  EXPECT_EQ(out[0].region, "r1");
  EXPECT_EQ(out[1].vmid, 106u);  // the second VM of one NodeClaim
  EXPECT_NE(out[1].reason.find("proxmox://r1/105"), std::string::npos);
}

TEST(OrphanVms, NothingFromAnUnsyncedSnapshotOrAFailedListing) {
  world w;
  region_listing l{"r1", true, {vm("orphan", 103, 600)}};
  std::map<std::string, std::int64_t> seen{{vm_key("r1", 103), now - 600'000}};
  EXPECT_EQ(orphan_vms(w.build(true), {l}, seen, clock_at(now)).size(), 1u);
  EXPECT_TRUE(orphan_vms(w.build(false), {l}, seen, clock_at(now)).empty());
  l.listed = false;
  EXPECT_TRUE(orphan_vms(w.build(true), {l}, seen, clock_at(now)).empty());
}

TEST(OrphanVms, AnOldCreationTimeDoesNotShortenTheGraceAfterFirstSight) {
  // A clone may carry its template's ctime; our own sighting decides.
  world w;
  region_listing l{"r1", true, {vm("orphan", 103, 86'400)}};
  std::map<std::string, std::int64_t> seen{{vm_key("r1", 103), now - 5'000}};
  EXPECT_TRUE(orphan_vms(w.build(), {l}, seen, clock_at(now)).empty());
}

TEST(OrphanVms, WithoutACreationTimeTheAgeCountsFromFirstSeen) {
  world w;
  auto v = vm("orphan", 103, 0);
  v.created_unix = 0;
  region_listing l{"r1", true, {v}};
  EXPECT_TRUE(orphan_vms(w.build(), {l}, {}, clock_at(now)).empty());
  std::map<std::string, std::int64_t> seen{{vm_key("r1", 103), now - 10'000}};
  EXPECT_TRUE(orphan_vms(w.build(), {l}, seen, clock_at(now)).empty());
  seen[vm_key("r1", 103)] = now - 60'000;
  EXPECT_EQ(orphan_vms(w.build(), {l}, seen, clock_at(now)).size(), 1u);
}

TEST(LostClaims, LaunchedClaimsWhoseVmIsMissingFromASuccessfulListing) {
  world w;
  w.claims["present"] = claim("present", "proxmox://r1/101", "2026-01-01T11:00:00Z");
  w.claims["lost"] = claim("lost", "proxmox://r1/199", "2026-01-01T11:00:00Z");
  w.claims["fresh"] = claim("fresh", "proxmox://r1/198", "2026-01-01T11:59:50Z");
  w.claims["unlaunched"] = claim("unlaunched", "proxmox://r1/197");
  w.claims["deleting"] = claim("deleting", "proxmox://r1/196", "2026-01-01T11:00:00Z", true);
  w.claims["elsewhere"] = claim("elsewhere", "proxmox://r2/101", "2026-01-01T11:00:00Z");
  w.claims["foreign"] = claim("foreign", "aws:///i-1", "2026-01-01T11:00:00Z");
  w.claims["ready"] = claim("ready", "proxmox://r1/195", "2026-01-01T11:00:00Z");
  auto node = std::make_shared<kube::node>();
  node->metadata.name = "ready-node";
  node->spec.provider_id = "proxmox://r1/195";
  kube::condition ready;
  ready.type = "Ready";
  ready.status = "True";
  node->status.conditions.push_back(ready);
  w.nodes["ready-node"] = node;
  region_listing r1{"r1", true, {vm("present", 101, 600)}};
  region_listing r2{"r2", false, {}};  // r2 failed to list: proves nothing
  EXPECT_TRUE(lost_claims(w.build(false), {r1, r2}, clock_at(now)).empty());
  auto out = lost_claims(w.build(), {r1, r2}, clock_at(now));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "lost");
  EXPECT_EQ(out[0].uid, "uid-lost");
  EXPECT_EQ(out[0].nodepool, "default");
  // A VM of the Go provider (not collectable) still counts as present.
  r1.vms.push_back(vm("lost", 199, 600, false));
  EXPECT_TRUE(lost_claims(w.build(), {r1, r2}, clock_at(now)).empty());
}

TEST(LostClaims, AnUnknownVmOrAnOfflineHostIsNeverGone) {
  world w;
  w.claims["unreadable"] = claim("unreadable", "proxmox://r1/101", "2026-01-01T11:00:00Z");
  w.claims["offline"] = claim("offline", "proxmox://r1/102", "2026-01-01T11:00:00Z");
  auto offline = std::make_shared<kube::node_claim>(*w.claims["offline"]);
  offline->metadata.labels["topology.kubernetes.io/zone"] = "pve2";
  w.claims["offline"] = offline;
  region_listing r1{"r1", true, {}};
  r1.unknown.push_back({101, "pve1", "proxmox://r1/101", "500: config read failed"});
  r1.unknown_hosts.push_back("pve2");
  std::vector<gc_skip> skipped;
  EXPECT_TRUE(lost_claims(w.build(), {r1}, clock_at(now), &skipped).empty());
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_EQ(skipped[0].what, "nodeclaim offline");
  EXPECT_EQ(skipped[0].reason, "host_unknown");
  EXPECT_EQ(skipped[1].what, "nodeclaim unreadable");
  EXPECT_EQ(skipped[1].reason, "vm_unknown");
  // Once the config reads and the host answers, a VMID with no VM of ours proves it gone.
  r1.unknown.clear();
  r1.unknown_hosts.clear();
  EXPECT_EQ(lost_claims(w.build(), {r1}, clock_at(now)).size(), 2u);
}

TEST(LostClaims, AVmidHoldingAVmMarkedForAnotherNodeClaimMeansOursIsGone) {
  world w;
  w.claims["mine"] = claim("mine", "proxmox://r1/101", "2026-01-01T11:00:00Z");
  region_listing r1{"r1", true, {vm("someone-else", 101, 600)}};
  auto out = lost_claims(w.build(), {r1}, clock_at(now));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "mine");
}

TEST(BootstrapTokens, ExpiredOrOwnerGoneButNeverYoungOrUnsynced) {
  world w;
  w.claims["alive"] = claim("alive", "");
  auto token = [](const std::string& name, const std::string& owner, const std::string& expires,
                  const std::string& created) {
    auto s = std::make_shared<kube::secret>();
    s->metadata.namespace_ = "kube-system";
    s->metadata.name = name;
    s->metadata.uid = "uid-" + name;
    s->metadata.creation_timestamp = created;
    s->metadata.labels[protocol::bootstrap_token_owner_label] = owner;
    if (!expires.empty()) s->data["expiration"] = kube::base64_bytes{expires};
    return s;
  };
  const std::string old = "2026-01-01T11:00:00Z";
  w.secrets["kube-system/bootstrap-token-aaaaaa"] =
      token("bootstrap-token-aaaaaa", "alive", "2026-01-01T11:30:00Z", old);
  w.secrets["kube-system/bootstrap-token-bbbbbb"] =
      token("bootstrap-token-bbbbbb", "alive", "2026-01-01T13:00:00Z", old);
  w.secrets["kube-system/bootstrap-token-cccccc"] =
      token("bootstrap-token-cccccc", "gone", "2026-01-01T13:00:00Z", old);
  w.secrets["kube-system/bootstrap-token-dddddd"] =
      token("bootstrap-token-dddddd", "gone", "", "2026-01-01T11:59:50Z");
  auto out = stale_bootstrap_tokens(w.build(), clock_at(now));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "bootstrap-token-aaaaaa");
  EXPECT_EQ(out[0].reason, "expired");
  EXPECT_EQ(out[1].name, "bootstrap-token-cccccc");
  // Unsynced: only the expiration (which needs no other object) counts.
  auto unsynced = stale_bootstrap_tokens(w.build(false), clock_at(now));
  ASSERT_EQ(unsynced.size(), 1u);
  EXPECT_EQ(unsynced[0].name, "bootstrap-token-aaaaaa");
}

}  // namespace
}  // namespace kp::actors::garbage_collection
