// In-place updates of a running VM when its node class changes (kpp.md 4.5): its config is read
// again first (the mark must name this cluster and the NodeClaim), then tags, firewall group
// rules and pool membership are compared with what the VM has and only the differences written.
#include <algorithm>
#include <set>

#include "actors/region/region_state.hpp"

namespace kp::actors::region {

using namespace kp::protocol;

namespace {

struct sync_op {
  sync_vm_request req;
  std::string node;
  std::uint32_t vmid = 0;
  proxmox::vm_config config;  // as read by the door check
  sync_vm_reply reply;
  caf::typed_response_promise<sync_vm_reply> rp;
};

void finish_sync(self_ptr self, const std::shared_ptr<sync_op>& op, std::optional<region_error> e) {
  if (e) {
    op->reply.ok = false;
    op->reply.error = std::move(*e);
  } else {
    op->reply.ok = true;
  }
  op->rp.deliver(op->reply);
  self->state.window->complete();
}

void fail_sync(self_ptr self, const std::shared_ptr<sync_op>& op, const kp::error& e) {
  finish_sync(self, op, proxmox_error(e));
}

// Runs `next` after a write that answered, or fails the sync.
proxmox::done_callback sync_step(self_ptr self, std::shared_ptr<sync_op> op,
                                 std::function<void()> next) {
  return bounce_status(self, [self, op, next](status s) {
    if (!s) return fail_sync(self, op, s.error());
    ++op->reply.writes;
    next();
  });
}

// Pool: out of the old one, into the new one (only when they differ); the current pool is read
// fresh from /cluster/resources, as the inventory may be a minute old.
void sync_pool(self_ptr self, std::shared_ptr<sync_op> op) {
  self->state.api->cluster_resources(
      proxmox::resource_type::vm,
      bounce<std::vector<proxmox::cluster_resource>>(
          self, [self, op](result<std::vector<proxmox::cluster_resource>> r) {
            if (!r) return fail_sync(self, op, r.error());
            std::string current;
            for (const auto& res : *r) {
              if (res.vmid == op->vmid && res.type == "qemu") current = res.pool;
            }
            const auto wanted = op->req.resource_pool;
            if (current == wanted) return finish_sync(self, op, std::nullopt);
            op->reply.changed.push_back("pool");
            auto join = [self, op, wanted] {
              if (wanted.empty()) return finish_sync(self, op, std::nullopt);
              self->state.api->set_pool_member(
                  wanted, op->vmid, true,
                  sync_step(self, op, [self, op] { finish_sync(self, op, std::nullopt); }));
            };
            if (current.empty()) return join();
            self->state.api->set_pool_member(current, op->vmid, false, sync_step(self, op, join));
          }));
}

using write_fn = std::function<void(std::function<void()>)>;

// One write after another (the firewall's positions depend on the order), then the pool.
void run_writes(self_ptr self, std::shared_ptr<sync_op> op,
                std::shared_ptr<std::vector<write_fn>> writes, std::size_t i) {
  if (i == writes->size()) return sync_pool(self, op);
  (*writes)[i]([self, op, writes, i] { run_writes(self, op, writes, i + 1); });
}

// Group rules are matched by (iface, group): extras are deleted from the highest position
// down (positions shift), missing ones are added on top in reverse so they end in the wanted
// order. Other rule types are the user's and stay.
void sync_rules(self_ptr self, std::shared_ptr<sync_op> op) {
  self->state.api->firewall_rules(
      op->node, op->vmid,
      bounce<std::vector<proxmox::firewall_rule>>(
          self, [self, op](result<std::vector<proxmox::firewall_rule>> r) {
            if (!r) return fail_sync(self, op, r.error());
            std::set<std::pair<std::string, std::string>> wanted, have;
            for (const auto& g : op->req.security_groups) {
              wanted.insert({g.iface.empty() ? "net0" : g.iface, g.group});
            }
            std::vector<unsigned> extras;
            for (const auto& rule : *r) {
              if (rule.type != "group") continue;
              std::pair<std::string, std::string> key{rule.iface.empty() ? "net0" : rule.iface,
                                                      rule.action};
              if (wanted.count(key) != 0 && have.insert(key).second) continue;
              if (rule.pos) extras.push_back(*rule.pos);
            }
            std::sort(extras.rbegin(), extras.rend());
            std::vector<proxmox::firewall_rule> missing;
            for (auto it = op->req.security_groups.rbegin(); it != op->req.security_groups.rend();
                 ++it) {
              std::string iface = it->iface.empty() ? "net0" : it->iface;
              if (have.count({iface, it->group}) != 0) continue;
              have.insert({iface, it->group});  // a group listed twice is added once
              proxmox::firewall_rule rule;
              rule.type = "group";
              rule.action = it->group;
              rule.iface = iface;
              rule.enable = true;
              missing.push_back(rule);
            }
            if (!extras.empty() || !missing.empty()) op->reply.changed.push_back("firewall_rules");
            auto writes = std::make_shared<std::vector<write_fn>>();
            for (unsigned pos : extras) {
              writes->push_back([self, op, pos](std::function<void()> next) {
                self->state.api->delete_firewall_rule(op->node, op->vmid, pos,
                                                      sync_step(self, op, std::move(next)));
              });
            }
            for (const auto& rule : missing) {
              writes->push_back([self, op, rule](std::function<void()> next) {
                self->state.api->add_firewall_rule(op->node, op->vmid, rule,
                                                   sync_step(self, op, std::move(next)));
              });
            }
            run_writes(self, op, writes, 0);
          }));
}

// Options: enabled when groups are wanted (never turned off: other rules may rely on it).
void sync_firewall(self_ptr self, std::shared_ptr<sync_op> op) {
  if (op->req.security_groups.empty()) return sync_rules(self, op);
  self->state.api->firewall_options(
      op->node, op->vmid,
      bounce<proxmox::firewall_options>(self, [self, op](result<proxmox::firewall_options> r) {
        if (!r) return fail_sync(self, op, r.error());
        if (r->enable.value_or(false)) return sync_rules(self, op);
        op->reply.changed.push_back("firewall_options");
        proxmox::firewall_options o;
        o.enable = true;
        self->state.api->set_firewall_options(
            op->node, op->vmid, o, sync_step(self, op, [self, op] { sync_rules(self, op); }));
      }));
}

// Tags as a set; "karpenter" always, the Go provider's "go-proxmox+cloud-init" kept if present.
// The write carries the digest of the config the door read.
void sync_tags(self_ptr self, std::shared_ptr<sync_op> op) {
  auto wanted = normalised_tags(op->req.tags);
  for (const auto& t : op->config.tags) {
    if (t == "go-proxmox+cloud-init") wanted.push_back(t);
  }
  std::set<std::string> want_set(wanted.begin(), wanted.end());
  std::set<std::string> have_set(op->config.tags.begin(), op->config.tags.end());
  if (want_set == have_set) return sync_firewall(self, op);
  op->reply.changed.push_back("tags");
  proxmox::vm_config_update u;
  u.tags = std::vector<std::string>(want_set.begin(), want_set.end());
  u.digest = op->config.digest;
  self->state.api->update_vm_config(
      op->node, op->vmid, u,
      bounce<std::optional<proxmox::upid>>(
          self, [self, op, tags = *u.tags](result<std::optional<proxmox::upid>> w) {
            if (w) ++op->reply.writes;
            wait_optional_task(self, std::move(w), self->state.cfg.clone_wait,
                               [self, op, tags](status s) {
                                 if (!s) return fail_sync(self, op, s.error());
                                 auto it = self->state.vms.find(op->vmid);
                                 if (it != self->state.vms.end() && it->second.config) {
                                   it->second.config->tags = tags;
                                 }
                                 sync_firewall(self, op);
                               });
          }));
}

}  // namespace

void handle_sync(self_ptr self, sync_vm_request req,
                 caf::typed_response_promise<sync_vm_reply> rp) {
  auto& st = self->state;
  if (req.nodeclaim.empty() || req.vmid == 0) {
    sync_vm_reply reply;
    reply.error = {"invalid_request", "a sync names the VMID and the NodeClaim whose VM it is"};
    rp.deliver(reply);
    return;
  }
  auto op = std::make_shared<sync_op>();
  op->req = std::move(req);
  op->vmid = op->req.vmid;
  op->rp = rp;
  st.window->submit([self, op] {
    note_in_flight(self->state);
    check_vm(self, op->vmid, {op->req.nodeclaim, true}, [self, op](vm_check c) {
      switch (c.what) {
        case verdict::gone:
          return finish_sync(self, op,
                             region_error{"not_found", "no VM " + std::to_string(op->vmid) +
                                                           " in region " + self->state.cfg.region});
        case verdict::unknown:
          return finish_sync(self, op, unknown_error(c));
        case verdict::foreign:
          return finish_sync(
              self, op,
              refuse_foreign(self, "sync", c, "NodeClaim " + op->req.nodeclaim + "'s VM"));
        case verdict::ours:
        case verdict::adopted:
          break;
      }
      op->node = c.node;
      op->config = std::move(c.config);
      sync_tags(self, op);
    });
  });
}

}  // namespace kp::actors::region
