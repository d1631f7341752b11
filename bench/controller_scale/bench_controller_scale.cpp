// bench-controller-scale: the controller in a large cluster at rest and under pod churn.
// kube-sim holds 5,000 Ready nodes (4,000 of them ours: NodeClaims and VMs in a 100-host pve-sim)
// and 100,000 Running pods over 500 namespaces in the shapes of bench-scheduling's diverse case;
// the controller starts, syncs, rests, then sees 500 pod updates per second. Figures only.
//   bench-controller-scale [--scale X] [--nodes N] [--pods N] [--rest-seconds N] [--churn-seconds
//   N] [--churn-rate N]
//                          [--settle-seconds N] [--bin-dir DIR] [--keep] [--set FLAG=VALUE]...
//                          [--controller-binary PATH]
// (--controller-binary runs the measured controller through a wrapper, e.g. a script that execs
// heaptrack or valgrind on build/bin/karpenter-proxmox with the arguments it is given)
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/controller_scale/churn_driver.hpp"
#include "bench/controller_scale/scale_world.hpp"
#include "sim/lab/http_endpoint.hpp"
#include "sim/lab/lab_world.hpp"
#include "sim/lab/process_sample.hpp"

namespace {

namespace json = boost::json;
using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

void on_signal(int) {
  kp::lab::terminate_children_from_signal();
  _exit(130);
}

double since(clock_type::time_point a, clock_type::time_point b = clock_type::now()) {
  return std::chrono::duration<double>(b - a).count();
}

struct arguments {
  double scale = 1.0;
  int nodes = 0, pods = 0;  // 0: the scaled default
  int rest_seconds = 60, churn_seconds = 60, churn_rate = 500, settle_seconds = 10;
  std::string bin_dir, controller_binary;
  bool keep = false;
  std::map<std::string, std::string> settings;
};

std::optional<double> number(const std::string& text) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<arguments> parse(int argc, char** argv) {
  arguments a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--keep") {
      a.keep = true;
      continue;
    }
    if (i + 1 >= argc) return std::nullopt;
    std::string v = argv[++i];
    auto n = number(v);
    if (k == "--bin-dir") {
      a.bin_dir = v;
    } else if (k == "--controller-binary") {
      a.controller_binary = v;
    } else if (k == "--set" && v.find('=') != std::string::npos) {
      a.settings[v.substr(0, v.find('='))] = v.substr(v.find('=') + 1);
    } else if (n && *n > 0 && k == "--scale") {
      a.scale = *n;
    } else if (n && *n >= 2 && k == "--nodes") {
      a.nodes = static_cast<int>(*n);
    } else if (n && *n >= 1 && k == "--pods") {
      a.pods = static_cast<int>(*n);
    } else if (n && *n >= 0 && k == "--rest-seconds") {
      a.rest_seconds = static_cast<int>(*n);
    } else if (n && *n >= 0 && k == "--churn-seconds") {
      a.churn_seconds = static_cast<int>(*n);
    } else if (n && *n > 0 && k == "--churn-rate") {
      a.churn_rate = static_cast<int>(*n);
    } else if (n && *n >= 0 && k == "--settle-seconds") {
      a.settle_seconds = static_cast<int>(*n);
    } else {
      return std::nullopt;
    }
  }
  return a;
}

// ---- the controller's /metrics ----------------------------------------------------------------

// GET /metrics?name=<family>: the controller serves only that family (cheap while it holds a
// series per pod).
std::string scrape(int port, const std::string& family = "") {
  kp::lab::http_endpoint endpoint("http://127.0.0.1:" + std::to_string(port), "", "");
  auto r =
      endpoint.call("GET", family.empty() ? "/metrics" : "/metrics?name=" + family, "", "", 30s);
  return r && r->ok() ? r->body : std::string();
}

// The value of the first sample of `family` whose labels contain `labels` ("" = any).
std::optional<double> sample(const std::string& exposition, const std::string& family,
                             const std::string& labels = "") {
  std::istringstream in(exposition);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(family, 0) != 0) continue;
    auto rest = line.substr(family.size());
    if (rest.empty() || (rest[0] != ' ' && rest[0] != '{')) continue;
    if (!labels.empty() && rest.find(labels) == std::string::npos) continue;
    auto space = line.rfind(' ');
    if (auto v = number(line.substr(space + 1))) return v;
  }
  return std::nullopt;
}

