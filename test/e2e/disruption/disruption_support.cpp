#include "test/e2e/disruption/disruption_support.hpp"

#include <boost/json.hpp>

#include "sim/lab/controller_metrics.hpp"

namespace kp::e2e::disruption {

namespace json = boost::json;

namespace {

std::string text_at(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace

std::string nodepool_yaml(const nodepool_shape& s) {
  std::string labels;
  for (const auto& [k, v] : s.labels)
    labels += (labels.empty() ? "" : ", ") + k + ": \"" + v + "\"";
  std::string budgets;
  for (const auto& b : s.budgets)
    budgets += (budgets.empty() ? "" : ", ") + std::string("{nodes: \"") + b + "\"}";
  std::string y =
      "apiVersion: karpenter.sh/v1\n"
      "kind: NodePool\n"
      "metadata: {name: default}\n"
      "spec:\n"
      "  limits: {cpu: \"1000\"}\n"
      "  template:\n"
      "    metadata: {labels: {" +
      labels +
      "}}\n"
      "    spec:\n"
      "      nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, "
      "name: default}\n";
  if (!s.expire_after.empty()) y += "      expireAfter: " + s.expire_after + "\n";
  y += "      requirements:\n"
       "        - {key: kubernetes.io/arch, operator: In, values: [amd64]}\n"
       "        - {key: kubernetes.io/os, operator: In, values: [linux]}\n"
       "        - {key: node.kubernetes.io/instance-type, operator: In, values: [" +
       std::string(small_type) +
       "]}\n"
       "  disruption:\n"
       "    consolidationPolicy: " +
       s.policy + "\n    consolidateAfter: " + s.consolidate_after + "\n    budgets: [" + budgets +
       "]\n";
  return y;
}

std::string replica_set_yaml(const replica_set_shape& s) {
  json::object labels{{"app", s.name}};
  json::object annotations;
  for (const auto& [k, v] : s.annotations) annotations[k] = v;
  json::object container{
      {"name", "app"},
      {"image", "registry.k8s.io/pause:3.10"},
      {"resources",
       json::object{{"requests", json::object{{"cpu", s.cpu}, {"memory", s.memory}}}}}};
  json::object pod_meta{{"labels", labels}};
  if (!annotations.empty()) pod_meta["annotations"] = annotations;
  json::object rs{
      {"apiVersion", "apps/v1"},
      {"kind", "ReplicaSet"},
      {"metadata", json::object{{"name", s.name}, {"namespace", "default"}, {"labels", labels}}},
      {"spec",
       json::object{{"replicas", s.replicas},
                    {"selector", json::object{{"matchLabels", json::object{{"app", s.name}}}}},
                    {"template",
                     json::object{{"metadata", pod_meta},
                                  {"spec", json::object{{"containers", json::array{container}},
                                                        {"terminationGracePeriodSeconds", 1}}}}}}}};
  return json::serialize(rs);
}

lab::lab_options disruption_options() {
  auto o = e2e_options();
  o.controller_settings["disruption-poll-interval"] = "1s";
  o.controller_settings["disruption-validation-delay"] = "1s";
  return o;
}

std::vector<event_view> disruption_test::events() {
  std::vector<event_view> out;
  auto list = world->list("/api/v1/events");
  if (!list) return out;
  for (const auto& e : *list) {
    if (!e.is_object()) continue;
    const auto& o = e.as_object();
    event_view ev{text_at(o, "reason"), {}, {}, text_at(o, "message"), text_at(o, "type")};
    if (const auto* inv = o.if_contains("involvedObject"); inv != nullptr && inv->is_object()) {
      ev.kind = text_at(inv->as_object(), "kind");
      ev.name = text_at(inv->as_object(), "name");
    }
    out.push_back(std::move(ev));
  }
  return out;
}

std::vector<std::string> disruption_test::disrupting(const cluster_view& v) {
  std::vector<std::string> out;
  for (const auto& [name, c] : v.nodeclaims) {
    bool tainted = false;
    if (auto n = v.nodes.find(c.node_name); !c.node_name.empty() && n != v.nodes.end())
      for (const auto& t : n->second.taints)
        tainted = tainted || t.rfind("karpenter.sh/disrupted:", 0) == 0;
    if (c.terminating || tainted) out.push_back(name);
  }
  return out;
}

std::string disruption_test::claim_of_pod(const cluster_view& v, const std::string& pod_prefix) {
  for (const auto& p : v.pods) {
    if (p.name.rfind(pod_prefix, 0) != 0 || p.node.empty() || p.terminating) continue;
    for (const auto& [name, c] : v.nodeclaims)
      if (c.node_name == p.node) return name;
  }
  return {};
}

double disruption_test::metric(const std::string& family, std::size_t index) {
  auto m = lab::read_controller_metrics(world->controller(index).metrics_port);
  if (!m) return -1;
  auto it = m->find(family);
  return it == m->end() ? 0 : it->second;
}

long disruption_test::running_of(const cluster_view& v, const std::string& prefix) {
  long n = 0;
  for (const auto& p : v.pods)
    if (p.name.rfind(prefix + "-", 0) == 0 && p.phase == "Running" && !p.terminating) ++n;
  return n;
}

}  // namespace kp::e2e::disruption
