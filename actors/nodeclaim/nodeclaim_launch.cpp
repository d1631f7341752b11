// The nodeclaim actor's launch phase: node class -> template -> cheapest instance type ->
// bootstrap token Secret -> templates -> region launch_atom, then the labels and status a
// successful launch gives the claim (Launched=True), or Launched=False with a reason.
#include <algorithm>
#include <random>

#include <boost/json.hpp>
#include <caf/all.hpp>

#include "actors/node_overlay/overlaid_types.hpp"
#include "actors/nodeclaim/agent_join.hpp"
#include "actors/nodeclaim/claim_state.hpp"
#include "actors/nodeclaim/launch_plan.hpp"
#include "actors/nodeclaim/template_secret_access.hpp"
#include "core/disruption/cluster.hpp"
#include "protocol/kube/node_class_pci.hpp"
#include "protocol/kube/patches.hpp"

namespace kp::actors::nodeclaim::detail {
namespace {

using namespace std::chrono_literals;
constexpr const char* controller_label = "nodeclaim.lifecycle";

// Every request to the region has a deadline. A launch's answer comes once the VM runs, so it
// may take as long as LAUNCH_TIMEOUT; a request that times out is asked again later and joins
// the launch still under way in the region.
std::chrono::milliseconds launch_request_timeout(const claim_state& st) {
  return std::max<std::chrono::milliseconds>(
      std::chrono::minutes(1),
      std::chrono::duration_cast<std::chrono::milliseconds>(st.ctx->settings.launch_timeout));
}

// --- metrics -------------------------------------------------------------------------------------

void observe_create(const claim_state& st, double seconds, const std::string& error) {
  if (!st.ctx->metrics) return;
  std::map<std::string, std::string> labels{
      {"controller", controller_label}, {"method", "Create"}, {"provider", "proxmox"}};
  st.ctx->metrics->cloudprovider_duration.Add(labels, obs::duration_buckets()).Observe(seconds);
  if (!error.empty()) {
    labels["error"] = error;
    st.ctx->metrics->cloudprovider_errors.Add(labels).Increment();
  }
}

// --- launch ------------------------------------------------------------------------------------

condition_reason reason_for(const std::string& code) {
  if (code == "node_class_missing") return "NodeClassNotFound";
  if (code == "template_missing") return "TemplateNotFound";
  if (code == "template_error") return "TemplateError";
  if (code == "no_capacity") return "InsufficientCapacity";
  if (code == "region_missing") return "RegionNotFound";
  if (code == "proxmox") return "ProxmoxError";
  if (code == "invalid_request") return "InvalidRequest";
  if (code == "invalid_node_class") return "InvalidNodeClass";
  if (code == "join_failed") return "JoinFailed";
  if (code == "unknown") return "ProxmoxStateUnknown";
  if (code == "not_ready") return "RegionNotReady";
  if (code == "secret_namespace_refused") return "NotInTemplateSecretNamespaces";
  return "LaunchFailed";
}

void launch_failed(self_ptr self, const kube::node_claim& claim, const std::string& code,
                   std::string message) {
  auto& st = self->state;
  if (message.size() > 300) message.resize(300);
  st.log.warn("launch failed",
              {{"nodeclaim", claim.metadata.name}, {"reason", code}, {"message", message}});
  event(st, claim, "Warning", "LaunchFailed", reason_for(code).str() + ": " + message);
  kube::node_claim copy = claim;
  bool changed = set_condition(copy.status.conditions, "Launched", "False", reason_for(code),
                               message, now_rfc3339(st), claim.metadata.generation);
  if (!changed) {
    phase_done(self, false);
    return;
  }
  st.busy = true;
  write_status(self, std::move(copy), [self](bool) { phase_done(self, false); });
}

// A Create that failed before the region was asked still counts in the cloud provider metrics.
void create_failed(self_ptr self, const kube::node_claim& claim,
                   std::chrono::steady_clock::time_point started, const std::string& code,
                   std::string message) {
  observe_create(self->state,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
                 code);
  launch_failed(self, claim, code, std::move(message));
}

// Writes what a successful launch gives the claim: labels, then providerID, image, resources
// and Launched=True.
void record_launch(self_ptr self, const kube::node_claim& claim) {
  auto& st = self->state;
  const auto& l = *st.launched;
  auto labels = launch_labels(claim, l.type, l.reply.region, l.reply.zone, l.node_class);
  st.busy = true;
  // The node class hash it launched with, for drift (Karpenter's providers stamp theirs here).
  kube::string_map annotations;
  if (const auto* nc = protocol::cluster_snapshot::find(st.snapshot->node_classes, l.node_class)) {
    for (auto key : {kp::disruption::annotations::nodeclass_hash,
                     kp::disruption::annotations::nodeclass_hash_version}) {
      auto it = nc->metadata.annotations.find(std::string(key));
      if (it != nc->metadata.annotations.end()) annotations[it->first] = it->second;
    }
  }
  auto patch = boost::json::parse(kube::labels_merge_patch(labels, {}));
  if (!annotations.empty()) {
    boost::json::object set;
    for (const auto& [k, v] : annotations) set[k] = v;
    patch.as_object()["metadata"].as_object()["annotations"] = std::move(set);
  }
  st.ctx->kube->patch<kube::node_claim>(
      {"", claim.metadata.name}, kube::patch_type::merge, boost::json::serialize(patch),
      in_actor<kube::node_claim>(self, [self](result<kube::node_claim> r) {
        auto& st = self->state;
        if (!r) {
          phase_done(self, false);
          return;
        }
        note_written(self, *r);
        const auto& l = *st.launched;
        kube::node_claim updated = *r;
        updated.status.provider_id = l.reply.provider_id;
        updated.status.image_id = l.image_id;
        updated.status.capacity = to_kube(l.type.capacity);
        updated.status.allocatable = to_kube(l.type.allocatable());
        set_condition(updated.status.conditions, "Launched", "True", "Launched", "",
                      now_rfc3339(st), updated.metadata.generation);
        write_status(self, updated, [self, updated](bool ok) {
          if (ok) {
            const auto& l = *self->state.launched;
            event(self->state, updated, "Normal", "Launched",
                  "Status condition transitioned, Type: Launched, Status: True (VM " +
                      std::to_string(l.reply.vmid) + " on " + l.reply.zone +
                      (l.reply.adopted ? ", adopted" : "") + ")");
          }
          phase_done(self, ok);
        });
      }));
}

// The claim's bootstrap token: one that exists for it and lives long enough, or a new Secret.
void ensure_token(self_ptr self, const kube::node_claim& claim,
                  std::function<void(result<std::string>)> done) {
  auto& st = self->state;
  auto now = st.ctx->wall_clock_ms();
  if (st.snapshot->bootstrap_tokens) {
    for (const auto& [key, secret] : *st.snapshot->bootstrap_tokens) {
      (void)key;
      auto owner = secret->metadata.labels.find(protocol::bootstrap_token_owner_label);
      if (owner == secret->metadata.labels.end() || owner->second != claim.metadata.name) continue;
      if (secret->metadata.namespace_ != st.ctx->settings.system_namespace) continue;
      if (secret->metadata.deletion_timestamp) continue;
      auto id = secret->data.find("token-id");
      auto sec = secret->data.find("token-secret");
      auto exp = secret->data.find("expiration");
      if (id == secret->data.end() || sec == secret->data.end()) continue;
      if (exp != secret->data.end()) {
        auto until = kube::parse_rfc3339_ms(exp->second.value);
        // The VM must still be able to join after booting: keep a margin.
        if (!until || *until < now + 5 * 60 * 1000) continue;
      }
      done(id->second.value + "." + sec->second.value);
      return;
    }
  }
  if (st.token) {
    done(st.token->token());
    return;
  }
  std::random_device rd;
  auto token = cloudinit::generate_bootstrap_token([&rd] { return rd(); });
  auto ttl = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::min<config::duration>(st.ctx->settings.bootstrap_token_ttl, 1h))
                 .count();
  kube::secret secret;
  secret.metadata.name = "bootstrap-token-" + token.id;
  secret.metadata.namespace_ = st.ctx->settings.system_namespace;
  secret.metadata.labels[protocol::bootstrap_token_owner_label] = claim.metadata.name;
  secret.type = "bootstrap.kubernetes.io/token";
  secret.data["description"].value = "karpenter-proxmox join token for " + claim.metadata.name;
  secret.data["token-id"].value = token.id;
  secret.data["token-secret"].value = token.secret;
  secret.data["expiration"].value = kube::format_rfc3339(now + ttl);
  secret.data["usage-bootstrap-authentication"].value = "true";
  secret.data["usage-bootstrap-signing"].value = "true";
  secret.data["auth-extra-groups"].value = protocol::bootstrap_token_group;
  st.ctx->kube->create<kube::secret>(
      secret, in_actor<kube::secret>(self, [self, token, done](result<kube::secret> r) {
        if (!r) {
          done(kp::error{r.error().code,
                         "creating the bootstrap token Secret: " + r.error().message});
          return;
        }
        self->state.token = token;
        done(token.token());
      }));
}

struct template_files {
  cloudinit::template_sources sources;
  std::map<std::string, std::string> values;
};

// The node class's templatesRef and valuesRef Secrets (none: the built-in defaults).
void load_templates(self_ptr self, const kube::proxmox_node_class& nc,
                    std::function<void(result<template_files>)> done) {
  auto files = std::make_shared<template_files>();
  const auto& md = nc.spec.metadata;
  const auto scope = template_secret_scope_of(self->state.ctx->settings);
  for (const auto& [field, ref] :
       {std::pair{"templatesRef", md.templates_ref}, std::pair{"valuesRef", md.values_ref}}) {
    if (auto refused = ref ? refuse_template_secret(field, *ref, scope) : std::nullopt)
      return done(kp::error{"secret_namespace_refused", *refused});
  }
  auto secret_ns = [&](const kube::secret_reference& ref) { return secret_namespace(ref, scope); };
  auto values_step = [self, files, done, values = md.values_ref,
                      ns = md.values_ref ? secret_ns(*md.values_ref) : std::string()]() {
    if (!values) {
      done(*files);
      return;
    }
    self->state.ctx->kube->get<kube::secret>(
        {ns, values->name},
        in_actor<kube::secret>(self, [files, done, ns, values](result<kube::secret> r) {
          if (!r) {
            done(kp::error{"template_error", "valuesRef Secret " + ns + "/" + values->name + ": " +
                                                 r.error().message});
            return;
          }
          for (const auto& [k, v] : r->data) files->values[k] = v.value;
          done(*files);
        }));
  };
  if (!md.templates_ref) {
    values_step();
    return;
  }
  auto ns = secret_ns(*md.templates_ref);
  auto name = md.templates_ref->name;
  self->state.ctx->kube->get<kube::secret>(
      {ns, name},
      in_actor<kube::secret>(self, [files, done, ns, name, values_step](result<kube::secret> r) {
        if (!r) {
          done(kp::error{"template_error",
                         "templatesRef Secret " + ns + "/" + name + ": " + r.error().message});
          return;
        }
        files->sources.origin = "Secret " + ns + "/" + name;
        for (const auto& [k, v] : r->data) files->sources.documents[k] = v.value;
        values_step();
      }));
}

}  // namespace

