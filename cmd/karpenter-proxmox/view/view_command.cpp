#include "cmd/karpenter-proxmox/view/view_command.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "cmd/karpenter-proxmox/plan/live_reader.hpp"
#include "cmd/karpenter-proxmox/plan/subcommand_flags.hpp"
#include "cmd/karpenter-proxmox/view/view_frame.hpp"

namespace kp::view {
namespace {

constexpr const char* usage =
    "usage: karpenter-proxmox [settings] view [--once] [--interval SECONDS] [--timeout SECONDS]\n"
    "                                         [--color auto|always|never]\n"
    "Shows each Proxmox host with its NUMA nodes (CPU and memory bars: what is taken for new\n"
    "VMs), the VMs of this cluster's nodes on it (instance type, price, pinned CPUs, age, pods),\n"
    "the NodeClaims in flight and the pending pods, read live from Kubernetes and every Proxmox\n"
    "cluster with GET requests only. Settings (--cloud-config, --kubeconfig, NODE_SETTING_FILE,\n"
    "...) are the controller's and go before `view`. docs/view.md explains every figure.\n"
    "  --once              print one frame and exit\n"
    "  --interval SECONDS  between frames (default 3)\n"
    "  --timeout SECONDS   the deadline for reading both APIs, per frame (default 10)\n"
    "  --color WHEN        auto (default: on a terminal, unless NO_COLOR is set), always, never\n";

enum class colour_mode { automatic, always, never };

struct view_args {
  bool once = false;
  bool help = false;
  int interval_seconds = 3;
  int timeout_seconds = 10;
  colour_mode colour = colour_mode::automatic;
};

int refuse(const std::string& message) {
  std::fprintf(stderr, "karpenter-proxmox: view: %s\n", message.c_str());
  return 2;
}

// "--x v" and "--x=v"; one dash too ("-once"), as the binary's settings accept.
result<view_args> parse_args(const std::vector<std::string>& args) {
  view_args out;
  plan::subcommand_flags flags(args, /*one_dash_long_names=*/true);
  while (flags.next()) {
    const auto& name = flags.name();
    if (name == "--help" || name == "--h") {
      out.help = true;
    } else if (name == "--once") {
      out.once = true;
    } else if (name == "--interval" || name == "--timeout") {
      auto n = flags.positive_seconds();
      if (!n) return n.error();
      (name == "--interval" ? out.interval_seconds : out.timeout_seconds) = *n;
    } else if (name == "--color" || name == "--colour") {
      auto v = flags.value();
      if (!v) return v.error();
      if (*v == "auto") {
        out.colour = colour_mode::automatic;
      } else if (*v == "always") {
        out.colour = colour_mode::always;
      } else if (*v == "never") {
        out.colour = colour_mode::never;
      } else {
        return make_error("usage", name + " \"" + *v + "\": expected auto, always or never");
      }
    } else {
      return flags.unknown();
    }
  }
  return out;
}

// https://no-color.org: any non-empty NO_COLOR turns colour off.
bool colour_wanted(colour_mode mode, bool terminal) {
  if (mode != colour_mode::automatic) return mode == colour_mode::always;
  const char* no_colour = std::getenv("NO_COLOR");
  return terminal && (no_colour == nullptr || *no_colour == '\0');
}

volatile sig_atomic_t interrupted = 0;
void on_interrupt(int) {
  interrupted = 1;
}

std::int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int run_view_command(const std::vector<std::string>& args, const config::settings& settings) {
  auto parsed = parse_args(args);
  if (!parsed) return refuse(parsed.error().message + " (see karpenter-proxmox view --help)");
  if (parsed->help) {
    std::fputs(usage, stdout);
    return 0;
  }
  if (auto logging = plan::log_warnings_to_stderr(); !logging)
    return refuse(logging.error().message);
  auto files = plan::load_controller_files(settings);
  if (!files) return refuse(files.error().message);
  auto reader = plan::live_reader::create(settings, files->clusters, "view");
  if (!reader) return refuse(reader.error().message);

  const bool terminal = isatty(STDOUT_FILENO) == 1;
  frame_style style;
  style.colour = colour_wanted(parsed->colour, terminal);
  if (!parsed->once) {
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
  }
  const auto node_settings = files->node_settings ? &*files->node_settings : nullptr;
  while (interrupted == 0) {
    const auto started = std::chrono::steady_clock::now();
    auto world = (*reader)->read(started + std::chrono::seconds(parsed->timeout_seconds));
    std::string frame;
    if (world) {
      view_input in;
      in.world = &*world;
      in.instance_types = files->instance_types;
      in.node_settings = node_settings;
      in.now_unix_ms = unix_ms_now();
      frame = render_frame(build_view_snapshot(in), style);
    } else if (parsed->once) {
      std::fprintf(stderr, "karpenter-proxmox: view: reading Kubernetes: %s\n",
                   world.error().message.c_str());
      return 1;
    } else {
      frame = "karpenter-proxmox view: reading Kubernetes: " + world.error().message +
              " (trying again)\n";
    }
    // A terminal is redrawn in place; a pipe or file gets each frame after the last.
    if (terminal && !parsed->once) frame = "\x1b[H\x1b[2J" + frame;
    if (!terminal && !parsed->once) frame += "\n";
    std::fwrite(frame.data(), 1, frame.size(), stdout);
    std::fflush(stdout);
    if (parsed->once) return 0;
    // The wait between frames: the CLI's own thread, woken every 100 ms to see an interrupt.
    const auto next = started + std::chrono::seconds(parsed->interval_seconds);
    while (interrupted == 0 && std::chrono::steady_clock::now() < next)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return 0;
}

}  // namespace kp::view