// histogram_quantile over one histogram family's buckets (all series summed), in seconds.
std::optional<double> histogram_quantile(const std::string& exposition, const std::string& family,
                                         double q) {
  std::map<double, double> buckets;  // le -> cumulative count
  std::istringstream in(exposition);
  std::string line;
  const auto prefix = family + "_bucket{";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    auto le = line.find("le=\"");
    auto space = line.rfind(' ');
    if (le == std::string::npos || space == std::string::npos) continue;
    auto end = line.find('"', le + 4);
    auto bound_text = line.substr(le + 4, end - le - 4);
    double bound = bound_text == "+Inf" ? 1e300 : number(bound_text).value_or(-1);
    buckets[bound] += number(line.substr(space + 1)).value_or(0);
  }
  if (buckets.empty() || buckets.rbegin()->second <= 0) return std::nullopt;
  const double rank = q * buckets.rbegin()->second;
  double lower = 0, below = 0;
  for (const auto& [bound, count] : buckets) {
    if (count >= rank) {
      if (bound >= 1e300) return lower;
      return lower + (bound - lower) * (count - below > 0 ? (rank - below) / (count - below) : 1);
    }
    lower = bound;
    below = count;
  }
  return lower;
}

// ---- phases -----------------------------------------------------------------------------------

kp::status post_batches(kp::lab::lab_world& world, const std::vector<std::string>& batches) {
  for (const auto& body : batches) {
    auto r = world.kube().call("POST", "/sim/v1/objects", body, "application/json", 300s);
    if (!r) return r.error();
    if (!r->ok()) return kp::make_error("load", "POST /sim/v1/objects: " + r->body.substr(0, 400));
  }
  return {};
}

kp::status load_world(kp::lab::lab_world& world, const kp::bench::scale_shape& shape) {
  if (auto s = post_batches(world, kp::bench::namespace_batches(shape, 500)); !s) return s;
  if (auto s = post_batches(world, kp::bench::node_batches(shape, 400)); !s) return s;
  if (auto s = post_batches(world, kp::bench::nodeclaim_batches(shape, 400)); !s) return s;
  const int batch = 1000;
  for (int first = 0; first < shape.pods; first += batch) {
    if (auto s = post_batches(world, {kp::bench::pod_batch(shape, first, batch)}); !s) return s;
  }
  return {};
}

std::string annotation(kp::lab::lab_world& world, const std::string& path, const std::string& key) {
  auto r = world.kube().call("GET", path);
  if (!r || !r->ok()) return "";
  auto v = r->json();
  const auto* meta = v.is_object() ? v.as_object().if_contains("metadata") : nullptr;
  const auto* ann =
      meta && meta->is_object() ? meta->as_object().if_contains("annotations") : nullptr;
  const auto* value = ann && ann->is_object() ? ann->as_object().if_contains(key) : nullptr;
  return value && value->is_string() ? std::string(value->as_string()) : "";
}

// A first controller (under another CLUSTER_NAME, so that it owns none of the VMs) stamps the
// NodePool's and the ProxmoxNodeClass's hashes; the NodeClaims are then loaded carrying them,
// as NodeClaims launched by a running controller do.
kp::result<std::vector<std::pair<std::string, std::string>>> stamped_hashes(
    kp::lab::lab_world& world) {
  auto index = world.start_controller(
      {{"cluster-name", "scale-hash-probe"}, {"disable-leader-election", "true"}});
  if (!index) return index.error();
  const std::string pool = "/apis/karpenter.sh/v1/nodepools/default";
  const std::string klass =
      "/apis/karpenter.proxmox.sinextra.dev/v1alpha1/proxmoxnodeclasses/default";
  std::vector<std::pair<std::string, std::string>> out;
  bool done = kp::lab::lab_world::eventually(
      [&] {
        out.clear();
        for (const auto& [path, key] : std::vector<std::pair<std::string, std::string>>{
                 {pool, "karpenter.sh/nodepool-hash"},
                 {pool, "karpenter.sh/nodepool-hash-version"},
                 {klass, "karpenter.proxmox.sinextra.dev/nodeclass-hash"},
                 {klass, "karpenter.proxmox.sinextra.dev/nodeclass-hash-version"}}) {
          auto value = annotation(world, path, key);
          if (value.empty()) return false;
          out.emplace_back(key, value);
        }
        return true;
      },
      60s);
  world.stop_controller(*index);
  if (!done)
    return kp::make_error("timeout", "the NodePool and node class hashes were not stamped");
  return out;
}

