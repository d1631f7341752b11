#include "cmd/karpenter-proxmox/plan/live_reader.hpp"

#include <cstdio>

#include "cmd/karpenter-proxmox/api_clients.hpp"
#include "config/instance_types_file.hpp"
#include "config/node_settings_file.hpp"
#include "observability/logging.hpp"
#include "observability/redaction.hpp"
#include "protocol/kube/client.hpp"
#include "protocol/proxmox/client.hpp"
#include "protocol/transport/io_runtime.hpp"

namespace kp::plan {

struct live_reader::clients {
  std::string cluster_name;
  std::unique_ptr<transport::io_runtime> io;
  std::shared_ptr<kube::client> kube;
  std::vector<std::pair<std::string, std::shared_ptr<proxmox::client>>> regions;
};

namespace {

transport::failure_reporter stderr_failures(const std::string& tool) {
  return [tool](std::string_view where, std::string_view what) {
    std::fprintf(stderr, "karpenter-proxmox: %s: a callback threw in %.*s: %.*s\n", tool.c_str(),
                 static_cast<int>(where.size()), where.data(), static_cast<int>(what.size()),
                 what.data());
  };
}

}  // namespace

status log_warnings_to_stderr() {
  obs::log_options options;
  options.level = obs::log_level::warn;
  options.output_paths = {"stderr"};
  return obs::setup_logging(options);
}

result<controller_files> load_controller_files(const config::settings& settings) {
  controller_files out;
  auto clusters = config::load_clusters_file(settings.cloud_config);
  if (!clusters) return clusters.error();
  for (const auto& c : clusters->clusters) {
    obs::register_secret(c.token_secret.reveal());
    obs::register_secret(c.password.reveal());
  }
  out.clusters = std::move(*clusters);
  auto node_settings = config::load_node_settings_file(settings.node_setting_file);
  if (!node_settings) return node_settings.error();
  if (!node_settings->hosts.empty()) out.node_settings = std::move(*node_settings);
  auto types = config::load_instance_types(settings);
  if (!types) return types.error();
  out.instance_types = std::move(*types);
  return out;
}

live_reader::live_reader(std::unique_ptr<clients> c) : clients_(std::move(c)) {}

live_reader::~live_reader() {
  for (auto& [region, client] : clients_->regions) client->close();
  clients_->io->stop();
}

result<std::unique_ptr<live_reader>> live_reader::create(const config::settings& settings,
                                                         const config::clusters_file& clusters,
                                                         const std::string& tool) {
  auto kube_config = cmd::kube_client_config(settings);
  if (!kube_config) return kube_config.error();
  auto c = std::make_unique<clients>();
  c->cluster_name = settings.cluster_name;
  c->io = std::make_unique<transport::io_runtime>(1, stderr_failures(tool));
  kube::client_options kube_options;
  kube_options.qps = settings.kube_client_qps;
  kube_options.burst = settings.kube_client_burst;
  kube_options.on_failure = stderr_failures(tool);
  auto kube = kube::client::create(c->io->context(), *kube_config, kube_options);
  if (!kube) return make_error(kube.error().code, "kubernetes client: " + kube.error().message);
  c->kube = std::move(*kube);
  for (const auto& cluster : clusters.clusters) {
    c->regions.emplace_back(
        cluster.region, std::make_shared<proxmox::client>(
                            c->io->context(), cmd::proxmox_client_settings(settings, cluster,
                                                                           stderr_failures(tool))));
  }
  return std::unique_ptr<live_reader>(new live_reader(std::move(c)));
}

result<live_world> live_reader::read(std::chrono::steady_clock::time_point deadline) {
  auto world = read_kubernetes(*clients_->kube, clients_->cluster_name, deadline);
  if (!world) return world.error();
  // The kube-system UID, once read, names the cluster for every later look.
  clients_->cluster_name = world->cluster_name;
  for (auto& [region, client] : clients_->regions)
    world->regions.push_back(read_region(*client, region, deadline));
  return world;
}

}  // namespace kp::plan
