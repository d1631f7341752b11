// The nodeclaim actor. One phase runs at a time (`busy`); each phase ends with a write to the
// claim, and snapshots older than our last write are skipped (their resourceVersion is lower),
// so a phase never runs twice on a state we already changed. The launch result is also kept in
// memory for the claim's UID: a snapshot that lags the status write re-writes the status from it
// instead of asking the region again. Kubernetes completions come back as continuations; region
// replies and timers are ordinary messages, so everything runs inside the actor.
#include "actors/nodeclaim/nodeclaim_actor.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <random>
#include <set>

#include <boost/json.hpp>
#include <caf/all.hpp>

#include "actors/backoff.hpp"
#include "actors/continuation.hpp"
#include "actors/nodeclaim/agent_join.hpp"
#include "actors/nodeclaim/claim_conditions.hpp"
#include "actors/nodeclaim/launch_plan.hpp"
#include "actors/nodeclaim/node_sync.hpp"
#include "actors/nodeclaim/template_secret_access.hpp"
#include "actors/status_refusals.hpp"
#include "core/cloudinit/bootstrap_token.hpp"
#include "core/disruption/cluster.hpp"
#include "observability/logging.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/kube/patches.hpp"

namespace kp::actors::nodeclaim {
namespace {

using namespace std::chrono_literals;
using retry_atom = caf::atom_constant<caf::atom("ncretry")>;
using deadline_atom = caf::atom_constant<caf::atom("ncdeadline")>;
using impl_actor = protocol::nodeclaim_actor::extend<caf::reacts_to<resume_atom, continuation>,
                                                     caf::reacts_to<retry_atom>,
                                                     caf::reacts_to<deadline_atom, int>>;

constexpr int launch_deadline = 0;
constexpr int registration_deadline = 1;
constexpr const char* controller_label = "nodeclaim.lifecycle";

struct launched_vm {
  std::string uid;
  protocol::launch_reply reply;
  instance_types::instance_type type;
  std::string template_name;
  std::string node_class;
};

struct claim_state {
  controller_context ctx;
  std::string claim_name;
  protocol::snapshot_ptr snapshot;
  obs::logger log{"nodeclaim"};
  bool busy = false;
  std::int64_t written_rv = -1;  // resourceVersion our last claim write produced
  std::optional<launched_vm> launched;
  std::optional<cloudinit::bootstrap_token> token;  // made by us this lifetime
  backoff retry{1s, 60s};
  bool retry_pending = false;
  bool launch_armed = false;
  bool registration_armed = false;
  bool registered_written = false;
  bool iso_released = false;
  std::string synced_node_class;  // "<uid>/<generation>" of the node class last synced to the VM
  std::set<std::string> tokens_deleting;
  status_refusals refusals;

