#include "cmd/karpenter-proxmox/run_controller.hpp"

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <thread>

#include <caf/all.hpp>

#include "actors/controller/controller_actor.hpp"
#include "actors/endpoint_probe.hpp"
#include "actors/readiness.hpp"
#include "actors/supervisor.hpp"
#include "cmd/karpenter-proxmox/api_clients.hpp"
#include "cmd/karpenter-proxmox/heap_limits.hpp"
#include "config/clusters_file.hpp"
#include "config/instance_types_file.hpp"
#include "config/kube_endpoint.hpp"
#include "config/node_settings_file.hpp"
#include "observability/endpoints.hpp"
#include "observability/health_state.hpp"
#include "observability/karpenter_metrics.hpp"
#include "observability/known_series.hpp"
#include "observability/logging.hpp"
#include "observability/metrics_registry.hpp"
#include "observability/redaction.hpp"
#include "protocol/kube/client.hpp"
#include "protocol/kube/client_config.hpp"
#include "protocol/proxmox/client.hpp"
#include "protocol/transport/http_client.hpp"
#include "protocol/transport/http_server.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "version.hpp"

namespace kp::cmd {
namespace {

constexpr const char* program = "karpenter-proxmox";
constexpr auto shutdown_deadline = std::chrono::milliseconds(4500);

int refuse(const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", program, message.c_str());
  return 2;
}

obs::log_level to_log_level(config::log_verbosity v) {
  switch (v) {
    case config::log_verbosity::debug:
      return obs::log_level::debug;
    case config::log_verbosity::info:
      return obs::log_level::info;
    case config::log_verbosity::warn:
      return obs::log_level::warn;
    case config::log_verbosity::error:
      return obs::log_level::error;
  }
  return obs::log_level::info;
}

std::vector<std::string> split_paths(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto comma = text.find(',', start);
    auto item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.empty()) out.push_back("stdout");
  return out;
}

// Exceptions that escaped a callback the transport ran: logged, never silent.
transport::failure_reporter transport_failure_log() {
  return [log = obs::logger("transport")](std::string_view where, std::string_view what) {
    log.error("a callback threw", {{"where", std::string(where)}, {"error", std::string(what)}});
  };
}

// Starts a server on settings' bind address; port 0 picks a free one.
result<std::unique_ptr<transport::http_server>> serve(boost::asio::io_context& io,
                                                      const std::string& address, int port,
                                                      transport::request_handler handler,
                                                      const std::string& what) {
  auto options = obs::endpoint_server_options(address, static_cast<std::uint16_t>(port));
  options.on_failure = transport_failure_log();
  auto server = std::make_unique<transport::http_server>(io, options, std::move(handler));
  if (auto started = server->start(); !started) {
    return make_error(started.error().code, what + " on " + address + ":" + std::to_string(port) +
                                                ": " + started.error().message);
  }
  return server;
}

// This replica's leader-election identity: the pod name (HOSTNAME in a pod) plus a random
// suffix, as client-go does, so two processes on one host never share it.
std::string replica_identity() {
  const char* host = std::getenv("HOSTNAME");
  std::random_device random;
  std::string suffix = std::to_string(random() % 1000000);
  return std::string(host != nullptr && *host != '\0' ? host : "karpenter-proxmox") + "_" + suffix;
}

// One Proxmox client per cluster; every request is counted by region, method, templated path
// and code, and timed.
std::shared_ptr<proxmox::client> proxmox_client(boost::asio::io_context& io,
                                                const config::settings& settings,
                                                const config::proxmox_cluster& cluster,
                                                std::shared_ptr<obs::karpenter_metrics> metrics) {
  auto s = proxmox_client_settings(settings, cluster, transport_failure_log());
  s.on_request = [metrics, region = cluster.region](const std::string& method,
                                                    const std::string& path, int status,
                                                    std::chrono::nanoseconds took) {
    metrics->proxmox_requests
        .Add({{"region", region},
              {"method", method},
              {"path", path},
              {"code", std::to_string(status)}})
        .Increment();
    metrics->proxmox_latency
        .Add({{"region", region}, {"method", method}, {"path", path}}, obs::duration_buckets())
        .Observe(std::chrono::duration<double>(took).count());
  };
  return std::make_shared<proxmox::client>(io, std::move(s));
}

// The actors the supervisor runs: the readiness actor, a reachability probe per Proxmox cluster
// (regions report through it), and the controller, which spawns everything else.
std::vector<actors::child_spec> controller_children(
    const config::clusters_file& clusters, std::shared_ptr<obs::health_state> health,
    boost::asio::io_context& io, std::vector<std::shared_ptr<transport::http_client>>& clients,
    actors::controller_inputs inputs) {
  std::vector<actors::child_spec> children;
  auto metrics = inputs.metrics;
  children.push_back({"readiness", [health, metrics](caf::actor_system& system) {
                        return caf::actor_cast<caf::actor>(
                            actors::spawn_readiness(system, health, metrics));
                      }});
  for (const auto& c : clusters.clusters) {
    transport::client_options options;
    options.ca_pem = c.ca_pem;
    options.insecure_skip_verify = c.insecure;
    options.connect_timeout = std::chrono::seconds(5);
    options.request_timeout = std::chrono::seconds(10);
    options.on_failure = transport_failure_log();
    auto client = std::make_shared<transport::http_client>(io, options);
    clients.push_back(client);
    actors::probe_target target{
        "proxmox region " + c.region, c.api_base(), "/version", {}, !c.uses_token()};
    if (c.uses_token()) {
      target.headers.emplace_back("Authorization",
                                  "PVEAPIToken=" + c.token_id + "=" + c.token_secret.reveal());
    }
    children.push_back(
        {"probe proxmox " + c.region, [client, target, metrics](caf::actor_system& system) {
           return caf::actor_cast<caf::actor>(
               actors::spawn_endpoint_probe(system, client, target, {}, metrics));
         }});
  }
  children.push_back({"controller", [inputs = std::move(inputs)](caf::actor_system& system) {
                        return actors::spawn_controller(system, inputs);
                      }});
  return children;
}

}  // namespace

