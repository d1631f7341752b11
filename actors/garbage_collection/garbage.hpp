#pragma once
// What the garbage collector removes, as pure functions of one snapshot, the regions' listings
// of the VMs this cluster owns, and the wall clock. Three kinds of garbage:
// - orphan VMs: marked for this cluster, collectable (not the Go provider's), older than the
//   grace period, and no NodeClaim of that name (or the NodeClaim names another VM);
// - lost NodeClaims (Karpenter's nodeclaim.garbagecollection): launched, not deleting, older
//   than the grace period, whose VM is positively gone from its region's fresh listing (no VM
//   of ours for that NodeClaim at its VMID: none at all, or one marked for another NodeClaim,
//   or another cluster's or nobody's) and whose Node is missing or not Ready. A VMID whose VM
//   is unknown (config unreadable, host offline) proves nothing: that claim is skipped;
// - bootstrap token Secrets whose expiration passed or whose NodeClaim is gone.
// Decisions that rely on the absence of an object require a synced snapshot.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "protocol/cluster_snapshot.hpp"
#include "protocol/region_messages.hpp"

namespace kp::actors::garbage_collection {

struct region_listing {
  std::string region;
  bool listed = false;  // the region answered with a fresh listing
  std::vector<protocol::owned_vm> vms;
  std::vector<protocol::unknown_vm> unknown;
  std::vector<std::string> unknown_hosts;
};

// A claim or VM a pass could not judge: an unknown VM, or a region with no fresh listing.
struct gc_skip {
  std::string region;
  std::string what;    // "nodeclaim <name>" or "region"
  std::string reason;  // "vm_unknown", "host_unknown", "listing_not_fresh"
  std::string detail;
  friend bool operator==(const gc_skip&, const gc_skip&) = default;
};

struct gc_clock {
  std::int64_t now_ms = 0;
  std::int64_t vm_grace_ms = 30'000;     // ORPHAN_VM_GRACE_PERIOD
  std::int64_t claim_grace_ms = 30'000;  // a launched NodeClaim's VM may lag the listing
  std::int64_t token_grace_ms = 30'000;  // a token may be written just before its NodeClaim
};

struct vm_garbage {
  std::string region;
  std::uint32_t vmid = 0;
  std::string nodeclaim;
  std::string reason;
  friend bool operator==(const vm_garbage&, const vm_garbage&) = default;
};

struct claim_garbage {
  std::string name;
  std::string uid;
  std::string nodepool;
  std::string capacity_type;
  std::string provider_id;
  std::string reason;
  friend bool operator==(const claim_garbage&, const claim_garbage&) = default;
};

struct secret_garbage {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string reason;
  friend bool operator==(const secret_garbage&, const secret_garbage&) = default;
};

// "region/vmid": the key of first_seen_ms.
std::string vm_key(const std::string& region, std::uint32_t vmid);

// `first_seen_ms`: when this process first listed each VM; a VM not in it is not old yet. A VM's
// age counts from the later of that and its Proxmox creation time.
std::vector<vm_garbage> orphan_vms(const protocol::cluster_snapshot& snapshot,
                                   const std::vector<region_listing>& listings,
                                   const std::map<std::string, std::int64_t>& first_seen_ms,
                                   const gc_clock& clock);

// `skipped` (optional) gets the claims that could not be judged this pass.
std::vector<claim_garbage> lost_claims(const protocol::cluster_snapshot& snapshot,
                                       const std::vector<region_listing>& listings,
                                       const gc_clock& clock,
                                       std::vector<gc_skip>* skipped = nullptr);

std::vector<secret_garbage> stale_bootstrap_tokens(const protocol::cluster_snapshot& snapshot,
                                                   const gc_clock& clock);

}  // namespace kp::actors::garbage_collection
