#include "actors/controller/controller_actor.hpp"

#include <chrono>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <caf/all.hpp>

#include "actors/backoff.hpp"
#include "actors/capacity_buffer/capacity_buffer_actor.hpp"
#include "actors/cluster_state/cluster_state.hpp"
#include "actors/cluster_state/informer.hpp"
#include "actors/continuation.hpp"
#include "actors/controller_context.hpp"
#include "actors/disruption/disruption_actor.hpp"
#include "actors/event_recorder/event_recorder.hpp"
#include "actors/failure_boundary.hpp"
#include "actors/fleet_gauges/fleet_gauges.hpp"
#include "actors/garbage_collection/garbage_collector.hpp"
#include "actors/kproximate_gauges/kproximate_gauges.hpp"
#include "actors/leader_election/leader_elector.hpp"
#include "actors/node_overlay/node_overlay_status.hpp"
#include "actors/nodeclaim/nodeclaim_fleet.hpp"
#include "actors/nodeclass_status/nodeclass_status.hpp"
#include "actors/nodepool_status/nodepool_status.hpp"
#include "actors/provisioning/batcher.hpp"
#include "actors/provisioning/pod_watcher.hpp"
#include "actors/provisioning/provisioner.hpp"
#include "actors/readiness.hpp"
#include "actors/region/region_actor.hpp"
#include "actors/region/region_settings_from.hpp"
#include "actors/template_builder/template_builder.hpp"
#include "actors/termination/termination_actor.hpp"
#include "config/secret_namespaces.hpp"
#include "observability/logging.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::actors {
namespace {

using namespace std::chrono_literals;
using namespace kp::protocol;

using resolve_atom = caf::atom_constant<caf::atom("resolve")>;
using controller_impl =
    caf::typed_actor<caf::reacts_to<resume_atom, continuation>, caf::reacts_to<resolve_atom>,
                     caf::reacts_to<leadership_atom, bool>>;

constexpr const char* kubernetes_component = "kubernetes api";

struct controller_state {
  controller_inputs in;
  controller_context ctx;
  obs::logger log{"controller"};
  backoff retry{500ms, 10s};
  // Shared with the exit functor, which runs after the state is gone.
  struct children_list {
    std::vector<caf::actor> infrastructure;  // always running once resolved
    std::vector<caf::actor> writers;         // running only while this replica leads
  };
  std::shared_ptr<children_list> children = std::make_shared<children_list>();
  bool leading = false;
  static inline const char* name = "controller";
};

using self_ptr = controller_impl::stateful_pointer<controller_state>;

template <class T>
std::function<void(T)> resume(self_ptr self, std::function<void(T)> f) {
  return resume_in<T>(controller_impl{self}, std::move(f));
}

template <class Handle>
caf::actor untyped(const Handle& h) {
  return caf::actor_cast<caf::actor>(h);
}

// `e` is the failed read; transport failures read "not connected (...)" on /readyz, as the
// endpoint probes say it, and API refusals (403, 404) name the read.
void retry_resolve(self_ptr self, const std::string& what, const kp::error& e) {
  const bool transport = e.code == "connect" || e.code == "timeout" || e.code == "closed" ||
                         e.code == "tls" || e.code == "cancelled";
  const std::string why = transport ? "not connected (" + e.message + ")" : what + ": " + e.message;
  auto delay = self->state.retry.next();
  self->state.log.warn("cannot identify the cluster yet; retrying",
                       {{"reason", why}, {"retry_in_ms", std::to_string(delay.count())}});
  report_readiness(self->system(), {kubernetes_component, false, why});
  self->delayed_send(self, delay, resolve_atom::value);
}

disruption::disruption_options disruption_options_from(const controller_context& ctx) {
  using std::chrono::duration_cast;
  const auto& s = ctx.settings;
  disruption::disruption_options o;
  o.period = duration_cast<std::chrono::milliseconds>(s.disruption_poll_interval);
  o.validation_delay = duration_cast<std::chrono::milliseconds>(s.disruption_validation_delay);
  o.replacement_timeout =
      duration_cast<std::chrono::milliseconds>(s.disruption_replacement_timeout);
  o.repair_toleration = duration_cast<std::chrono::seconds>(s.node_repair_toleration);
  if (s.conservative_scale_down) {
    kp::disruption::conservative_settings c;
    c.stabilization = duration_cast<std::chrono::seconds>(s.scale_down_stabilization);
    c.min_node_age = duration_cast<std::chrono::seconds>(s.min_node_age);
    c.load_headroom = s.load_headroom;
    o.conservative = c;
  }
  return o;
}

void stop_writers(self_ptr self) {
  for (auto& w : self->state.children->writers) {
    self->demonitor(w);
    caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  }
  self->state.children->writers.clear();
}

void subscribe(self_ptr self, const snapshot_listener& listener) {
  caf::anon_send(self->state.ctx.cluster_state, subscribe_atom::value, listener);
}

// Spawns every actor that writes to Kubernetes or Proxmox; only the leader runs them.
void start_writers(self_ptr self) {
  auto& st = self->state;
  auto& sys = self->system();
  const auto& ctx = st.ctx;
  std::vector<snapshot_listener> readers;  // writers that also read snapshots

  auto provisioner = spawn_provisioner(sys, ctx);
  auto batcher = spawn_batcher(sys, ctx, provisioner);
  auto pod_watcher = spawn_pod_watcher(sys, ctx, batcher);
  st.children->writers.push_back(untyped(batcher));
  readers.push_back(provisioner);
  readers.push_back(pod_watcher);
  readers.push_back(spawn_nodeclaim_fleet(sys, ctx));
  readers.push_back(spawn_nodeclass_status(sys, ctx));
  readers.push_back(nodepool_status::spawn_nodepool_status(sys, ctx));
  if (ctx.settings.gates.node_overlay)
    readers.push_back(node_overlay::spawn_node_overlay_status(sys, ctx));
  readers.push_back(spawn_termination(sys, ctx));
  readers.push_back(spawn_garbage_collector(sys, ctx));
  auto disruption = disruption::spawn_disruption(sys, ctx, disruption_options_from(ctx));
  readers.push_back(disruption);
  if (ctx.settings.gates.capacity_buffer) {
    capacity_buffer::capacity_buffer_options cbo;
    cbo.listeners = {provisioner, disruption};
    readers.push_back(capacity_buffer::spawn_capacity_buffer(sys, ctx, std::move(cbo)));
  }
  readers.push_back(kproximate_gauges::spawn_kproximate_gauges(sys, ctx));
  readers.push_back(fleet_gauges::spawn_fleet_gauges(sys, ctx));
  readers.push_back(template_builder::spawn_template_builder(sys, ctx));
  for (auto& r : readers) {
    subscribe(self, r);
    st.children->writers.push_back(untyped(r));
  }
  for (auto& w : st.children->writers) self->monitor(w);
  st.log.info("leading: writers started",
              {{"actors", std::to_string(st.children->writers.size())}});
}

// The identity is known: spawn what runs whether or not this replica leads.
void start(self_ptr self) {
  auto& st = self->state;
  auto& sys = self->system();
  auto& ctx = st.ctx;
  st.retry.reset();
  report_readiness(sys, {kubernetes_component, true, ""});
  st.log.info("cluster identified", {{"cluster_name", ctx.cluster_name},
                                     {"kubernetes_version", ctx.kubernetes_version},
                                     {"cluster_endpoint", ctx.cluster_endpoint}});

  for (const auto& cluster : st.in.clusters.clusters) {
    auto client = st.in.proxmox.find(cluster.region);
    if (client == st.in.proxmox.end()) continue;
    auto rs =
        region::region_settings_from(ctx.settings, cluster, ctx.cluster_name, st.in.node_settings);
    rs.metrics = ctx.metrics ? &ctx.metrics->registry : nullptr;
    rs.karpenter = ctx.metrics;
    auto region = region::spawn_region_actor(sys, client->second, rs);
    ctx.regions.emplace(cluster.region, region);
    st.children->infrastructure.push_back(untyped(region));
  }

  cluster_state::cluster_state_options cso;
  cso.wall_clock_ms = ctx.wall_clock_ms;
  cso.max_publish_interval = std::chrono::milliseconds(500);
  cso.capacity_buffers = ctx.settings.gates.capacity_buffer;
  cso.watch_node_overlays = ctx.settings.gates.node_overlay;
  ctx.cluster_state = cluster_state::spawn_cluster_state(sys, ctx.metrics, cso);
  st.children->infrastructure.push_back(untyped(ctx.cluster_state));
  cluster_state::informer_options io;
  io.system_namespace = ctx.settings.system_namespace;
  io.capacity_buffers = ctx.settings.gates.capacity_buffer;
  io.metrics = ctx.metrics;
  io.watch_node_overlays = ctx.settings.gates.node_overlay;
  for (auto& informer : cluster_state::spawn_informers(sys, ctx.kube, ctx.cluster_state, io)) {
    st.children->infrastructure.push_back(informer);
  }
  event_recorder::event_recorder_options eo;
  eo.reporting_component = "karpenter";
  eo.metrics = ctx.metrics;
  ctx.events = event_recorder::spawn_event_recorder(
      sys, st.in.events_kube ? st.in.events_kube : ctx.kube, std::move(eo));
  st.children->infrastructure.push_back(untyped(ctx.events));

  if (ctx.settings.disable_leader_election) {
    st.log.info("leader election disabled: this replica writes");
    st.leading = true;
    start_writers(self);
  } else {
    auto leo =
        leader_election::options_from(ctx.settings, st.in.identity, ctx.kube->config().namespace_);
    leo.wall_clock_ms = ctx.wall_clock_ms;
    leo.metrics = ctx.metrics;
    auto elector = leader_election::spawn_leader_elector(
        sys, st.in.lease_kube ? st.in.lease_kube : ctx.kube, leo, leadership_listener{self});
    st.children->infrastructure.push_back(untyped(elector));
    st.log.info("waiting for the leader Lease",
                {{"lease", leo.namespace_ + "/" + leo.name}, {"identity", leo.identity}});
  }
  for (auto& a : st.children->infrastructure) self->monitor(a);
}

std::string parse_git_version(const std::string& body) {
  boost::system::error_code ec;
  auto v = boost::json::parse(body, ec);
  if (ec || !v.is_object()) return "";
  const auto* git = v.as_object().if_contains("gitVersion");
  if (git == nullptr || !git->is_string()) return "";
  return std::string(git->as_string());
}

// Reads the kube-system namespace's UID (CLUSTER_NAME by default) and the server version.
void resolve(self_ptr self) {
  auto kube = self->state.ctx.kube;
  kube->get<kube::namespace_object>(
      {"", "kube-system"},
      resume<result<kube::namespace_object>>(self, [self, kube](result<kube::namespace_object> ns) {
        if (!ns) {
          retry_resolve(self, "cannot read namespace kube-system", ns.error());
          return;
        }
        if (self->state.ctx.cluster_name.empty()) self->state.ctx.cluster_name = ns->metadata.uid;
        kube->request("GET", "/version", "", "",
                      resume<result<std::string>>(self, [self](result<std::string> body) {
                        if (!body) {
                          retry_resolve(self, "cannot read /version", body.error());
                          return;
                        }
                        self->state.ctx.kubernetes_version = parse_git_version(*body);
                        start(self);
                      }));
      }));
}

controller_impl::behavior_type controller_behavior(self_ptr self, controller_inputs in) {
  auto& st = self->state;
  st.in = std::move(in);
  auto& ctx = st.ctx;
  ctx.kube = st.in.kube;
  ctx.metrics = st.in.metrics;
  ctx.settings = st.in.settings;
  // TEMPLATE_SECRET_NAMESPACES in force from now on: the setting, or SYSTEM_NAMESPACE and the
  // namespace the controller runs in.
  ctx.settings.template_secret_namespaces =
      config::template_secret_namespaces(ctx.settings, ctx.kube->config().namespace_);
  st.log.info(
      "template Secrets are read only from",
      {{"namespaces", config::format_namespace_list(ctx.settings.template_secret_namespaces)}});
  ctx.cluster_name = st.in.settings.cluster_name;
  ctx.cluster_endpoint = st.in.settings.cluster_endpoint.empty() ? ctx.kube->config().server
                                                                 : st.in.settings.cluster_endpoint;
  ctx.cluster_ca_pem = ctx.kube->config().ca_pem;
  ctx.instance_types = st.in.instance_types;

  // Children die with the controller, whatever the reason.
  self->attach_functor([children = st.children] {
    for (auto& w : children->writers) caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
    for (auto& a : children->infrastructure) {
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    }
  });
  // The controller's one job is wiring the others up: a failure there is not confined but
  // reported by the boundary's last net, and the supervisor starts the controller afresh.
  install_boundary(self, make_boundary("controller", ctx.metrics));
  // A child that stops by itself is a failure: stop, and let the supervisor start afresh.
  self->set_down_handler([self](caf::down_msg& down) {
    self->state.log.error("a controller actor stopped; restarting the controller",
                          {{"reason", caf::to_string(down.reason)}});
    self->quit(caf::exit_reason::unhandled_exception);
  });

  self->send(self, resolve_atom::value);
  return {
      [self](resolve_atom) { resolve(self); },
      [self](resume_atom, continuation& c) { c.run(); },
      [self](leadership_atom, bool leading) {
        auto& st = self->state;
        if (leading == st.leading) return;
        st.leading = leading;
        if (leading) {
          start_writers(self);
        } else {
          stop_writers(self);
          st.log.warn("lost the leader Lease: writers stopped");
        }
      },
  };
}

}  // namespace

caf::actor spawn_controller(caf::actor_system& system, controller_inputs inputs) {
  return caf::actor_cast<caf::actor>(system.spawn(controller_behavior, std::move(inputs)));
}

}  // namespace kp::actors