long kube_requests(kp::lab::lab_world& world) {
  auto r = world.kube().call("GET", "/sim/v1/stats");
  if (!r || !r->ok()) return -1;
  auto v = r->json();
  const auto* n = v.is_object() ? v.as_object().if_contains("requests") : nullptr;
  return n && n->is_int64() ? static_cast<long>(n->as_int64()) : -1;
}

}  // namespace

int main(int argc, char** argv) {
  auto args = parse(argc, argv);
  if (!args) {
    std::fprintf(stderr,
                 "usage: bench-controller-scale [--scale X] [--nodes N] [--pods N] [--rest-seconds "
                 "N] [--churn-seconds N] "
                 "[--churn-rate N] [--settle-seconds N] [--bin-dir DIR] [--keep] "
                 "[--set FLAG=VALUE]... [--controller-binary PATH]\n");
    return 2;
  }
  if (args->bin_dir.empty()) {
    std::error_code ec;
    args->bin_dir = std::filesystem::canonical("/proc/self/exe", ec).parent_path().string();
  }
  auto shape = kp::bench::scaled_shape(args->scale);
  if (args->nodes > 0) {
    shape.nodes = args->nodes;
    shape.owned_nodes = std::max(1, shape.nodes * 4 / 5);
  }
  if (args->pods > 0) shape.pods = args->pods;
  shape.cluster_name = "scale";

  kp::lab::lab_options options;
  options.bin_dir = args->bin_dir;
  options.keep_work_dir = args->keep;
  options.controller_binary = args->controller_binary;
  options.cluster_name = shape.cluster_name;
  options.topology_yaml =
      kp::bench::topology_yaml(shape, kp::lab::uniform_topology_yaml(shape.hosts, 512, 4096, true));
  // The world is loaded as it runs: no simulated scheduler, kubelet or node lifecycle (5,000
  // nodes renewing Leases would be kube-sim's load, not the controller's).
  options.kube_sim_args = {"--disable-controllers",
                           "scheduler,kubelet,replicaset,node-lifecycle,disruption,"
                           "garbage-collector,token-cleaner",
                           "--watch-history", "400000"};
  options.consolidate_after = "";  // Never: the cluster rests
  options.nodepool_cpu_limit = "1000000";
  // Production intervals, not the lab's short ones.
  options.controller_settings = {{"garbage-collection-interval", "2m"},
                                 {"orphan-vm-grace-period", "30s"},
                                 {"proxmox-inventory-interval", "1m"},
                                 {"batch-idle-duration", "1s"},
                                 {"batch-max-duration", "10s"},
                                 {"leader-election-lease-duration", "15s"},
                                 {"leader-election-renew-deadline", "10s"},
                                 {"leader-election-retry-period", "2s"}};
  for (const auto& [k, v] : args->settings) options.controller_settings[k] = v;

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  const auto bench_start = clock_type::now();
  kp::lab::lab_world world(options);
  auto fail = [](const std::string& what) {
    std::fprintf(stderr, "bench-controller-scale: %s\n", what.c_str());
    return 1;
  };
  if (auto s = world.start(); !s) return fail(s.error().message);
  std::printf(
      "bench-controller-scale: %d nodes (%d ours on %d hosts), %d pods in %d namespaces; "
      "work dir %s\n",
      shape.nodes, shape.owned_nodes, shape.hosts, shape.pods, shape.namespaces,
      world.work_dir().c_str());
  std::fflush(stdout);

  auto hashes = stamped_hashes(world);
  if (!hashes) return fail(hashes.error().message);
  shape.nodeclaim_annotations = *hashes;

  const auto load_start = clock_type::now();
  if (auto s = load_world(world, shape); !s) return fail(s.error().message);
  const double load_seconds = since(load_start);
  std::printf("[%6.1fs] world loaded in %.1f s\n", since(bench_start), load_seconds);
  std::fflush(stdout);

  // ---- start and sync
  auto index = world.start_controller();
  if (!index) return fail(index.error().message);
  auto& controller = world.controller(*index);
  const int port = controller.metrics_port;
  const auto started = controller.started;
  std::optional<double> sync_seconds;
  while (since(started) < 300) {
    auto v =
        sample(scrape(port, "karpenter_cluster_state_synced"), "karpenter_cluster_state_synced");
    if (v && *v >= 1) {
      sync_seconds = since(started);
      break;
    }
    std::this_thread::sleep_for(100ms);
  }
  if (!sync_seconds) return fail("the controller did not sync within 300 s");
  std::printf("[%6.1fs] controller synced %.2f s after its start\n", since(bench_start),
              *sync_seconds);
  std::fflush(stdout);

  // ---- rest
  std::this_thread::sleep_for(std::chrono::seconds(args->settle_seconds));
  const long kube_before = kube_requests(world);
  auto rest_from = kp::lab::sample_process(controller.process->pid());
  std::this_thread::sleep_for(std::chrono::seconds(args->rest_seconds));
  auto rest_to = kp::lab::sample_process(controller.process->pid());
  const long kube_after = kube_requests(world);
  if (!rest_from || !rest_to) return fail("the controller exited during the rest");
  const double steady_cores = kp::lab::average_cores(*rest_from, *rest_to);
  std::printf("[%6.1fs] at rest: %.3f cores, RSS %.1f MiB, %ld kube-sim requests in %d s\n",
              since(bench_start), steady_cores, rest_to->rss_kib / 1024.0, kube_after - kube_before,
              args->rest_seconds);
  std::fflush(stdout);

  // ---- churn
  auto creds = kp::lab::read_kubeconfig(world.kubeconfig_path());
  if (!creds) return fail(creds.error().message);
  std::vector<kp::bench::churn_target> targets;
  targets.reserve(static_cast<std::size_t>(shape.pods));
  for (int i = 0; i < shape.pods; ++i)
    targets.push_back(
        {kp::bench::namespace_name(kp::bench::namespace_of_pod(shape, i)), kp::bench::pod_name(i)});
  kp::bench::churn_driver churn(creds->server, creds->ca_pem, creds->token);
  const std::string rv_family = "karpenter_proxmox_cluster_state_resource_version";
  auto poll = [&] {
    auto v = sample(scrape(port, rv_family), rv_family, "kind=\"pods\"");
    if (v) churn.observe(static_cast<std::uint64_t>(*v), clock_type::now());
  };
  auto churn_from = kp::lab::sample_process(controller.process->pid());
  churn.run(targets, args->churn_rate, std::chrono::seconds(args->churn_seconds), 50ms, poll);
  // Let the controller catch up with the last updates (they count as lagging until seen).
  const auto drain_until = clock_type::now() + 30s;
  while (churn.unobserved() > 0 && clock_type::now() < drain_until) {
    poll();
    std::this_thread::sleep_for(50ms);
  }
  auto churn_to = kp::lab::sample_process(controller.process->pid());
  auto figures = churn.figures(clock_type::now());
  std::printf(
      "[%6.1fs] churn: %ld patches sent, %ld acknowledged, %ld failed; lag p50 %.3f s, p99 %.3f "
      "s, max %.3f s; %.3f cores\n",
      since(bench_start), figures.sent, figures.acknowledged, figures.failed, figures.p50_lag_s,
      figures.p99_lag_s, figures.max_lag_s,
      churn_from && churn_to ? kp::lab::average_cores(*churn_from, *churn_to) : -1.0);

  const auto all = scrape(port);
  auto build_p99 = histogram_quantile(
      all, "karpenter_proxmox_cluster_state_snapshot_build_duration_seconds", 0.99);
  auto last = kp::lab::sample_process(controller.process->pid());
  std::printf("[%6.1fs] done\n", since(bench_start));

  std::printf("nodes=%d\n", shape.nodes);
  std::printf("pods=%d\n", shape.pods);
  std::printf("world_load_seconds=%.1f\n", load_seconds);
  std::printf("controller_sync_seconds=%.2f\n", *sync_seconds);
  if (last) std::printf("controller_peak_rss_mib=%.1f\n", last->peak_rss_kib / 1024.0);
  std::printf("controller_steady_cores=%.4f\n", steady_cores);
  std::printf("controller_rest_rss_mib=%.1f\n", rest_to->rss_kib / 1024.0);
  std::printf("kube_requests_at_rest=%ld\n", kube_after - kube_before);
  if (churn_from && churn_to)
    std::printf("controller_churn_cores=%.3f\n", kp::lab::average_cores(*churn_from, *churn_to));
  std::printf("churn_updates=%ld\n", figures.acknowledged);
  std::printf("churn_lag_p99_seconds=%.3f\n", figures.p99_lag_s);
  std::printf("churn_lag_max_seconds=%.3f\n", figures.max_lag_s);
  if (build_p99) std::printf("snapshot_build_ms_p99=%.3f\n", *build_p99 * 1000.0);
  std::printf("bench_seconds=%.0f\n", since(bench_start));
  return 0;
}
