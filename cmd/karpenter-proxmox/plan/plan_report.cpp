#include "cmd/karpenter-proxmox/plan/plan_report.hpp"

#include <cstdio>

#include <boost/json.hpp>

namespace kp::plan {
namespace {

namespace json = boost::json;

std::string price_text(double price) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", price);
  return buf;
}

std::string joined(const std::vector<std::string>& items, const char* separator = ", ") {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : separator) + i;
  return out;
}

std::string numa_text(const std::vector<int>& nodes) {
  if (nodes.empty()) return "any (NODE_POLICY=simple binds none)";
  std::string out;
  for (int n : nodes) out += (out.empty() ? "" : ",") + std::to_string(n);
  return out;
}

json::array strings(const std::vector<std::string>& items) {
  json::array a;
  for (const auto& i : items) a.emplace_back(i);
  return a;
}

}  // namespace

std::string render_text(const what_if_report& r) {
  std::string out;
  out += "NodeClaims it would create: " + std::to_string(r.nodeclaims.size()) + "\n";
  for (const auto& c : r.nodeclaims) {
    out += "  " + c.name + "  nodepool " + c.nodepool;
    if (!c.node_class.empty()) out += ", node class " + c.node_class;
    out += "\n";
    if (c.placement_error.empty()) {
      out += "    instance type " + c.instance_type + " at " + price_text(c.price) + "/h on host " +
             c.host + " (region " + c.region + "), NUMA node " + numa_text(c.numa_nodes);
      if (!c.pinned_cpus.empty()) out += ", CPUs " + c.pinned_cpus;
      out += "\n";
    } else {
      out += "    its launch would fail: " + c.placement_error + "\n";
    }
    out += "    pods (" + std::to_string(c.pods.size()) + "): " + joined(c.pods) + "\n";
  }
  if (!r.bound.empty()) {
    out += "Pods that would use existing capacity: " + std::to_string(r.bound.size()) + "\n";
    for (const auto& p : r.bound) out += "  " + p.pod + " -> " + p.node + "\n";
  }
  out += "Pods that would stay pending: " + std::to_string(r.pending.size()) + "\n";
  for (const auto& p : r.pending) out += "  " + p.pod + ": " + p.reason + "\n";
  out += "Nodes consolidation would remove: ";
  std::size_t removed = 0;
  for (const auto& m : r.removals) removed += m.nodes.size();
  out += std::to_string(removed) + "\n";
  for (const auto& m : r.removals) {
    out += "  " + joined(m.nodes) + " (" + m.method + ", " + m.reason + ")";
    if (!m.decision.empty()) out += ": " + m.decision;
    out += "\n";
  }
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  return out;
}

std::string render_json(const what_if_report& r) {
  json::object root;
  root["version"] = report_version;
  root["cluster"] = r.cluster_name;
  json::array claims;
  for (const auto& c : r.nodeclaims) {
    json::object o;
    o["name"] = c.name;
    o["nodePool"] = c.nodepool;
    o["nodeClass"] = c.node_class;
    o["instanceType"] = c.instance_type;
    o["instanceTypeOptions"] = strings(c.instance_types);
    o["price"] = c.price;
    o["region"] = c.region;
    o["host"] = c.host;
    json::array numa;
    for (int n : c.numa_nodes) numa.emplace_back(n);
    o["numaNodes"] = std::move(numa);
    o["pinnedCPUs"] = c.pinned_cpus;
    o["error"] = c.placement_error;
    o["pods"] = strings(c.pods);
    claims.emplace_back(std::move(o));
  }
  root["nodeClaims"] = std::move(claims);
  auto pods = [](const std::vector<pod_outcome>& list, bool with_node) {
    json::array a;
    for (const auto& p : list) {
      json::object o;
      o["pod"] = p.pod;
      o["added"] = p.added;
      if (with_node) {
        o["node"] = p.node;
      } else {
        o["reason"] = p.reason;
      }
      a.emplace_back(std::move(o));
    }
    return a;
  };
  root["existingCapacity"] = pods(r.bound, true);
  root["pending"] = pods(r.pending, false);
  json::array removals;
  for (const auto& m : r.removals) {
    json::object o;
    o["method"] = m.method;
    o["reason"] = m.reason;
    o["nodes"] = strings(m.nodes);
    o["nodeClaims"] = strings(m.nodeclaims);
    o["replacements"] = m.replacements;
    o["savings"] = m.savings;
    o["decision"] = m.decision;
    removals.emplace_back(std::move(o));
  }
  root["consolidation"] = std::move(removals);
  root["notes"] = strings(r.notes);
  return json::serialize(root) + "\n";
}

}  // namespace kp::plan
