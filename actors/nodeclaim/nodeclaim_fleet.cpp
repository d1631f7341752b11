// The fleet keeps a map name -> actor; children are not linked (one failing claim must not take
// the others down) and are told to exit when the fleet goes (the state's destructor).
#include "actors/nodeclaim/nodeclaim_fleet.hpp"

#include <algorithm>
#include <map>

#include <caf/all.hpp>

#include "actors/nodeclaim/launch_plan.hpp"
#include "actors/nodeclaim/nodeclaim_actor.hpp"

namespace kp::actors::nodeclaim {
namespace {

struct child {
  std::string uid;  // a claim deleted and made again under the same name gets a fresh actor
  protocol::nodeclaim_actor actor;
};

struct fleet_state {
  controller_context ctx;
  std::map<std::string, child> children;
  std::map<std::string, std::vector<std::uint32_t>> claimed;  // region -> VMIDs last sent

  ~fleet_state() {
    for (auto& [name, c] : children) {
      (void)name;
      caf::anon_send_exit(c.actor, caf::exit_reason::user_shutdown);
    }
  }

  static inline const char* name = "nodeclaim-fleet";
};

using fleet_ptr = protocol::nodeclaim_fleet_actor::stateful_pointer<fleet_state>;

// Tells each region the VMIDs NodeClaims name (any NodeClaim's providerID, launched or not, ours
// or another provider's), whenever they change: the region never hands out such a VMID, even
// when its VM vanished, and allocates nothing before it knows them.
void send_claimed_vmids(fleet_ptr self, const protocol::cluster_snapshot& snapshot) {
  auto& st = self->state;
  std::map<std::string, std::vector<std::uint32_t>> claimed;
  for (const auto& [name, region] : st.ctx.regions) claimed[name];
  if (snapshot.node_claims) {
    for (const auto& [key, claim] : *snapshot.node_claims) {
      (void)key;
      auto id = claim ? protocol::parse_provider_id(claim->status.provider_id) : std::nullopt;
      if (id && claimed.count(id->region) != 0) claimed[id->region].push_back(id->vmid);
    }
  }
  for (auto& [name, vmids] : claimed) {
    std::sort(vmids.begin(), vmids.end());
    auto sent = st.claimed.find(name);
    if (sent != st.claimed.end() && sent->second == vmids) continue;
    st.claimed[name] = vmids;
    self->send(st.ctx.regions.at(name), protocol::claimed_vmids{vmids});
  }
}

protocol::nodeclaim_fleet_actor::behavior_type fleet_behavior(fleet_ptr self,
                                                              controller_context ctx) {
  self->state.ctx = std::move(ctx);
  return {
      [self](protocol::snapshot_ptr snapshot) {
        auto& st = self->state;
        // Before every informer listed once, a missing node class or Node proves nothing.
        if (!snapshot || !snapshot->synced) return;
        send_claimed_vmids(self, *snapshot);
        std::map<std::string, std::string> present;  // name -> uid
        if (snapshot->node_claims) {
          for (const auto& [key, claim] : *snapshot->node_claims) {
            (void)key;
            if (!claim || !is_ours(*claim)) continue;
            present[claim->metadata.name] = claim->metadata.uid;
          }
        }
        for (auto it = st.children.begin(); it != st.children.end();) {
          auto p = present.find(it->first);
          bool gone = p == present.end() || p->second != it->second.uid;
          if (gone) {
            caf::anon_send_exit(it->second.actor, caf::exit_reason::user_shutdown);
            it = st.children.erase(it);
          } else {
            ++it;
          }
        }
        for (const auto& [name, uid] : present) {
          auto it = st.children.find(name);
          if (it == st.children.end()) {
            auto actor = spawn_nodeclaim_actor(self->system(), st.ctx, name);
            it = st.children.emplace(name, child{uid, actor}).first;
          }
          self->send(it->second.actor, snapshot);
        }
      },
  };
}

}  // namespace

protocol::nodeclaim_fleet_actor spawn_nodeclaim_fleet(caf::actor_system& system,
                                                      const controller_context& ctx) {
  return system.spawn(fleet_behavior, ctx);
}

}  // namespace kp::actors::nodeclaim
