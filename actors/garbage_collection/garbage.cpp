#include "actors/garbage_collection/garbage.hpp"

#include <algorithm>
#include <optional>

#include "actors/status_conditions.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/provider_id.hpp"

namespace kp::actors::garbage_collection {

namespace {

using protocol::parse_provider_id;
using protocol::proxmox_provider_id;

std::string label_of(const kube::object_meta& m, const std::string& key) {
  auto it = m.labels.find(key);
  return it == m.labels.end() ? std::string() : it->second;
}

// Where a listed VM lives, as its providerID says (the listing's region name when it has none).
proxmox_provider_id where(const region_listing& listing, const protocol::owned_vm& vm) {
  if (auto id = parse_provider_id(vm.provider_id)) return *id;
  return {listing.region, vm.vmid};
}

bool node_ready(const kube::node& n) {
  const auto* ready = find_condition(n.status.conditions, "Ready");
  return ready && ready->status == "True";
}

const kube::node* node_of(const protocol::cluster_snapshot& s, const kube::node_claim& claim) {
  if (!claim.status.node_name.empty()) {
    if (const auto* n = protocol::cluster_snapshot::find(s.nodes, claim.status.node_name)) return n;
  }
  if (!s.nodes || claim.status.provider_id.empty()) return nullptr;
  for (const auto& [key, n] : *s.nodes) {
    (void)key;
    if (n->spec.provider_id == claim.status.provider_id) return n.get();
  }
  return nullptr;
}

}  // namespace

std::string vm_key(const std::string& region, std::uint32_t vmid) {
  return region + "/" + std::to_string(vmid);
}

std::vector<vm_garbage> orphan_vms(const protocol::cluster_snapshot& snapshot,
                                   const std::vector<region_listing>& listings,
                                   const std::map<std::string, std::int64_t>& first_seen_ms,
                                   const gc_clock& clock) {
  std::vector<vm_garbage> out;
  // Without a complete list of NodeClaims, "no NodeClaim" proves nothing.
  if (!snapshot.synced || !snapshot.node_claims) return out;
  for (const auto& listing : listings) {
    if (!listing.listed) continue;
    for (const auto& vm : listing.vms) {
      if (!vm.collectable || vm.nodeclaim.empty()) continue;
      // Old enough only when both Proxmox's creation time (a clone may carry its template's)
      // and our own first sighting (immune to clock skew) say so.
      auto seen = first_seen_ms.find(vm_key(listing.region, vm.vmid));
      if (seen == first_seen_ms.end()) continue;
      std::int64_t born = std::max(seen->second, vm.created_unix * 1000);
      if (clock.now_ms - born < clock.vm_grace_ms) continue;
      const auto* claim = protocol::cluster_snapshot::find(snapshot.node_claims, vm.nodeclaim);
      if (!claim) {
        out.push_back({listing.region, vm.vmid, vm.nodeclaim, "no NodeClaim of that name"});
        continue;
      }
      // A second VM for one NodeClaim (a launch retried after a lost reply): the claim's
      // providerID names the one it runs on.
      auto runs_on = parse_provider_id(claim->status.provider_id);
      if (runs_on && !(*runs_on == where(listing, vm))) {
        out.push_back({listing.region, vm.vmid, vm.nodeclaim,
                       "NodeClaim runs on " + claim->status.provider_id});
      }
    }
  }
  return out;
}

std::vector<claim_garbage> lost_claims(const protocol::cluster_snapshot& snapshot,
                                       const std::vector<region_listing>& listings,
                                       const gc_clock& clock, std::vector<gc_skip>* skipped) {
  std::vector<claim_garbage> out;
  // Unsynced, a Node may look missing only because it has not been listed yet.
  if (!snapshot.synced || !snapshot.node_claims) return out;
  auto skip = [&](const std::string& region, const std::string& claim, std::string reason,
                  std::string detail) {
    if (skipped)
      skipped->push_back({region, "nodeclaim " + claim, std::move(reason), std::move(detail)});
  };
  for (const auto& [name, claim] : *snapshot.node_claims) {
    if (claim->metadata.deletion_timestamp) continue;
    const auto* launched = find_condition(claim->status.conditions, "Launched");
    if (!launched || launched->status != "True") continue;
    auto id = parse_provider_id(claim->status.provider_id);
    if (!id) continue;  // another provider's claim, or not launched by us
    auto listing = std::find_if(listings.begin(), listings.end(),
                                [&](const region_listing& l) { return l.region == id->region; });
    // Only a region that answered with a fresh listing can prove a VM missing.
    if (listing == listings.end() || !listing->listed) continue;
    auto since = kube::parse_rfc3339_ms(launched->last_transition_time);
    if (!since) since = kube::parse_rfc3339_ms(claim->metadata.creation_timestamp);
    if (!since || clock.now_ms - *since < clock.claim_grace_ms) continue;
    // Ours at that VMID and for this claim (a VM there marked for another claim is not it).
    bool present =
        std::any_of(listing->vms.begin(), listing->vms.end(), [&](const protocol::owned_vm& vm) {
          return where(*listing, vm) == *id && vm.nodeclaim == claim->metadata.name;
        });
    if (present) continue;
    // Unknown is not gone: a VM whose owner could not be read, or a host that does not answer.
    auto unknown = std::find_if(listing->unknown.begin(), listing->unknown.end(),
                                [&](const protocol::unknown_vm& u) { return u.vmid == id->vmid; });
    if (unknown != listing->unknown.end()) {
      skip(id->region, name, "vm_unknown", unknown->reason);
      continue;
    }
    auto zone = claim->metadata.labels.find("topology.kubernetes.io/zone");
    if (zone != claim->metadata.labels.end() &&
        std::find(listing->unknown_hosts.begin(), listing->unknown_hosts.end(), zone->second) !=
            listing->unknown_hosts.end()) {
      skip(id->region, name, "host_unknown", "host " + zone->second + " is not online");
      continue;
    }
    const auto* node = node_of(snapshot, *claim);
    if (node && node_ready(*node)) continue;  // a Ready Node says the machine is there
    out.push_back({name, claim->metadata.uid, label_of(claim->metadata, "karpenter.sh/nodepool"),
                   label_of(claim->metadata, "karpenter.sh/capacity-type"),
                   claim->status.provider_id,
                   "VM " + claim->status.provider_id + " is gone from region " + id->region});
  }
  return out;
}

std::vector<secret_garbage> stale_bootstrap_tokens(const protocol::cluster_snapshot& snapshot,
                                                   const gc_clock& clock) {
  std::vector<secret_garbage> out;
  if (!snapshot.bootstrap_tokens) return out;
  for (const auto& [key, secret] : *snapshot.bootstrap_tokens) {
    (void)key;
    if (secret->metadata.deletion_timestamp) continue;
    auto expiration = secret->data.find("expiration");
    if (expiration != secret->data.end()) {
      auto at = kube::parse_rfc3339_ms(expiration->second.value);
      if (at && *at <= clock.now_ms) {
        out.push_back(
            {secret->metadata.namespace_, secret->metadata.name, secret->metadata.uid, "expired"});
        continue;
      }
    }
    auto owner = secret->metadata.labels.find(protocol::bootstrap_token_owner_label);
    if (owner == secret->metadata.labels.end() || !snapshot.synced || !snapshot.node_claims) {
      continue;
    }
    if (protocol::cluster_snapshot::find(snapshot.node_claims, owner->second)) continue;
    auto created = kube::parse_rfc3339_ms(secret->metadata.creation_timestamp);
    if (!created || clock.now_ms - *created < clock.token_grace_ms) continue;
    out.push_back({secret->metadata.namespace_, secret->metadata.name, secret->metadata.uid,
                   "NodeClaim " + owner->second + " is gone"});
  }
  return out;
}

}  // namespace kp::actors::garbage_collection
