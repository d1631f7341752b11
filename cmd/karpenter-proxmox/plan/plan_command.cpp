#include "cmd/karpenter-proxmox/plan/plan_command.hpp"

#include <chrono>
#include <cstdio>
#include <memory>

#include "cmd/karpenter-proxmox/plan/live_reader.hpp"
#include "cmd/karpenter-proxmox/plan/plan_report.hpp"
#include "cmd/karpenter-proxmox/plan/subcommand_flags.hpp"
#include "cmd/karpenter-proxmox/plan/what_if.hpp"
#include "cmd/karpenter-proxmox/plan/workload_file.hpp"

namespace kp::plan {
namespace {

constexpr const char* usage =
    "usage: karpenter-proxmox [settings] plan -f FILE [--output text|json] [--timeout SECONDS]\n"
    "Reads the cluster and every Proxmox cluster (GET requests only), adds the Pods,\n"
    "Deployments, ReplicaSets and StatefulSets of FILE (multi-document YAML or JSON) as pending\n"
    "pods, and prints what the controller would do on that snapshot: the NodeClaims it would\n"
    "create (NodePool, instance type, price, host, NUMA node) with the pods each would hold,\n"
    "the pods that would stay pending and why, and the nodes consolidation would remove.\n"
    "It writes nothing anywhere. Settings (--cloud-config, --kubeconfig, NODE_POLICY, ...) are\n"
    "the controller's and go before `plan`. docs/plan.md documents the JSON shape.\n"
    "  -f, --filename FILE   the workloads to add (required)\n"
    "  -o, --output FORMAT   text (default) or json\n"
    "  --timeout SECONDS     the deadline for reading both APIs (default 30)\n";

int refuse(const std::string& message) {
  std::fprintf(stderr, "karpenter-proxmox: plan: %s\n", message.c_str());
  return 2;
}

struct plan_args {
  std::string file;
  bool json = false;
  int timeout_seconds = 30;
  bool help = false;
};

// "-f x", "-f=x", "--filename x", "--filename=x" and the same for the others.
result<plan_args> parse_args(const std::vector<std::string>& args) {
  plan_args out;
  subcommand_flags flags(args, /*one_dash_long_names=*/false);
  while (flags.next()) {
    const auto& name = flags.name();
    if (name == "-h" || name == "--help" || name == "-help") {
      out.help = true;
    } else if (name == "-f" || name == "--filename") {
      auto v = flags.value();
      if (!v) return v.error();
      out.file = *v;
    } else if (name == "-o" || name == "--output") {
      auto v = flags.value();
      if (!v) return v.error();
      if (*v != "text" && *v != "json")
        return make_error("usage", name + " \"" + *v + "\": expected text or json");
      out.json = *v == "json";
    } else if (name == "--timeout") {
      auto n = flags.positive_seconds();
      if (!n) return n.error();
      out.timeout_seconds = *n;
    } else {
      return flags.unknown();
    }
  }
  if (!out.help && out.file.empty()) return make_error("usage", "-f FILE is required");
  return out;
}

}  // namespace

int run_plan_command(const std::vector<std::string>& args, const config::settings& settings) {
  auto parsed = parse_args(args);
  if (!parsed) return refuse(parsed.error().message + " (see karpenter-proxmox plan --help)");
  if (parsed->help) {
    std::fputs(usage, stdout);
    return 0;
  }
  if (auto logging = log_warnings_to_stderr(); !logging) return refuse(logging.error().message);

  auto added = read_workload_file(parsed->file);
  if (!added) return refuse(added.error().message);
  auto files = load_controller_files(settings);
  if (!files) return refuse(files.error().message);
  auto reader = live_reader::create(settings, files->clusters, "plan");
  if (!reader) return refuse(reader.error().message);

  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(parsed->timeout_seconds);
  auto world = (*reader)->read(deadline);
  if (!world) {
    std::fprintf(stderr, "karpenter-proxmox: plan: reading Kubernetes: %s\n",
                 world.error().message.c_str());
    return 1;
  }
  reader->reset();  // the clients are done: closed before the decisions

  what_if_input in;
  in.world = std::move(*world);
  in.added = std::move(*added);
  in.instance_types = std::move(files->instance_types);
  in.settings = settings;
  in.node_settings = std::move(files->node_settings);
  in.now_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  auto report = run_what_if(in);
  const auto text = parsed->json ? render_json(report) : render_text(report);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace kp::plan
