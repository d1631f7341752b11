#include "sim/kube/cluster.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/serialize.hpp>
#include <cstdio>

#include "protocol/transport/http_server.hpp"
#include "sim/kube/api_server.hpp"
#include "sim/kube/json_util.hpp"
#include "sim/kube/test_controls.hpp"

namespace kp::sim::kube {
namespace json = boost::json;
namespace net = boost::asio;

namespace {
std::string random_token() {
  auto a = make_uid();
  auto b = make_uid();
  std::string out;
  for (char c : a + b)
    if (c != '-') out += c;
  return out;
}
}  // namespace

struct cluster::impl : std::enable_shared_from_this<cluster::impl> {
  net::io_context& io;
  cluster_options options;
  std::optional<transport::certificate_authority> ca;
  resource_registry registry;
  watch_hub hub;
  object_store store;
  operations ops;
  std::unique_ptr<api_server> api;
  std::unique_ptr<transport::http_server> server;
  std::vector<std::unique_ptr<controller>> controllers;
  net::steady_timer tick_timer;
  net::steady_timer pass_timer;
  bool pass_armed = false;
  bool in_pass = false;
  bool dirty = false;
  bool stopped = false;
  std::chrono::steady_clock::time_point last_pass{};
  std::chrono::steady_clock::duration last_pass_cost{};

  impl(net::io_context& io_, cluster_options o)
      : io(io_),
        options(std::move(o)),
        hub(options.watch_history),
        store(hub),
        ops(registry, store, [] { return std::chrono::system_clock::now(); }),
        tick_timer(io_),
        pass_timer(io_) {}

  void request_pass() {
    if (stopped) return;
    if (in_pass || pass_armed) {
      dirty = true;
      return;
    }
    pass_armed = true;
    // Passes scan the store, so under a burst of writes they may take at most a third of the time.
    auto gap = std::max<std::chrono::steady_clock::duration>(options.min_pass_interval,
                                                             2 * last_pass_cost);
    auto at = std::max(std::chrono::steady_clock::now(), last_pass + gap);
    pass_timer.expires_at(at);
    pass_timer.async_wait([w = weak_from_this()](const boost::system::error_code& ec) {
      auto self = w.lock();
      if (!self || ec) return;
      self->pass_armed = false;
      self->run_pass();
    });
  }

  void run_pass() {
    if (stopped || in_pass) return;
    in_pass = true;
    dirty = false;
    auto started = std::chrono::steady_clock::now();
    controller_context ctx{ops, options.controllers, *ca, std::chrono::system_clock::now()};
    for (auto& c : controllers) {
      auto it = options.enabled.find(c->name());
      if (it != options.enabled.end() && !it->second) continue;
      try {
        c->reconcile(ctx);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "kube-sim: controller %s failed: %s\n", c->name(), e.what());
      }
    }
    in_pass = false;
    last_pass = std::chrono::steady_clock::now();
    last_pass_cost = last_pass - started;
    if (dirty) {
      dirty = false;
      request_pass();
    }
  }

  void arm_tick() {
    tick_timer.expires_after(options.tick);
    tick_timer.async_wait([w = weak_from_this()](const boost::system::error_code& ec) {
      auto self = w.lock();
      if (!self || ec || self->stopped) return;
      self->hub.tick(std::chrono::steady_clock::now(), self->store.current_rv(),
                     self->options.bookmark_interval);
      self->request_pass();  // time-driven work (leases, grace periods), paced like any pass
      self->arm_tick();
    });
  }

  void seed() {
    user_info system{"system:apiserver", "", {"system:masters"}};
    const auto* ns_type = registry.find("", "v1", "namespaces");
    const auto* cm_type = registry.find("", "v1", "configmaps");
    for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
      write_options wo;
      (void)ops.create(*ns_type, "", json::object{{"metadata", json::object{{"name", name}}}},
                       system, wo);
      write_options wo2;
      (void)ops.create(*cm_type, name,
                       json::object{{"metadata", json::object{{"name", "kube-root-ca.crt"}}},
                                    {"data", json::object{{"ca.crt", ca->certificate_pem()}}}},
                       system, wo2);
    }
    // cluster-info as kubeadm publishes it for bootstrap discovery (without JWS signatures).
    std::string kubeconfig =
        "apiVersion: v1\nkind: Config\nclusters:\n- name: \"\"\n  cluster:\n"
        "    certificate-authority-data: " +
        base64_encode(ca->certificate_pem()) + "\n    server: " + url() +
        "\ncontexts: null\ncurrent-context: \"\"\nusers: null\n";
    write_options wo;
    (void)ops.create(*cm_type, "kube-public",
                     json::object{{"metadata", json::object{{"name", "cluster-info"}}},
                                  {"data", json::object{{"kubeconfig", kubeconfig}}}},
                     system, wo);
  }

  std::string url() const {
    return "https://" + options.address + ":" +
           std::to_string(server ? server->port() : options.port);
  }
};