void launch(self_ptr self, const kube::node_claim& claim) {
  auto& st = self->state;
  if (st.launched && st.launched->uid == claim.metadata.uid) {
    record_launch(self, claim);  // the snapshot lags our write
    return;
  }
  auto started = std::chrono::steady_clock::now();
  auto choice = resolve_template(*st.snapshot, claim);
  if (!choice) {
    create_failed(self, claim, started, choice.error().code, choice.error().message);
    return;
  }
  std::vector<std::string> regions;
  for (const auto& [name, r] : st.ctx->regions) regions.push_back(name);
  auto region = pick_region(claim, *choice, regions);
  if (!region) {
    create_failed(self, claim, started, region.error().code, region.error().message);
    return;
  }
  // The price order and extended resources the provisioner chose by, NodeOverlays included.
  auto types = node_overlay::overlaid(
      node_overlay::with_node_class_offerings(st.ctx->instance_types, *st.snapshot, {*region}),
      *st.snapshot);
  // The node class's PCI devices: extended resources every VM of it gets (nvidia.com/gpu), on
  // top of the type, listed in the claim's capacity and allocatable (an invalid entry fails the
  // launch in apply_node_class).
  model::resource_list devices;
  if (auto pci = kube::pci_device_needs(*choice->node_class))
    for (const auto& [name, n] : placement::pci_resources(*pci))
      devices.set(name, model::quantity::from_units(n));
  auto type = cheapest_instance_type(types, claim, *region,
                                     st.ctx->settings.vm_memory_overhead_percent, devices);
  if (!type) {
    create_failed(self, claim, started, type.error().code, type.error().message);
    return;
  }
  st.busy = true;
  auto nc = *choice->node_class;
  auto template_name = choice->template_name;
  st.launch_image_id = choice->image_id;
  // The node class's kubelet maxPods lowers the pods the node offers (its status and kubelet).
  auto chosen = *type;
  if (nc.spec.kubelet && nc.spec.kubelet->max_pods &&
      (!chosen.capacity.has("pods") ||
       chosen.capacity.milli("pods") > *nc.spec.kubelet->max_pods * 1000)) {
    chosen.capacity.set("pods", model::quantity::from_units(*nc.spec.kubelet->max_pods));
  }
  chosen.capacity += devices;
  ensure_token(
      self, claim,
      [self, claim, nc, template_name, region = *region, type = chosen,
       started](result<std::string> token) {
        if (!token) {
          self->state.busy = false;
          create_failed(self, claim, started, token.error().code, token.error().message);
          return;
        }
        load_templates(
            self, nc,
            [self, claim, nc, template_name, region, type, started,
             token = *token](result<template_files> files) {
              auto& st = self->state;
              if (!files) {
                st.busy = false;
                create_failed(self, claim, started, files.error().code,
                              "node class " + nc.metadata.name + ": " + files.error().message);
                return;
              }
              auto plan = make_iso_plan(claim, nc, type, token, st.ctx->cluster_endpoint,
                                        st.ctx->cluster_ca_pem, st.ctx->kubernetes_version);
              plan.sources = files->sources;
              plan.inputs.values = files->values;
              if (nc.spec.metadata.type == "cdrom") {
                add_ssh_keys_to_values(plan.inputs.values, nc.spec.ssh_keys);
              }
              // A sample placement: a template that cannot render fails here, before a VM is
              // cloned to be removed.
              cloudinit::vm_placement sample{
                  region, "zone", 1, protocol::format_provider_id(region, 1), {}};
              if (nc.spec.metadata.type == "cdrom") {
                if (auto trial = cloudinit::render_nocloud_iso(plan, sample); !trial) {
                  st.busy = false;
                  create_failed(self, claim, started, "template_error",
                                "node class " + nc.metadata.name + ": " + trial.error().message);
                  return;
                }
              }
              auto zones = zones_for(claim, nc);
              protocol::launch_request req;
              req.nodeclaim = claim.metadata.name;
              req.nodepool = nodepool_of(claim);
              req.instance_type = type.name;
              req.vcpus = static_cast<int>(type.vm_cpus);
              req.memory_mib = static_cast<std::uint64_t>(type.vm_memory_bytes >> 20);
              req.zones = zones.allowed;
              req.excluded_zones = zones.excluded;
              req.template_name = template_name;
              // An earlier controller may have a clone for this claim still running.
              req.created_unix_ms =
                  kube::parse_rfc3339_ms(claim.metadata.creation_timestamp).value_or(0);
              // The VM the claim names already (the Go provider's, or ours before a restart):
              // the region adopts or resumes it instead of making another.
              if (auto named = parse_provider_id(claim.status.provider_id);
                  named && named->region == region) {
                req.expected_vmid = named->vmid;
              }
              // Placement strategy, host filters, disk size, tags, firewall and pool.
              if (auto applied = apply_node_class(req, nc); !applied) {
                st.busy = false;
                create_failed(self, claim, started, applied.error().code,
                              "node class " + nc.metadata.name + ": " + applied.error().message);
                return;
              }
              if (nc.spec.metadata.type == "cdrom") req.cloud_init = std::move(plan);
              if (nc.spec.metadata.type == "guestAgent") {
                // kproximate's kpQemuExecJoin: no ISO; the region runs the rendered command
                // through the guest agent once the VM answers.
                auto join =
                    make_join_plan(claim, nc, type.name, type.family, token,
                                   st.ctx->cluster_endpoint, st.ctx->cluster_ca_pem, files->values);
                if (auto trial = cloudinit::render_join_command(join, sample); !trial) {
                  st.busy = false;
                  create_failed(self, claim, started, "template_error", trial.error().message);
                  return;
                }
                req.agent_join = std::move(join);
              }
              auto target = st.ctx->regions.at(region);
              // The region's answer comes after the VM runs (or after its own task deadlines).
              self->request(target, launch_request_timeout(st), protocol::launch_atom::value,
                            std::move(req))
                  .then(
                      [self, claim, nc, template_name, type,
                       started](protocol::launch_reply& reply) {
                        auto& st = self->state;
                        double seconds = std::chrono::duration<double>(
                                             std::chrono::steady_clock::now() - started)
                                             .count();
                        st.busy = false;
                        if (!reply.ok) {
                          observe_create(st, seconds, reply.error.code);
                          auto message = reply.error.message;
                          if (reply.error.code == "template_error") {
                            message = "node class " + nc.metadata.name + ": " + message;
                          }
                          launch_failed(self, claim, reply.error.code, message);
                          return;
                        }
                        observe_create(st, seconds, "");
                        st.log.info("launched",
                                    {{"nodeclaim", claim.metadata.name},
                                     {"providerID", reply.provider_id},
                                     {"zone", reply.zone},
                                     {"instance-type", type.name},
                                     {"agent-requests", std::to_string(reply.agent_requests)}});
                        st.launched = launched_vm{
                            claim.metadata.uid, reply, type, template_name, nc.metadata.name,
                            st.launch_image_id};
                        st.launch_answered_at = self->clock().now();
                        // A VM made now carries this node class generation's tags, groups and
                        // pool already: no sync (three requests) until the class changes. A
                        // resumed or adopted VM is compared once, as after a restart.
                        if (!reply.adopted) {
                          st.synced_node_class =
                              nc.metadata.uid + "/" + std::to_string(nc.metadata.generation);
                        }
                        record_launch(self, claim);
                      },
                      [self, claim](caf::error& err) {
                        self->state.busy = false;
                        launch_failed(self, claim, "proxmox",
                                      "region actor: " + caf::to_string(err));
                      });
            });
      });
}

}  // namespace kp::actors::nodeclaim::detail