int run_controller(const config::settings& settings) {
  limit_heap_growth();
  // Every thread started from here on inherits this mask, so only sigwait() below sees the
  // shutdown signals.
  sigset_t shutdown_signals;
  sigemptyset(&shutdown_signals);
  sigaddset(&shutdown_signals, SIGTERM);
  sigaddset(&shutdown_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &shutdown_signals, nullptr);
  // Every 15 s: a transient (a disruption pass every 10 s, a scrape) mostly finds an earlier
  // one's pages returned, and churn pays little for pages faulted back in. At 100,000 pods 5 s
  // cost 3x the churn lag and snapshot time for 10 MiB less peak, 30 s gave back most of the
  // saving (bench/controller_scale/README.md).
  heap_trimmer trimmer(std::chrono::seconds(15));

  obs::log_options log_options;
  log_options.level = to_log_level(settings.log_level);
  log_options.output_paths = split_paths(settings.log_output_paths);
  if (auto logging = obs::setup_logging(log_options); !logging) {
    return refuse("LOG_OUTPUT_PATHS: " + logging.error().message);
  }
  obs::logger log("controller");

  auto clusters = config::load_clusters_file(settings.cloud_config);
  if (!clusters) return refuse(clusters.error().message);
  auto kube = config::resolve_kube_endpoint(settings.kubeconfig, config::process_environment());
  if (!kube) return refuse(kube.error().message);
  for (const auto& c : clusters->clusters) {
    obs::register_secret(c.token_secret.reveal());
    obs::register_secret(c.password.reveal());
  }
  obs::register_secret(kube->token.reveal());

  log.info("starting", {{"version", kp::version},
                        {"clusters", std::to_string(clusters->clusters.size())},
                        {"kubernetes", config::strip_url_userinfo(kube->server)},
                        {"kubernetes_source", kube->source},
                        {"heap_allocator", std::string(heap_allocator())}});
  if (settings.cluster_name.empty()) {
    log.info("CLUSTER_NAME is empty: the UID of the kube-system namespace will name this cluster");
  }

  auto metrics = std::make_shared<obs::metrics_registry>();
  obs::register_build_info(metrics->registry(), kp::version);
  auto karpenter =
      std::make_shared<obs::karpenter_metrics>(metrics->registry(), metrics->per_object_registry());
  metrics->add_per_object(karpenter->pods_state);
  obs::prime_known_series(*karpenter);
  auto health = std::make_shared<obs::health_state>(&metrics->registry());
  health->set_condition("kubernetes api", false, "not connected yet");
  for (const auto& c : clusters->clusters) {
    health->set_condition("proxmox region " + c.region, false, "not connected yet");
  }

  auto io = std::make_unique<transport::io_runtime>(1, transport_failure_log());
  auto metrics_server = serve(io->context(), settings.bind_address, settings.metrics_port,
                              obs::metrics_endpoint(metrics), "metrics endpoint");
  if (!metrics_server) {
    log.error("cannot serve metrics", {{"reason", metrics_server.error().message}});
    return 1;
  }
  auto health_server = serve(io->context(), settings.bind_address, settings.health_probe_port,
                             obs::health_endpoint(health), "health probe endpoint");
  if (!health_server) {
    log.error("cannot serve health probes", {{"reason", health_server.error().message}});
    return 1;
  }
  log.info("serving metrics", {{"address", settings.bind_address},
                               {"port", std::to_string((*metrics_server)->port())},
                               {"path", "/metrics"}});
  log.info("serving health probes", {{"address", settings.bind_address},
                                     {"port", std::to_string((*health_server)->port())},
                                     {"paths", "/healthz,/readyz"}});

  auto kube_config = kube_client_config(settings);
  if (!kube_config) return refuse(kube_config.error().message);
  kube::client_options kube_options;
  kube_options.qps = settings.kube_client_qps;
  kube_options.burst = settings.kube_client_burst;
  kube_options.on_failure = transport_failure_log();
  auto kube_client = kube::client::create(io->context(), *kube_config, kube_options);
  if (!kube_client) return refuse("kubernetes client: " + kube_client.error().message);

  auto node_settings = config::load_node_settings_file(settings.node_setting_file);
  if (!node_settings) return refuse(node_settings.error().message);
  auto instance_types = config::load_instance_types(settings);
  if (!instance_types) return refuse(instance_types.error().message);

  // Events and the leader Lease get clients of their own: Events at most 50/s (a burst of
  // pods makes one Nominated Event each), the Lease unthrottled by everything else.
  kube::client_options event_options = kube_options;
  event_options.qps = 50;
  event_options.burst = 100;
  auto events_client = kube::client::create(io->context(), *kube_config, event_options);
  if (!events_client) return refuse("kubernetes client: " + events_client.error().message);
  kube::client_options lease_options = kube_options;
  lease_options.qps = 5;
  lease_options.burst = 10;
  auto lease_client = kube::client::create(io->context(), *kube_config, lease_options);
  if (!lease_client) return refuse("kubernetes client: " + lease_client.error().message);

  actors::controller_inputs inputs;
  inputs.events_kube = *events_client;
  inputs.lease_kube = *lease_client;
  inputs.node_settings = std::move(*node_settings);
  inputs.instance_types = std::move(*instance_types);
  inputs.settings = settings;
  inputs.clusters = *clusters;
  inputs.kube = *kube_client;
  inputs.metrics = karpenter;
  inputs.identity = replica_identity();
  std::vector<std::shared_ptr<proxmox::client>> proxmox_clients;  // closed at shutdown
  for (const auto& c : clusters->clusters) {
    proxmox_clients.push_back(proxmox_client(io->context(), settings, c, karpenter));
    inputs.proxmox[c.region] = proxmox_clients.back();
  }

  // One HTTP client per endpoint: TLS trust differs per Proxmox cluster and for Kubernetes.
  std::vector<std::shared_ptr<transport::http_client>> clients;
  auto children = controller_children(*clusters, health, io->context(), clients, inputs);

  int exit_code = 0;
  {
    caf::actor_system_config actor_config;
    // Work stealing polls for work with 50 us sleeps for a while after every job, on every
    // worker: in the 1,000-pod burst that was about half of the controller's CPU. The shared
    // queue's workers wait on a condition variable instead; one controller's actors need no
    // more than that.
    actor_config.set("scheduler.policy", caf::atom("sharing"));
    caf::actor_system system{actor_config};
    auto supervisor = actors::spawn_supervisor(system, std::move(children), {}, karpenter);
    log.info("controller running; waiting for SIGTERM or SIGINT");

    int signal_number = 0;
    sigwait(&shutdown_signals, &signal_number);
    log.info("shutting down", {{"signal", signal_number == SIGTERM ? "SIGTERM" : "SIGINT"}});

    // Whatever hangs, the process is gone within 5 s of the signal.
    std::thread([] {
      std::this_thread::sleep_for(shutdown_deadline);
      std::fprintf(stderr, "%s: shutdown took longer than 4.5s; exiting\n", program);
      std::_Exit(1);
    }).detach();

    {
      caf::scoped_actor self{system};
      self->monitor(supervisor);
      caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
      self->receive([](caf::down_msg&) {}, caf::after(std::chrono::seconds(3)) >>
                                               [&] {
                                                 log.warn("supervisor did not stop within 3s");
                                                 exit_code = 1;
                                               });
    }
    (*metrics_server)->stop();
    (*health_server)->stop();
    for (auto& client : clients) client->close();
    for (auto& client : proxmox_clients) client->close();
    io->stop();
    system.registry().erase(protocol::readiness_atom::value);
  }  // ~actor_system waits for the (already stopped) actors
  log.info("stopped");
  return exit_code;
}

}  // namespace kp::cmd
