#include "cmd/karpenter-proxmox/view/view_frame.hpp"

#include <algorithm>
#include <cstdio>

#include "protocol/kube/model_translation.hpp"

namespace kp::view {
namespace {

constexpr const char* reset = "\x1b[0m";
constexpr const char* bold = "\x1b[1m";
constexpr const char* dim = "\x1b[2m";
constexpr const char* red = "\x1b[31m";
constexpr const char* green = "\x1b[32m";
constexpr const char* yellow = "\x1b[33m";
constexpr const char* cyan = "\x1b[36m";

class painter {
 public:
  explicit painter(const frame_style& s) : style_(s) {}
  std::string operator()(const char* colour, const std::string& text) const {
    if (!style_.colour || text.empty()) return text;
    return std::string(colour) + text + reset;
  }

 private:
  const frame_style& style_;
};

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string gib(std::int64_t bytes) {
  return fixed(static_cast<double>(bytes) / static_cast<double>(std::int64_t{1} << 30), 1);
}

std::string padded(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

const char* load_colour(double fraction) {
  return fraction >= 0.85 ? red : fraction >= 0.60 ? yellow : green;
}

// "[#######.............]" for used/total; an empty total shows an empty bar.
std::string bar(const painter& paint, const frame_style& style, double used, double total) {
  const double fraction = total > 0 ? std::clamp(used / total, 0.0, 1.0) : 0.0;
  auto filled = static_cast<std::size_t>(fraction * static_cast<double>(style.bar_width) + 0.5);
  if (used > 0 && filled == 0) filled = 1;  // something taken never looks empty
  return "[" + paint(load_colour(fraction), std::string(filled, '#')) +
         std::string(style.bar_width - filled, '.') + "]";
}

std::string cpu_bars(const painter& paint, const frame_style& style, int cpus, int free_cpus) {
  const int used = std::max(cpus - free_cpus, 0);
  return "CPU " + bar(paint, style, used, cpus) + " " +
         padded(std::to_string(used) + "/" + std::to_string(cpus), 7);
}

std::string memory_bars(const painter& paint, const frame_style& style, std::int64_t total,
                        std::int64_t free) {
  const auto used = std::max<std::int64_t>(total - free, 0);
  return "memory " + bar(paint, style, static_cast<double>(used), static_cast<double>(total)) +
         " " + gib(used) + "/" + gib(total) + " GiB";
}

std::string joined_ints(const std::vector<int>& values) {
  std::string out;
  for (int v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

std::string vm_line(const painter& paint, const frame_style& style, const vm_view& vm) {
  std::string out = "    VM " + std::to_string(vm.vmid) + " ";
  out += paint(bold, vm.node.empty() ? (vm.nodeclaim.empty() ? vm.name : vm.nodeclaim) : vm.node);
  out += "  " + (vm.instance_type.empty() ? std::string("-") : vm.instance_type);
  out += "  " + (vm.price ? "$" + fixed(*vm.price, 4) + "/h" : std::string("-"));
  if (vm.vcpus > 0)
    out += "  " + std::to_string(vm.vcpus) + " vCPU " + gib(vm.memory_bytes) + " GiB";
  if (!vm.pinned_cpus.empty()) {
    out += "  pinned " + vm.pinned_cpus;
    if (!vm.numa_nodes.empty()) out += " (NUMA " + joined_ints(vm.numa_nodes) + ")";
  } else {
    out += "  unpinned";
  }
  out += "  age " + age_text(vm.age_seconds);
  if (!vm.phase.empty()) out += "  " + paint(vm.phase == "Ready" ? green : yellow, vm.phase);
  if (vm.status != "running") out += "  " + paint(red, "VM " + vm.status);
  out += "\n      pods " + std::to_string(vm.pods.size());
  for (std::size_t i = 0; i < vm.pods.size() && i < style.max_pods_listed; ++i)
    out += (i == 0 ? ": " : ", ") + vm.pods[i];
  if (vm.pods.size() > style.max_pods_listed)
    out += ", +" + std::to_string(vm.pods.size() - style.max_pods_listed) + " more";
  return out + "\n";
}

std::string host_lines(const painter& paint, const frame_style& style, const host_view& h) {
  std::string out = paint(bold, h.region + "/" + h.name) + "  ";
  out += h.online ? paint(green, "online") : paint(red, "offline");
  if (!h.topology_known) {
    out += "  " + paint(dim, h.online ? "topology unknown (no figures)" : "no figures") + "\n";
  } else {
    out += "  " + cpu_bars(paint, style, h.cpus, h.free_cpus) + "  " +
           memory_bars(paint, style, h.memory_bytes, h.free_memory_bytes) + "\n";
    for (const auto& n : h.numa) {
      out += "  " + padded("NUMA " + std::to_string(n.id), 8) + " " +
             cpu_bars(paint, style, n.cpus, n.free_cpus) + "  " +
             memory_bars(paint, style, n.memory_bytes, n.free_memory_bytes) + "\n";
    }
  }
  for (const auto& vm : h.vms) out += vm_line(paint, style, vm);
  if (h.vms.empty()) out += "    " + paint(dim, "no node VMs") + "\n";
  if (h.other_vms > 0)
    out += "    " +
           paint(dim, "+" + std::to_string(h.other_vms) +
                          " other VMs (templates, containers, not this cluster's)") +
           "\n";
  return out;
}

std::string millicores(std::int64_t milli) {
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

std::string memory_text(std::int64_t bytes) {
  constexpr std::int64_t mib = std::int64_t{1} << 20;
  if (bytes >= (std::int64_t{1} << 30)) return gib(bytes) + "Gi";
  return std::to_string((bytes + mib - 1) / mib) + "Mi";
}

}  // namespace

std::string age_text(std::optional<std::int64_t> seconds) {
  if (!seconds) return "-";
  const auto s = *seconds;
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return std::to_string(s / 60) + "m";
  if (s < 86400) return std::to_string(s / 3600) + "h" + std::to_string(s % 3600 / 60) + "m";
  return std::to_string(s / 86400) + "d" + std::to_string(s % 86400 / 3600) + "h";
}

std::string render_frame(const view_snapshot& snap, const frame_style& style) {
  const painter paint(style);
  std::size_t vms = 0;
  for (const auto& h : snap.hosts) vms += h.vms.size();
  std::string out = paint(bold, "karpenter-proxmox view") + "  cluster " + snap.cluster + "  " +
                    kube::format_rfc3339(snap.taken_unix_ms) + "\n";
  out += std::to_string(snap.hosts.size()) + " hosts, " + std::to_string(vms) + " node VMs, " +
         std::to_string(snap.in_flight.size()) + " NodeClaims in flight, " +
         std::to_string(snap.pending.size()) + " pending pods\n\n";
  for (const auto& h : snap.hosts) out += host_lines(paint, style, h) + "\n";

  out += paint(cyan, "NodeClaims in flight: " + std::to_string(snap.in_flight.size())) + "\n";
  for (const auto& c : snap.in_flight) {
    out += "  " + c.name + "  " + paint(yellow, c.phase) + "  nodepool " +
           (c.nodepool.empty() ? "-" : c.nodepool) + "  " +
           (c.instance_type.empty() ? "-" : c.instance_type) + "  host " +
           (c.host.empty() ? "-" : c.host) + "  age " + age_text(c.age_seconds) + "\n";
  }
  out += paint(cyan, "Pending pods: " + std::to_string(snap.pending.size())) + "\n";
  for (std::size_t i = 0; i < snap.pending.size() && i < style.max_pending_listed; ++i) {
    const auto& p = snap.pending[i];
    out += "  " + p.pod + "  cpu " + millicores(p.cpu_milli) + " memory " +
           memory_text(p.memory_bytes) + "  age " + age_text(p.age_seconds);
    if (!p.reason.empty()) out += "  " + paint(dim, p.reason);
    out += "\n";
  }
  if (snap.pending.size() > style.max_pending_listed)
    out += "  +" + std::to_string(snap.pending.size() - style.max_pending_listed) + " more\n";
  for (const auto& n : snap.notes) out += paint(yellow, "note: " + n) + "\n";
  return out;
}

}  // namespace kp::view
