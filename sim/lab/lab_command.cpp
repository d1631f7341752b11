#include "sim/lab/lab_command.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "sim/lab/child_process.hpp"
#include "sim/lab/lab_view.hpp"
#include "sim/lab/lab_world.hpp"
#include "sim/lab/scenario.hpp"
#include "sim/lab/scenario_runner.hpp"
#include "sim/lab/yaml_json.hpp"

namespace kp::lab {

namespace fs = std::filesystem;

namespace {

constexpr const char* usage =
    "usage: karpenter-proxmox lab [--scenario FILE] [--apply FILE...] [--work-dir DIR] [--keep]\n"
    "                             [--view] [--print-scenario]\n"
    "Starts kube-sim and pve-sim on free loopback ports, then the controller, plays a scenario\n"
    "(the embedded default without --scenario or --apply) with live progress, and prints a\n"
    "summary. Exit code 0 when every expect passed, 1 otherwise.\n"
    "--apply FILE...  applies your manifests (YAML, several documents each) once the world is up,\n"
    "                 plays --scenario if given, then keeps the live view running until Ctrl-C,\n"
    "                 which prints the summary, stops every process of the lab and exits 0.\n"
    "--view           shows `karpenter-proxmox view` (hosts, NUMA nodes, VMs, pods) beside the\n"
    "                 progress: redrawn every 2 s on a terminal; off one, a frame after each\n"
    "                 2 s in which something progressed.\n";

// Set by SIGINT/SIGTERM while the live view runs: the view ends and the lab stops cleanly.
volatile sig_atomic_t stop_requested = 0;
volatile sig_atomic_t live_view = 0;

int bad_usage(const std::string& message) {
  // One line, as every refusal of the binary (`--help` prints the usage).
  std::fprintf(stderr, "karpenter-proxmox: lab: %s (see karpenter-proxmox lab --help)\n",
               message.c_str());
  return 2;
}

void on_signal(int) {
  if (live_view && !stop_requested) {
    stop_requested = 1;  // the live view sees it within 100 ms and ends the lab cleanly
    return;
  }
  // Only async-signal-safe work: end the children, then leave.
  terminate_children_from_signal();
  _exit(130);
}

result<std::string> read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return make_error("io", "cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int run_lab_command(const std::vector<std::string>& args, const std::string& self) {
  std::string scenario_file, work_dir;
  std::vector<std::string> manifests;
  bool keep = false;
  bool with_view = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a.rfind("--", 0) != 0 && a.rfind("-", 0) == 0) a = "-" + a;
    auto value = [&](const std::string& flag) -> std::string {
      if (a.rfind(flag + "=", 0) == 0) return a.substr(flag.size() + 1);
      if (i + 1 < args.size()) return args[++i];
      return {};
    };
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      return 0;
    } else if (a == "--print-scenario") {
      std::fputs(default_scenario_yaml().c_str(), stdout);
      return 0;
    } else if (a == "--keep") {
      keep = true;
    } else if (a == "--view") {
      with_view = true;
    } else if (a == "--scenario" || a.rfind("--scenario=", 0) == 0) {
      scenario_file = value("--scenario");
      if (scenario_file.empty()) return bad_usage("--scenario needs a file");
    } else if (a == "--apply" || a.rfind("--apply=", 0) == 0) {
      // One or more files: --apply=a.yaml, or --apply a.yaml b.yaml up to the next flag.
      if (a != "--apply") {
        manifests.push_back(a.substr(8));
      } else {
        while (i + 1 < args.size() && args[i + 1].rfind("-", 0) != 0)
          manifests.push_back(args[++i]);
      }
      if (manifests.empty() || manifests.back().empty()) return bad_usage("--apply needs a file");
    } else if (a == "--work-dir" || a.rfind("--work-dir=", 0) == 0) {
      work_dir = value("--work-dir");
      if (work_dir.empty()) return bad_usage("--work-dir needs a directory");
    } else {
      return bad_usage("unknown argument \"" + args[i] + "\"");
    }
  }

  std::string text = default_scenario_yaml();
  if (!scenario_file.empty()) {
    auto t = read_file(scenario_file);
    if (!t) return bad_usage("cannot read scenario " + scenario_file);
    text = *t;
  }
  auto sc = parse_scenario(text);
  if (!sc) return bad_usage(sc.error().message);
  bool play = manifests.empty() || !scenario_file.empty();
  // The manifests are read (and their YAML checked) before anything starts.
  std::vector<std::pair<std::string, std::string>> manifest_texts;
  for (const auto& m : manifests) {
    auto t = read_file(m);
    if (!t) return bad_usage("cannot read manifest " + m);
    if (auto docs = yaml_documents_to_json(*t); !docs)
      return bad_usage(m + ": " + docs.error().message);
    manifest_texts.emplace_back(m, *t);
  }

  std::error_code ec;
  auto exe = fs::canonical("/proc/self/exe", ec);
  std::string binary = ec ? self : exe.string();
  lab_options options;
  options.bin_dir = fs::path(binary).parent_path().string();
  options.controller_binary = binary;
  options.work_dir = work_dir;
  options.keep_work_dir = keep || !work_dir.empty();
  options.controller_settings = sc->settings;

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  auto print = [](const std::string& line) { std::cout << line << std::endl; };
  lab_world world(options);
  print("lab: starting kube-sim and pve-sim");
  if (auto s = world.start(); !s) {
    std::fprintf(stderr, "karpenter-proxmox: lab: %s\n", s.error().message.c_str());
    return 1;
  }
  print("lab: kube-sim " + world.kube_url() + ", pve-sim " + world.pve_url() + ", files in " +
        world.work_dir() + (options.keep_work_dir ? "" : " (removed at exit; --keep keeps them)"));
  auto index = world.start_controller();
  if (!index) {
    std::fprintf(stderr, "karpenter-proxmox: lab: %s\n", index.error().message.c_str());
    return 1;
  }
  print("lab: controller pid " + std::to_string(world.controller(*index).process->pid()) +
        ", metrics on 127.0.0.1:" + std::to_string(world.controller(*index).metrics_port) +
        ", log " + world.controller(*index).process->log_path());
  for (const auto& [name, manifest] : manifest_texts) {
    if (auto st = world.apply_yaml(manifest); !st) {
      std::fprintf(stderr, "karpenter-proxmox: lab: %s: %s\n", name.c_str(),
                   st.error().message.c_str());
      return 1;
    }
    print("lab: applied " + name);
  }
  // With --view, progress goes through the view, which keeps it beside its frames.
  std::unique_ptr<lab_view> view;
  progress_sink progress = print;
  if (with_view) {
    lab_view_options o;
    o.binary = binary;
    o.terminal = isatty(STDOUT_FILENO) == 1;
    const char* no_colour = std::getenv("NO_COLOR");
    o.colour = o.terminal && (no_colour == nullptr || *no_colour == '\0');
    view = std::make_unique<lab_view>(world, o);
    progress = [&view](const std::string& line) { view->progress(line); };
  }
  run_report report;
  if (play) report = run_scenario(world, *sc, progress);
  if (!manifests.empty() && report.passed) {
    if (!play) report.scenario = "your manifests";
    progress("lab: live view; Ctrl-C ends the lab");
    live_view = 1;
    watch_world(
        world, report, [] { return stop_requested != 0; }, progress);
    live_view = 0;
    progress("lab: stopping");
  }
  view.reset();
  std::cout << report.summary() << std::flush;
  if (!report.passed) {
    world.keep_files();
    // What the controller said last is the first thing to read when a step fails.
    auto lines = world.controller(*index).process->lines();
    std::cout << "  controller log, last lines (" << world.controller(*index).process->log_path()
              << "):\n";
    for (auto i = lines.size() > 10 ? lines.size() - 10 : 0; i < lines.size(); ++i)
      std::cout << "    " << lines[i].substr(0, 300) << "\n";
    std::cout << std::flush;
  }
  return report.passed ? 0 : 1;
}

}  // namespace kp::lab
