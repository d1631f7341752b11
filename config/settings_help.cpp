#include "config/settings_help.hpp"

#include <vector>

#include "config/setting_table.hpp"

namespace kp::config {
namespace {

std::vector<std::string> groups_in_order() {
  std::vector<std::string> groups;
  for (const auto& spec : setting_table()) {
    bool seen = false;
    for (const auto& g : groups) seen = seen || g == spec.group;
    if (!seen) groups.push_back(spec.group);
  }
  return groups;
}

std::string shown_default(const setting_spec& spec) {
  std::string value = spec.show(settings{});
  return value.empty() ? "\"\"" : value;
}

}  // namespace

std::string render_help(const std::string& program) {
  std::string out;
  out += "Usage: " + program + " [flags]\n";
  out += "       " + program +
         " lab [flags]   start simulated Kubernetes and Proxmox and play a "
         "scenario\n";
  out += "       " + program +
         " [flags] plan -f FILE [--output json]   what the controller would do for the pods\n"
         "         in FILE (NodeClaims, hosts, NUMA nodes, prices, pending pods, consolidation),\n"
         "         read-only: see `" +
         program + " plan --help` and docs/plan.md\n";
  out += "       " + program +
         " [flags] view [--once]   Proxmox hosts, their NUMA nodes, node VMs and pods, pending\n"
         "         pods and NodeClaims in flight, refreshed live, read-only: see `" +
         program + " view --help`\n         and docs/view.md\n\n";
  out += "karpenter-proxmox is a Kubernetes node autoscaler for Proxmox VE (Karpenter's APIs).\n";
  out += "Every setting is a flag and an environment variable; a flag wins over the variable.\n";
  out += "Flags take one dash or two: -name=value, -name value, and -name for a true boolean.\n";
  out += "Durations use Go syntax: 500ms, 10s, 1m30s, 2h.\n";
  out += "\n  -h, --help       show this help\n  --version        print the version\n";
  for (const auto& group : groups_in_order()) {
    out += "\n" + group + ":\n";
    for (const auto& spec : setting_table()) {
      if (spec.group != group) continue;
      out += "  --" + spec.flag + " " + spec.type + "\n";
      out += "        " + spec.help + "\n";
      out += "        env " + spec.env + ", default " + shown_default(spec) + "\n";
    }
  }
  return out;
}

std::string render_settings_markdown() {
  std::string out;
  for (const auto& group : groups_in_order()) {
    out += "### " + group + "\n\n";
    out += "| Environment | Flag | Type | Default | Meaning |\n";
    out += "|---|---|---|---|---|\n";
    for (const auto& spec : setting_table()) {
      if (spec.group != group) continue;
      std::string type = spec.type;
      // A pipe inside a table cell must be escaped.
      std::string escaped;
      for (char c : type) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
      out += "| `" + spec.env + "` | `--" + spec.flag + "` | " + escaped + " | `" +
             shown_default(spec) + "` | " + spec.help + " |\n";
    }
    out += "\n";
  }
  return out;
}

}  // namespace kp::config
