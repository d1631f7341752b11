// kube-sim: a simulated Kubernetes API server on loopback (see docs/kube-sim.md).
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "protocol/transport/io_runtime.hpp"
#include "sim/kube/cluster.hpp"
#include "sim/kube/json_util.hpp"

namespace {

void usage() {
  std::cout << "usage: kube-sim [--listen 127.0.0.1:PORT] [--kubeconfig-out FILE] [--ca-out FILE]\n"
               "                [--admin-token TOKEN] [--watch-history EVENTS]\n"
               "                [--node-monitor-grace SECONDS] [--pod-termination-ms MS]\n"
               "                [--bookmark-interval-ms MS] [--max-request-body-bytes BYTES]\n"
               "                [--disable-controllers NAME[,NAME...]]\n"
               "controllers: scheduler kubelet replicaset node-lifecycle token-cleaner "
               "garbage-collector\n"
               "             disruption csr-signer namespace deployment daemonset statefulset job\n"
               "             (all on by default)\n";
}

bool write_file_atomically(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out << content;
    if (!out.flush()) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

// A whole decimal number within [min, max]; anything else is a bad flag value.
std::uint64_t number(const std::string& text, std::uint64_t min, std::uint64_t max) {
  auto v = kp::sim::kube::parse_uint64(text);
  if (!v || *v < min || *v > max)
    throw std::invalid_argument("\"" + text + "\" is not a whole number from " +
                                std::to_string(min) + " to " + std::to_string(max));
  return *v;
}

}  // namespace

int main(int argc, char** argv) {
  kp::sim::kube::cluster_options options;
  std::string kubeconfig_out, ca_out;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    if (auto eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (arg != "--help" && arg != "-h" && i + 1 < argc) {
      value = argv[++i];
    }
    if (arg.rfind("--", 0) != 0 && arg.rfind("-", 0) == 0 && arg != "-h") arg = "-" + arg;
    try {
      if (arg == "--help" || arg == "-h") {
        usage();
        return 0;
      } else if (arg == "--listen") {
        auto colon = value.rfind(':');
        if (colon == std::string::npos) throw std::invalid_argument("--listen needs ADDRESS:PORT");
        options.address = value.substr(0, colon);
        options.port = static_cast<std::uint16_t>(number(value.substr(colon + 1), 0, 65535));
      } else if (arg == "--kubeconfig-out") {
        kubeconfig_out = value;
      } else if (arg == "--ca-out") {
        ca_out = value;
      } else if (arg == "--admin-token") {
        options.admin_token = value;
      } else if (arg == "--watch-history") {
        options.watch_history = number(value, 1, 100000000);
      } else if (arg == "--node-monitor-grace") {
        options.controllers.node_monitor_grace = std::chrono::seconds(number(value, 1, 1u << 30));
      } else if (arg == "--bookmark-interval-ms") {
        options.bookmark_interval = std::chrono::milliseconds(number(value, 1, 1u << 30));
      } else if (arg == "--pod-termination-ms") {
        options.controllers.pod_termination = std::chrono::milliseconds(number(value, 0, 1u << 30));
      } else if (arg == "--max-request-body-bytes") {
        options.max_request_body = number(value, 1024, std::uint64_t{1} << 32);
      } else if (arg == "--disable-controllers") {
        std::size_t start = 0;
        while (start <= value.size()) {
          auto comma = value.find(',', start);
          auto name =
              value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
          if (!name.empty()) {
            auto it = options.enabled.find(name);
            if (it == options.enabled.end())
              throw std::invalid_argument("unknown controller " + name);
            it->second = false;
          }
          if (comma == std::string::npos) break;
          start = comma + 1;
        }
      } else {
        std::cerr << "kube-sim: unknown flag " << arg << "\n";
        usage();
        return 2;
      }
    } catch (const std::exception& e) {
      std::cerr << "kube-sim: bad value for " << arg << ": " << e.what() << "\n";
      return 2;
    }
  }

  boost::asio::io_context io(1);
  kp::sim::kube::cluster sim(io, options);
  if (auto st = sim.start(); !st) {
    std::cerr << "kube-sim: " << st.error().message << "\n";
    return 1;
  }
  if (!kubeconfig_out.empty() && !write_file_atomically(kubeconfig_out, sim.admin_kubeconfig())) {
    std::cerr << "kube-sim: cannot write " << kubeconfig_out << "\n";
    return 1;
  }
  if (!ca_out.empty() && !write_file_atomically(ca_out, sim.ca_pem())) {
    std::cerr << "kube-sim: cannot write " << ca_out << "\n";
    return 1;
  }
  std::cout << sim.server_url() << std::endl;
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) {
    sim.stop();
    io.stop();
  });
  // A handler that throws is reported and the simulator keeps serving.
  kp::transport::run_reporting(io, [](std::string_view where, std::string_view what) {
    std::cerr << "kube-sim: " << where << " threw: " << what << std::endl;
  });
  return 0;
}