cluster::cluster(net::io_context& io, cluster_options options)
    : impl_(std::make_shared<impl>(io, std::move(options))) {}

cluster::~cluster() {
  stop();
}

status cluster::start() {
  auto& s = *impl_;
  if (s.options.admin_token.empty()) s.options.admin_token = random_token();
  auto ca = transport::certificate_authority::create("kube-sim-ca");
  if (!ca) return ca.error();
  s.ca = std::move(ca.value());
  auto server_cert = s.ca->issue_server({"localhost", "kubernetes", "kubernetes.default"},
                                        {"127.0.0.1", s.options.address});
  if (!server_cert) return server_cert.error();
  api_server_settings settings;
  settings.auth.admin_token = s.options.admin_token;
  s.api = std::make_unique<api_server>(s.ops, s.hub, settings);
  std::weak_ptr<impl> weak = impl_;
  s.api->set_control_handler([weak](const std::string& method, std::string_view path,
                                    const json::value& body) -> api_result<json::object> {
    auto self = weak.lock();
    if (!self) return internal_error("stopping");
    control_targets t{self->ops,
                      self->hub,
                      self->options.enabled,
                      self->api->auth(),
                      self->api->requests_served(),
                      self->api->requests_by_method()};
    auto r = handle_test_control(t, method, path, body);
    self->request_pass();
    return r;
  });
  s.controllers.push_back(make_namespace_controller(s.ca->certificate_pem()));
  s.controllers.push_back(make_csr_signer());
  s.controllers.push_back(make_token_cleaner());
  s.controllers.push_back(make_node_lifecycle());
  s.controllers.push_back(make_garbage_collector());
  s.controllers.push_back(make_deployment_controller());
  s.controllers.push_back(make_replicaset_controller());
  s.controllers.push_back(make_daemonset_controller());
  s.controllers.push_back(make_statefulset_controller());
  s.controllers.push_back(make_job_controller());
  s.controllers.push_back(make_scheduler());
  s.controllers.push_back(make_kubelet());
  s.controllers.push_back(make_disruption_controller());
  s.ops.on_change = [weak] {
    if (auto self = weak.lock()) self->request_pass();
  };

  transport::server_options so;
  so.address = s.options.address;
  so.port = s.options.port;
  so.tls = transport::server_tls{server_cert->certificate_pem, server_cert->private_key_pem,
                                 s.ca->certificate_pem()};
  so.idle_timeout = std::chrono::seconds(3600);  // watches may be quiet for a long time
  so.body_limit = s.options.max_request_body;
  so.stream_buffer_limit = std::size_t{256} << 20;  // watch replays of large collections
  api_error too_large;
  too_large.code = 413;
  too_large.reason = "RequestEntityTooLarge";
  too_large.message =
      "Request entity too large: limit is " + std::to_string(s.options.max_request_body);
  transport::http_response too_large_reply;
  too_large_reply.status = 413;
  too_large_reply.headers.emplace_back("Content-Type", "application/json");
  too_large_reply.body = json::serialize(too_large.to_status());
  so.body_limit_reply = std::move(too_large_reply);
  s.server = std::make_unique<transport::http_server>(
      s.io, so, [weak](transport::http_request req, std::shared_ptr<transport::http_exchange> ex) {
        if (auto self = weak.lock()) self->api->handle(std::move(req), std::move(ex));
      });
  if (auto st = s.server->start(); !st) return st;
  s.seed();
  s.arm_tick();
  return {};
}

void cluster::stop() {
  auto& s = *impl_;
  if (s.stopped) return;
  s.stopped = true;
  s.tick_timer.cancel();
  s.pass_timer.cancel();
  s.hub.drop_all();
  if (s.server) s.server->stop();
}

std::uint16_t cluster::port() const {
  return impl_->server ? impl_->server->port() : 0;
}
std::string cluster::server_url() const {
  return impl_->url();
}
const std::string& cluster::ca_pem() const {
  return impl_->ca->certificate_pem();
}
const std::string& cluster::admin_token() const {
  return impl_->options.admin_token;
}

std::string cluster::admin_kubeconfig() const {
  return "apiVersion: v1\nkind: Config\nclusters:\n- name: kube-sim\n  cluster:\n    server: " +
         server_url() + "\n    certificate-authority-data: " + base64_encode(ca_pem()) +
         "\nusers:\n- name: kube-sim-admin\n  user:\n    token: " + admin_token() +
         "\ncontexts:\n- name: kube-sim\n  context:\n    cluster: kube-sim\n    user: "
         "kube-sim-admin\n"
         "    namespace: default\ncurrent-context: kube-sim\n";
}

result<transport::key_pair_pem> cluster::issue_client_certificate(
    const std::string& common_name, const std::vector<std::string>& groups) const {
  return impl_->ca->issue_client(common_name, groups);
}

}  // namespace kp::sim::kube