  static inline const char* name = "nodeclaim";
};

using self_ptr = impl_actor::stateful_pointer<claim_state>;

template <class T>
std::function<void(result<T>)> in_actor(self_ptr self, std::function<void(result<T>)> f) {
  return resume_in<result<T>>(impl_actor{self}, std::move(f));
}

std::function<void(status)> in_actor_status(self_ptr self, std::function<void(status)> f) {
  return resume_in<status>(impl_actor{self}, std::move(f));
}

std::int64_t rv_number(const std::string& rv) {
  std::int64_t n = -1;
  auto [p, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), n);
  return ec == std::errc{} && p == rv.data() + rv.size() ? n : -1;
}

std::string now_rfc3339(const claim_state& st) {
  return kube::format_rfc3339(st.ctx.wall_clock_ms());
}

const kube::node_claim* current_claim(const claim_state& st) {
  if (!st.snapshot) return nullptr;
  return protocol::cluster_snapshot::find(st.snapshot->node_claims, st.claim_name);
}

void note_written(self_ptr self, const kube::node_claim& written) {
  auto n = rv_number(written.metadata.resource_version);
  if (n >= 0) self->state.written_rv = std::max(self->state.written_rv, n);
}

void event(const claim_state& st, const kube::node_claim& claim, std::string type,
           std::string reason, std::string message) {
  protocol::event_record e;
  e.kind = "NodeClaim";
  e.api_version = "karpenter.sh/v1";
  e.name = claim.metadata.name;
  e.uid = claim.metadata.uid;
  e.type = std::move(type);
  e.reason = std::move(reason);
  e.message = std::move(message);
  record_event(st.ctx, std::move(e));
}

std::string nodepool_of(const kube::node_claim& claim) {
  auto it = claim.metadata.labels.find(nodepool_label);
  return it == claim.metadata.labels.end() ? "" : it->second;
}

std::string label_of(const kube::node_claim& claim, const char* key) {
  auto it = claim.metadata.labels.find(key);
  return it == claim.metadata.labels.end() ? "" : it->second;
}

void reconcile(self_ptr self);

// Every request to the region has a deadline. A launch's answer comes once the VM runs, so it
// may take as long as LAUNCH_TIMEOUT; a request that times out is asked again later and joins
// the launch still under way in the region.
std::chrono::milliseconds launch_request_timeout(const claim_state& st) {
  return std::max<std::chrono::milliseconds>(
      std::chrono::minutes(1),
      std::chrono::duration_cast<std::chrono::milliseconds>(st.ctx.settings.launch_timeout));
}
constexpr auto region_request_timeout = std::chrono::minutes(5);

void schedule_retry(self_ptr self) {
  auto& st = self->state;
  if (st.retry_pending) return;
  st.retry_pending = true;
  self->delayed_send(self, st.retry.next(), retry_atom::value);
}

// Ends a phase: `ok` resets the backoff and looks at the state again; otherwise retry later.
void phase_done(self_ptr self, bool ok) {
  self->state.busy = false;
  if (ok) {
    self->state.retry.reset();
    reconcile(self);
  } else {
    schedule_retry(self);
  }
}

// Root Ready follows Launched, Registered and Initialized.
void set_ready(claim_state& st, kube::node_claim& claim) {
  auto& c = claim.status.conditions;
  bool all = condition_is_true(c, "Launched") && condition_is_true(c, "Registered") &&
             condition_is_true(c, "Initialized");
  set_condition(c, "Ready", all ? "True" : "Unknown",
                all ? condition_reason("Ready") : condition_reason("NotReady"), "", now_rfc3339(st),
                claim.metadata.generation);
}

// Writes the claim's status (merge patch of the status subresource) and then runs `next`.
void write_status(self_ptr self, kube::node_claim claim, std::function<void(bool)> next) {
  set_ready(self->state, claim);
  const auto gen = claim.metadata.generation;
  self->state.ctx.kube->patch<kube::node_claim>(
      {"", claim.metadata.name}, kube::patch_type::merge,
      kube::node_claim_status_merge_patch(claim),
      in_actor<kube::node_claim>(self,
                                 [self, next, gen](result<kube::node_claim> r) {
                                   auto& st = self->state;
                                   if (r) {
                                     note_written(self, *r);
                                   } else if (status_refusals::is_refusal(r.error())) {
                                     st.refusals.report(r.error(), "NodeClaim", st.claim_name, gen,
                                                        "", st.ctx.metrics.get(), st.log);
                                   } else {
                                     self->state.log.warn(
                                         "writing the NodeClaim status failed",
                                         {{"nodeclaim", self->state.claim_name},
                                          {"error", r.error().code + ": " + r.error().message}});
                                   }
                                   next(r.ok());
                                 }),
      "status");
}

// Sets one condition and writes the status only when it changed.
void write_condition(self_ptr self, const kube::node_claim& claim, const std::string& type,
                     const std::string& status, condition_reason reason,
                     const std::string& message) {
  kube::node_claim copy = claim;
  if (!set_condition(copy.status.conditions, type, status, reason, message,
                     now_rfc3339(self->state), claim.metadata.generation)) {
    return;
  }
  self->state.busy = true;
  write_status(self, std::move(copy), [self](bool ok) {
    self->state.busy = false;
    if (!ok) schedule_retry(self);  // nothing else would bring us back if the cluster is quiet
  });
}

// --- metrics -------------------------------------------------------------------------------------

void observe_create(const claim_state& st, double seconds, const std::string& error) {
  if (!st.ctx.metrics) return;
  std::map<std::string, std::string> labels{
      {"controller", controller_label}, {"method", "Create"}, {"provider", "proxmox"}};
  st.ctx.metrics->cloudprovider_duration.Add(labels, obs::duration_buckets()).Observe(seconds);
  if (!error.empty()) {
    labels["error"] = error;
    st.ctx.metrics->cloudprovider_errors.Add(labels).Increment();
  }
}

// --- finalizer
// -------------------------------------------------------------------------------------

bool has_finalizer(const kube::node_claim& claim) {
  const auto& f = claim.metadata.finalizers;
  return std::find(f.begin(), f.end(), termination_finalizer) != f.end();
}

void add_finalizer(self_ptr self, const kube::node_claim& claim) {
  auto finalizers = claim.metadata.finalizers;
  finalizers.push_back(termination_finalizer);
  self->state.busy = true;
  self->state.ctx.kube->patch<kube::node_claim>(
      {"", claim.metadata.name}, kube::patch_type::merge,
      kube::finalizers_merge_patch(finalizers, claim.metadata.resource_version),
      in_actor<kube::node_claim>(self, [self](result<kube::node_claim> r) {
        if (r) note_written(self, *r);
        // A conflict means a newer claim is on its way: the next snapshot tries again.
        self->state.busy = false;
        if (!r && r.error().code != "conflict") schedule_retry(self);
      }));
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
  st.ctx.kube->patch<kube::node_claim>(
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
        updated.status.image_id = l.template_name;
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
  auto now = st.ctx.wall_clock_ms();
  if (st.snapshot->bootstrap_tokens) {
    for (const auto& [key, secret] : *st.snapshot->bootstrap_tokens) {
      (void)key;
      auto owner = secret->metadata.labels.find(protocol::bootstrap_token_owner_label);
      if (owner == secret->metadata.labels.end() || owner->second != claim.metadata.name) continue;
      if (secret->metadata.namespace_ != st.ctx.settings.system_namespace) continue;
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
                 std::min<config::duration>(st.ctx.settings.bootstrap_token_ttl, 1h))
                 .count();
  kube::secret secret;
  secret.metadata.name = "bootstrap-token-" + token.id;
  secret.metadata.namespace_ = st.ctx.settings.system_namespace;
  secret.metadata.labels[protocol::bootstrap_token_owner_label] = claim.metadata.name;
  secret.type = "bootstrap.kubernetes.io/token";
  secret.data["description"].value = "karpenter-proxmox join token for " + claim.metadata.name;
  secret.data["token-id"].value = token.id;
  secret.data["token-secret"].value = token.secret;
  secret.data["expiration"].value = kube::format_rfc3339(now + ttl);
  secret.data["usage-bootstrap-authentication"].value = "true";
  secret.data["usage-bootstrap-signing"].value = "true";
  secret.data["auth-extra-groups"].value = protocol::bootstrap_token_group;
  st.ctx.kube->create<kube::secret>(
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
  const auto scope = template_secret_scope_of(self->state.ctx.settings);
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
    self->state.ctx.kube->get<kube::secret>(
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
  self->state.ctx.kube->get<kube::secret>(
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
  for (const auto& [name, r] : st.ctx.regions) regions.push_back(name);
  auto region = pick_region(claim, *choice, regions);
  if (!region) {
    create_failed(self, claim, started, region.error().code, region.error().message);
    return;
  }
  auto type = cheapest_instance_type(st.ctx.instance_types, claim, *region);
  if (!type) {
    create_failed(self, claim, started, type.error().code, type.error().message);
    return;
  }
  st.busy = true;
  auto nc = *choice->node_class;
  auto template_name = choice->template_name;
  // The node class's kubelet maxPods lowers the pods the node offers (its status and kubelet).
  auto chosen = *type;
  if (nc.spec.kubelet && nc.spec.kubelet->max_pods &&
      (!chosen.capacity.has("pods") ||
       chosen.capacity.milli("pods") > *nc.spec.kubelet->max_pods * 1000)) {
    chosen.capacity.set("pods", model::quantity::from_units(*nc.spec.kubelet->max_pods));
  }
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
              auto plan = make_iso_plan(claim, nc, type, token, st.ctx.cluster_endpoint,
                                        st.ctx.cluster_ca_pem, st.ctx.kubernetes_version);
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
                                   st.ctx.cluster_endpoint, st.ctx.cluster_ca_pem, files->values);
                if (auto trial = cloudinit::render_join_command(join, sample); !trial) {
                  st.busy = false;
                  create_failed(self, claim, started, "template_error", trial.error().message);
                  return;
                }
                req.agent_join = std::move(join);
              }
              auto target = st.ctx.regions.at(region);
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
                        st.launched = launched_vm{claim.metadata.uid, reply, type, template_name,
                                                  nc.metadata.name};
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

// --- registration --------------------------------------------------------------------------------

void delete_tokens(self_ptr self, const kube::node_claim& claim) {
  auto& st = self->state;
  std::set<std::string> names;
  if (st.snapshot->bootstrap_tokens) {
    for (const auto& [key, secret] : *st.snapshot->bootstrap_tokens) {
      (void)key;
      auto owner = secret->metadata.labels.find(protocol::bootstrap_token_owner_label);
      if (owner != secret->metadata.labels.end() && owner->second == claim.metadata.name &&
          secret->metadata.namespace_ == st.ctx.settings.system_namespace) {
        names.insert(secret->metadata.name);
      }
    }
  }
  if (st.token) names.insert("bootstrap-token-" + st.token->id);
  for (const auto& name : names) {
    if (!st.tokens_deleting.insert(name).second) continue;
    st.ctx.kube->remove<kube::secret>(
        {st.ctx.settings.system_namespace, name}, {}, in_actor_status(self, [self, name](status s) {
          auto& st = self->state;
          if (s || s.error().code == "not_found") {
            if (st.token && "bootstrap-token-" + st.token->id == name) st.token.reset();
            return;  // stays in tokens_deleting: the snapshot may still list it for a while
          }
          st.tokens_deleting.erase(name);  // try again on a later snapshot
        }));
  }
}

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
  st.ctx.kube->update_with_retry<kube::node>(
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
            if (st.ctx.metrics) {
              st.ctx.metrics->nodes_created
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
    write_status(self, copy, [self](bool ok) { phase_done(self, ok); });
  };
  auto label = node->metadata.labels.find("karpenter.sh/initialized");
  if (label != node->metadata.labels.end() && label->second == "true") {
    finish();
    return;
  }
  st.ctx.kube->patch<kube::node>(
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

// The region refused to touch the VM the claim names: its VMID holds a VM that is not this
// claim's (ours vanished and someone reused the id). Treated as gone for this claim, never
// touched; said once on the claim.
void foreign_vm(self_ptr self, const std::string& what, const std::string& message) {
  auto& st = self->state;
  st.log.warn("the VM the claim names is not its own; leaving it untouched",
              {{"nodeclaim", st.claim_name}, {"while", what}, {"reason", message}});
  if (const auto* claim = current_claim(st)) {
    event(st, *claim, "Warning", "ForeignVM", message);
  }
}

void release_iso(self_ptr self, const kube::node_claim& claim) {
  auto& st = self->state;
  auto ref = parse_provider_id(claim.status.provider_id);
  auto region = ref ? st.ctx.regions.find(ref->region) : st.ctx.regions.end();
  if (region == st.ctx.regions.end()) {
    st.iso_released = true;  // not a VM of ours to clean up
    return;
  }
  protocol::release_iso_request req;
  req.vmid = ref->vmid;
  req.nodeclaim = claim.metadata.name;
  st.busy = true;
  self->request(region->second, region_request_timeout, protocol::release_iso_atom::value, req)
      .then(
          [self](protocol::release_iso_reply& reply) {
            auto& st = self->state;
            st.busy = false;
            if (reply.ok || reply.error.code == "foreign_vm") {
              if (!reply.ok) foreign_vm(self, "releasing the cloud-init ISO", reply.error.message);
              st.iso_released = true;
              st.retry.reset();
              return;
            }
            st.log.warn("releasing the cloud-init ISO failed",
                        {{"nodeclaim", st.claim_name}, {"error", reply.error.message}});
            schedule_retry(self);
          },
          [self](caf::error&) {
            self->state.busy = false;
            schedule_retry(self);
          });
}

// Tags, firewall groups and pool follow the node class in place: once per node class
// generation (and once after a restart) the region compares the VM with it and writes only the
// differences (kpp.md 4.5).
void sync_with_node_class(self_ptr self, const kube::node_claim& claim) {
  auto& st = self->state;
  const auto* nc =
      protocol::cluster_snapshot::find(st.snapshot->node_classes, claim.spec.node_class_ref.name);
  auto ref = parse_provider_id(claim.status.provider_id);
  auto region = ref ? st.ctx.regions.find(ref->region) : st.ctx.regions.end();
  if (nc == nullptr || region == st.ctx.regions.end()) return;
  auto version = nc->metadata.uid + "/" + std::to_string(nc->metadata.generation);
  if (version == st.synced_node_class) return;
  st.busy = true;
  self->request(region->second, region_request_timeout, protocol::sync_vm_atom::value,
                sync_request_for(ref->vmid, claim.metadata.name, *nc))
      .then(
          [self, version](protocol::sync_vm_reply& reply) {
            auto& st = self->state;
            st.busy = false;
            if (reply.error.code == "foreign_vm") {
              foreign_vm(self, "syncing the VM with its node class", reply.error.message);
              st.synced_node_class = version;  // nothing of ours to sync there
              return;
            }
            if (!reply.ok) {
              st.log.warn("syncing the VM with its node class failed",
                          {{"nodeclaim", st.claim_name}, {"error", reply.error.message}});
              schedule_retry(self);
              return;
            }
            st.synced_node_class = version;
            if (!reply.changed.empty()) {
              std::string what;
              for (const auto& c : reply.changed) what += (what.empty() ? "" : ",") + c;
              st.log.info("VM updated in place from its node class",
                          {{"nodeclaim", st.claim_name}, {"changed", what}});
            }
          },
          [self](caf::error&) {
            self->state.busy = false;
            schedule_retry(self);
          });
}

// --- timeouts ------------------------------------------------------------------------------------

std::chrono::milliseconds remaining(const claim_state& st, const std::string& since,
                                    config::duration timeout) {
  auto start = kube::parse_rfc3339_ms(since).value_or(st.ctx.wall_clock_ms());
  auto elapsed = st.ctx.wall_clock_ms() - start;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count() - elapsed;
  return std::chrono::milliseconds(std::max<std::int64_t>(0, left));
}

void arm_timers(self_ptr self, const kube::node_claim& claim) {
  auto& st = self->state;
  const auto& c = claim.status.conditions;
  if (!condition_is_true(c, "Launched") && !st.launch_armed) {
    st.launch_armed = true;
    self->delayed_send(
        self, remaining(st, claim.metadata.creation_timestamp, st.ctx.settings.launch_timeout),
        deadline_atom::value, launch_deadline);
  }
  if (condition_is_true(c, "Launched") && !condition_is_true(c, "Registered") &&
      !st.registration_armed) {
    st.registration_armed = true;
    const auto* launched = find_condition(c, "Launched");
    self->delayed_send(
        self, remaining(st, launched->last_transition_time, st.ctx.settings.registration_timeout),
        deadline_atom::value, registration_deadline);
  }
}

void on_deadline(self_ptr self, int which) {
  auto& st = self->state;
  const auto* claim = current_claim(st);
  if (claim == nullptr || claim->metadata.deletion_timestamp) return;
  const auto& c = claim->status.conditions;
  std::string reason;
  if (which == launch_deadline) {
    if (condition_is_true(c, "Launched") || st.launched) return;
    reason = "launch_timeout";
  } else {
    if (condition_is_true(c, "Registered") || st.registered_written) return;
    reason = "registration_timeout";
  }
  auto copy = *claim;
  st.log.warn("deleting the NodeClaim: " + reason, {{"nodeclaim", copy.metadata.name}});
  event(st, copy, "Warning", which == launch_deadline ? "LaunchTimeout" : "RegistrationTimeout",
        which == launch_deadline
            ? "not launched within LAUNCH_TIMEOUT; deleting the NodeClaim"
            : "no Node registered within REGISTRATION_TIMEOUT; deleting the NodeClaim");
  kube::delete_options opts;
  opts.precondition_uid =
      copy.metadata.uid.empty() ? std::nullopt : std::optional<std::string>(copy.metadata.uid);
  st.ctx.kube->remove<kube::node_claim>(
      {"", copy.metadata.name}, opts, in_actor_status(self, [self, copy, reason, which](status s) {
        auto& st = self->state;
        if (s || s.error().code == "not_found") {
          if (st.ctx.metrics && s) {
            st.ctx.metrics->nodeclaims_disrupted
                .Add({{"reason", reason},
                      {"nodepool", nodepool_of(copy)},
                      {"capacity_type", "on-demand"}})
                .Increment();
          }
          return;
        }
        // Try again soon: re-arm from the same (already passed) deadline.
        if (which == launch_deadline)
          st.launch_armed = false;
        else
          st.registration_armed = false;
        schedule_retry(self);
      }));
}

// --- the phase loop ------------------------------------------------------------------------------

void reconcile(self_ptr self) {
  auto& st = self->state;
  if (st.busy) return;
  const auto* claim = current_claim(st);
  if (claim == nullptr || claim->metadata.deletion_timestamp) return;
  auto rv = rv_number(claim->metadata.resource_version);
  if (rv >= 0 && rv < st.written_rv) return;  // older than our last write: wait
  if (st.launched && st.launched->uid != claim->metadata.uid) {
    st.launched.reset();  // a new claim with the same name
  }
  if (!has_finalizer(*claim)) {
    add_finalizer(self, *claim);
    return;
  }
  arm_timers(self, *claim);
  const auto& c = claim->status.conditions;
  if (!condition_is_true(c, "Launched")) {
    if (st.retry_pending) return;
    launch(self, *claim);
    return;
  }
  if (!condition_is_true(c, "Registered")) {
    if (!st.retry_pending) do_register(self, *claim);
    return;
  }
  delete_tokens(self, *claim);  // level-triggered: a token left by a crash goes too
  if (!condition_is_true(c, "Initialized")) {
    if (!st.retry_pending) do_initialize(self, *claim);
    return;
  }
  if (st.retry_pending) return;
  if (!st.iso_released) {
    release_iso(self, *claim);
    return;
  }
  sync_with_node_class(self, *claim);
}

impl_actor::behavior_type claim_behavior(self_ptr self, controller_context ctx, std::string name) {
  self->state.ctx = std::move(ctx);
  self->state.claim_name = std::move(name);
  return {
      [self](protocol::snapshot_ptr snapshot) {
        self->state.snapshot = std::move(snapshot);
        reconcile(self);
      },
      [self](resume_atom, continuation& c) { c.run(); },
      [self](retry_atom) {
        self->state.retry_pending = false;
        reconcile(self);
      },
      [self](deadline_atom, int which) { on_deadline(self, which); },
  };
}

}  // namespace

protocol::nodeclaim_actor spawn_nodeclaim_actor(caf::actor_system& system,
                                                const controller_context& ctx, std::string name) {
  auto impl = system.spawn(claim_behavior, ctx, std::move(name));
  return impl;
}

}  // namespace kp::actors::nodeclaim
