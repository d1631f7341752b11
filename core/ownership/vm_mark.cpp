#include "core/ownership/vm_mark.hpp"

#include "core/ownership/mark_text.hpp"

#include <vector>

namespace kp::ownership {
namespace {

constexpr std::string_view prefix = "karpenter-proxmox:";

std::optional<ownership_mark> parse_line(std::string_view line) {
  line = trim_mark_text(line);
  if (line.substr(0, prefix.size()) != prefix) return std::nullopt;
  line.remove_prefix(prefix.size());
  ownership_mark mark;
  while (!line.empty()) {
    line = trim_mark_text(line);
    auto eq = line.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    auto key = trim_mark_text(line.substr(0, eq));
    line.remove_prefix(eq + 1);
    std::string_view value;
    if (key == "affinity") {
      // Its value holds commas: it takes the rest of the line.
      value = trim_mark_text(line);
      line = {};
    } else {
      auto comma = line.find(',');
      value = trim_mark_text(line.substr(0, comma));
      line = comma == std::string_view::npos ? std::string_view{} : line.substr(comma + 1);
    }
    if (value.empty()) return std::nullopt;
    if (key == "cluster") {
      mark.cluster = value;
    } else if (key == "nodeclaim") {
      mark.nodeclaim = value;
    } else if (key == "nodepool") {
      mark.nodepool = value;
    } else if (key == "affinity") {
      mark.affinity = value;
    } else {
      return std::nullopt;
    }
  }
  if (mark.cluster.empty() || mark.nodeclaim.empty()) return std::nullopt;
  return mark;
}

}  // namespace

std::string format_ownership_mark(const ownership_mark& mark) {
  // Built by append: GCC 12 warns falsely (-Warray-bounds) on chained operator+ here.
  std::string s(prefix);
  s.append(" cluster=").append(mark.cluster);
  s.append(", nodeclaim=").append(mark.nodeclaim);
  // A claim made without a NodePool has none; "nodepool=" with no value would not parse back.
  if (!mark.nodepool.empty()) s.append(", nodepool=").append(mark.nodepool);
  if (!mark.affinity.empty()) s.append(", affinity=").append(mark.affinity);
  return s;
}

std::optional<ownership_mark> parse_ownership_mark(std::string_view description) {
  while (!description.empty()) {
    auto nl = description.find('\n');
    auto line = description.substr(0, nl);
    if (auto m = parse_line(line)) return m;
    if (nl == std::string_view::npos) break;
    description.remove_prefix(nl + 1);
  }
  return std::nullopt;
}

bool is_go_provider_description(std::string_view description) {
  return trim_mark_text(description).substr(0, 26) == "Karpenter managed instance";
}

std::string description_affinity(std::string_view description) {
  if (auto m = parse_ownership_mark(description)) return m->affinity;
  if (!is_go_provider_description(description)) return {};
  auto at = description.find("affinity=");
  if (at == std::string_view::npos) return {};
  auto rest = description.substr(at + 9);
  return std::string(trim_mark_text(rest.substr(0, rest.find('\n'))));
}

}  // namespace kp::ownership
