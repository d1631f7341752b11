// The nodeclaim actor's registration and initialization phases: find the one Node with the
// claim's providerID, sync it (labels, taints, node class nodeLabels), write Registered=True and
// delete the claim's bootstrap tokens; then mark the Node initialized once it is ready.
#include <set>

#include <caf/all.hpp>

#include "actors/nodeclaim/agent_join.hpp"
#include "actors/nodeclaim/claim_state.hpp"
#include "actors/nodeclaim/launch_plan.hpp"
#include "actors/nodeclaim/launch_steps.hpp"
#include "actors/nodeclaim/node_sync.hpp"
#include "protocol/kube/patches.hpp"

namespace kp::actors::nodeclaim::detail {

// --- registration --------------------------------------------------------------------------------

void delete_tokens(self_ptr self, const kube::node_claim& claim) {
  auto& st = self->state;
  std::set<std::string> names;
  if (st.snapshot->bootstrap_tokens) {
    for (const auto& [key, secret] : *st.snapshot->bootstrap_tokens) {
      (void)key;
      auto owner = secret->metadata.labels.find(protocol::bootstrap_token_owner_label);
      if (owner != secret->metadata.labels.end() && owner->second == claim.metadata.name &&
          secret->metadata.namespace_ == st.ctx->settings.system_namespace) {
        names.insert(secret->metadata.name);
      }
    }
  }
  if (st.token) names.insert("bootstrap-token-" + st.token->id);
  for (const auto& name : names) {
    if (!st.tokens_deleting.insert(name).second) continue;
    st.ctx->kube->remove<kube::secret>(
        {st.ctx->settings.system_namespace, name}, {},
        in_actor_status(self, [self, name](status s) {
          auto& st = self->state;
          if (s || s.error().code == "not_found") {
            if (st.token && "bootstrap-token-" + st.token->id == name) st.token.reset();
            return;  // stays in tokens_deleting: the snapshot may still list it for a while
          }
          st.tokens_deleting.erase(name);  // try again on a later snapshot
        }));
  }
}

namespace {

std::vector<const kube::node*> nodes_with_provider_id(const claim_state& st,
                                                      const std::string& provider_id) {
  std::vector<const kube::node*> out;
  if (!st.snapshot->nodes || provider_id.empty()) return out;
  for (const auto& [key, node] : *st.snapshot->nodes) {
    (void)key;
    if (node->spec.provider_id == provider_id) out.push_back(node.get());
  }
  return out;
}

}  // namespace

void do_register(self_ptr self, const kube::node_claim& claim) {
  auto& st = self->state;
  auto nodes = nodes_with_provider_id(st, claim.status.provider_id);
  if (nodes.empty()) {
    write_condition(self, claim, "Registered", "Unknown", "NodeNotFound",
                    "no Node with providerID " + claim.status.provider_id + " yet");
    return;
  }
  if (nodes.size() > 1) {
    write_condition(
        self, claim, "Registered", "False", "MultipleNodesFound",
        std::to_string(nodes.size()) + " Nodes have providerID " + claim.status.provider_id);
    return;
  }
  std::string node_name = nodes.front()->metadata.name;
  // The node class's nodeLabels rendered for the claim's host (kproximate applies its
  // kpNodeLabels once the node is there): only those the Node lacks are written.
  std::optional<kube::proxmox_node_class> nc;
  if (const auto* found = protocol::cluster_snapshot::find(st.snapshot->node_classes,
                                                           claim.spec.node_class_ref.name)) {
    nc = *found;
  }
  st.busy = true;
  st.ctx->kube->update_with_retry<kube::node>(
      {"", node_name},
      [claim, nc](kube::node& n) {
        bool changed = sync_registered_node(n, claim);
        if (nc) {
          for (const auto& [k, v] : node_labels_to_apply(n, claim, *nc)) {
            n.metadata.labels[k] = v;
            changed = true;
          }
        }
        return changed;
      },
      in_actor<kube::node>(self, [self, claim, node_name](result<kube::node> r) {
        auto& st = self->state;
        if (!r) {
          st.log.warn("syncing the Node failed", {{"nodeclaim", claim.metadata.name},
                                                  {"node", node_name},
                                                  {"error", r.error().message}});
          phase_done(self, false);
          return;
        }
        kube::node_claim copy = claim;
        copy.status.node_name = node_name;
        set_condition(copy.status.conditions, "Registered", "True", "Registered", "",
                      now_rfc3339(st), claim.metadata.generation);
        write_status(self, copy, [self, copy](bool ok) {
          auto& st = self->state;
          if (ok) {
            st.registered_written = true;
            if (st.ctx->metrics) {
              st.ctx->metrics->nodes_created
                  .Add({{"nodepool", nodepool_of(copy)}, {"zone", label_of(copy, zone_label)}})
                  .Increment();
            }
            event(st, copy, "Normal", "Registered",
                  "Status condition transitioned, Type: Registered, Status: True");
            delete_tokens(self, copy);
          }
          phase_done(self, ok);
        });
      }));
}

// --- initialization ------------------------------------------------------------------------------

namespace {

// The VM's clone -> Ready by step, once, when this lifetime saw its launch answered.
void report_launch_steps(self_ptr self, const kube::node_claim& claim) {
  auto& st = self->state;
  if (!st.launch_answered_at || !st.launched || st.launched->uid != claim.metadata.uid) return;
  auto steps =
      steps_to_ready(st.launched->reply.steps, self->clock().now() - *st.launch_answered_at);
  st.launch_answered_at.reset();
  if (!steps) return;
  if (st.ctx->metrics) observe_launch_steps(*st.ctx->metrics, *steps);
  st.log.info("clone to ready", launch_step_fields(claim.metadata.name, *steps));
}

}  // namespace

void do_initialize(self_ptr self, const kube::node_claim& claim) {
  auto& st = self->state;
  const auto* node = protocol::cluster_snapshot::find(st.snapshot->nodes, claim.status.node_name);
  if (node == nullptr) {
    write_condition(self, claim, "Initialized", "Unknown", "NodeNotFound",
                    "Node " + claim.status.node_name + " not found");
    return;
  }
  if (auto why = not_initialized_reason(*node, claim)) {
    write_condition(self, claim, "Initialized", "Unknown", *why, "");
    return;
  }
  st.busy = true;
  auto finish = [self, claim]() {
    kube::node_claim copy = claim;
    set_condition(copy.status.conditions, "Initialized", "True", "Initialized", "",
                  now_rfc3339(self->state), claim.metadata.generation);
    write_status(self, copy, [self, claim](bool ok) {
      if (ok) report_launch_steps(self, claim);
      phase_done(self, ok);
    });
  };
  auto label = node->metadata.labels.find("karpenter.sh/initialized");
  if (label != node->metadata.labels.end() && label->second == "true") {
    finish();
    return;
  }
  st.ctx->kube->patch<kube::node>(
      {"", node->metadata.name}, kube::patch_type::merge,
      kube::labels_merge_patch({{"karpenter.sh/initialized", "true"}}, {}),
      in_actor<kube::node>(self, [self, finish](result<kube::node> r) {
        if (!r) {
          phase_done(self, false);
          return;
        }
        finish();
      }));
}

}  // namespace kp::actors::nodeclaim::detail
