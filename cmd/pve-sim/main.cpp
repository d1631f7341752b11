// pve-sim: a simulated Proxmox VE cluster on loopback (see docs/pve-sim.md).
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "protocol/transport/io_runtime.hpp"
#include "sim/pve/faults.hpp"
#include "sim/pve/number_text.hpp"
#include "sim/pve/pve_sim_server.hpp"
#include "sim/pve/topology.hpp"

namespace {

constexpr const char* usage =
    "usage: pve-sim [--listen ADDR:PORT] [--topology FILE] [--data-dir DIR] [--ca-out FILE]\n"
    "               [--plain] [--time-scale X] [--faults FILE]\n"
    "               [--max-body-size BYTES] [--max-connections N] [--header-timeout SECONDS]\n"
    "       pve-sim --print-default-topology\n"
    "Serves a simulated Proxmox VE 8 API at https://ADDR:PORT/api2/json (default 127.0.0.1:0, a\n"
    "free port) and prints the bound base URL on stdout. Without --topology it runs the default\n"
    "topology; without --data-dir it uses a temporary directory removed at exit.\n"
    "Limits: --max-body-size (default 64Mi; Ki/Mi/Gi suffixes) answers 413 beyond it;\n"
    "--max-connections (default 256) stops accepting at that many open connections;\n"
    "--header-timeout (default 60) closes a connection whose next request header has not\n"
    "arrived within that many seconds.\n";

std::string read_file(const std::string& path, bool& ok) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  ok = static_cast<bool>(in) || in.eof();
  return ss.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::string listen = "127.0.0.1:0", topology_file, data_dir, ca_out, faults_file;
  bool plain = false;
  double time_scale = 1.0;
  kp::sim::pve::server_limits limits;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0 && arg.rfind("-", 0) == 0) arg = "-" + arg;  // -flag == --flag
    std::string value;
    if (auto eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    auto next = [&]() -> std::string {
      if (!value.empty()) return value;
      if (i + 1 >= argc) {
        std::cerr << "pve-sim: " << arg << " needs a value\n" << usage;
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--print-default-topology") {
      std::cout << kp::sim::pve::default_topology_yaml();
      return 0;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << usage;
      return 0;
    } else if (arg == "--listen") {
      listen = next();
    } else if (arg == "--topology") {
      topology_file = next();
    } else if (arg == "--data-dir") {
      data_dir = next();
    } else if (arg == "--ca-out") {
      ca_out = next();
    } else if (arg == "--faults") {
      faults_file = next();
    } else if (arg == "--plain") {
      plain = true;
    } else if (arg == "--time-scale") {
      auto scale = kp::sim::pve::parse_number<double>(next());
      if (!scale || *scale <= 0) {
        std::cerr << "pve-sim: --time-scale must be a number > 0\n";
        return 2;
      }
      time_scale = *scale;
    } else if (arg == "--max-body-size") {
      auto bytes = kp::sim::pve::parse_byte_quantity(next());
      if (!bytes || *bytes == 0) {
        std::cerr << "pve-sim: --max-body-size must be a byte quantity > 0, like 64Mi\n";
        return 2;
      }
      limits.max_body_bytes = *bytes;
    } else if (arg == "--max-connections") {
      auto n = kp::sim::pve::parse_number<std::size_t>(next());
      if (!n || *n == 0) {
        std::cerr << "pve-sim: --max-connections must be a whole number > 0\n";
        return 2;
      }
      limits.max_connections = *n;
    } else if (arg == "--header-timeout") {
      auto seconds = kp::sim::pve::parse_number<double>(next());
      if (!seconds || *seconds <= 0 || *seconds > 86400) {
        std::cerr << "pve-sim: --header-timeout must be a number of seconds > 0\n";
        return 2;
      }
      limits.header_timeout = std::chrono::milliseconds(static_cast<long long>(*seconds * 1000));
    } else {
      std::cerr << "pve-sim: unknown argument '" << argv[i] << "'\n" << usage;
      return 2;
    }
  }

  std::string topology_text = kp::sim::pve::default_topology_yaml();
  if (!topology_file.empty()) {
    bool ok = false;
    topology_text = read_file(topology_file, ok);
    if (!ok) {
      std::cerr << "pve-sim: cannot read topology " << topology_file << "\n";
      return 2;
    }
  }
  auto topo = kp::sim::pve::parse_topology(topology_text);
  if (!topo) {
    std::cerr << "pve-sim: " << topo.error().message << "\n";
    return 2;
  }

  kp::sim::pve::server_settings settings;
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) {
    std::cerr << "pve-sim: --listen wants ADDR:PORT\n";
    return 2;
  }
  settings.address = listen.substr(0, colon);
  if (settings.address.size() > 2 && settings.address.front() == '[')
    settings.address = settings.address.substr(1, settings.address.size() - 2);
  auto port = kp::sim::pve::parse_number<std::uint16_t>(listen.substr(colon + 1));
  if (!port) {
    std::cerr << "pve-sim: bad port in --listen " << listen << "\n";
    return 2;
  }
  settings.port = *port;
  settings.plain = plain;
  settings.limits = limits;
  settings.simulation.topo = std::move(*topo);
  settings.simulation.time_scale = time_scale;
  if (!faults_file.empty()) {
    bool ok = false;
    auto text = read_file(faults_file, ok);
    auto plan = ok ? kp::sim::pve::parse_fault_plan(text)
                   : kp::result<kp::sim::pve::fault_plan>(
                         kp::make_error("io", "cannot read " + faults_file));
    if (!plan) {
      std::cerr << "pve-sim: " << plan.error().message << "\n";
      return 2;
    }
    settings.simulation.faults = *plan;
  }
  bool temporary = data_dir.empty();
  if (temporary) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "pve-sim-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) {
      std::cerr << "pve-sim: cannot create a temporary data directory\n";
      return 1;
    }
    data_dir = tmpl;
  }
  settings.simulation.data_dir = data_dir;

  // Signals are taken synchronously by the main thread; the io thread must not see them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  int exit_code = 0;
  {
    // A handler that throws is reported and the simulator keeps serving.
    kp::transport::io_runtime runtime(1, [](std::string_view where, std::string_view what) {
      std::cerr << "pve-sim: " << where << " threw: " << what << std::endl;
    });
    auto server = kp::sim::pve::pve_sim_server::start(runtime.context(), std::move(settings));
    if (!server) {
      std::cerr << "pve-sim: " << server.error().message << "\n";
      exit_code = 1;
    } else {
      if (!ca_out.empty()) {
        std::ofstream out(ca_out, std::ios::trunc);
        out << (*server)->ca_pem();
        if (!out) {
          std::cerr << "pve-sim: cannot write " << ca_out << "\n";
          exit_code = 1;
        }
      }
      if (exit_code == 0) {
        std::cout << (*server)->base_url() << std::endl;
        std::cerr << "pve-sim: serving " << (*server)->base_url() << "/api2/json, data in "
                  << data_dir << std::endl;
        int sig = 0;
        sigwait(&signals, &sig);
        std::cerr << "pve-sim: stopping" << std::endl;
      }
      server->reset();
    }
  }
  if (temporary) {
    std::error_code ec;
    std::filesystem::remove_all(data_dir, ec);
  }
  return exit_code;
}
