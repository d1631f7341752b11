#include "sim/lab/scenario.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <exception>

#include "core/parse_number.hpp"
#include "core/text/trim.hpp"
#include "core/time/go_duration.hpp"
#include "sim/lab/lab_assets.hpp"

namespace kp::lab {

namespace {

// Go's duration syntax ("500ms", "30s", "1m", "1.5s"), never negative.
result<std::chrono::milliseconds> parse_duration(const std::string& text) {
  auto d = time::parse_go_duration(text);
  if (!d || d->count() < 0)
    return make_error("invalid_duration",
                      "\"" + text + "\" is not a duration like 500ms, 30s or 1m");
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

// "3", ">=3", "!= 0": an optional operator, then a count.
result<comparison> parse_comparison(const std::string& text) {
  std::string_view rest = text::trim(text);
  comparison c;
  c.op = "==";
  for (const char* op : {"==", "!=", ">=", "<=", ">", "<", "="}) {
    if (rest.starts_with(op)) {
      c.op = op;
      rest = text::trim(rest.substr(c.op.size()));
      break;
    }
  }
  if (c.op == "=") c.op = "==";
  auto value = parse_integer<long>(rest);
  if (!value || *value < 0)
    return make_error("invalid_expect", "\"" + text + "\" is not a count or a comparison like >=3");
  c.value = *value;
  return c;
}

// Kinds a scenario may delete by kind alone.
std::string default_api_version(const std::string& kind) {
  static const std::map<std::string, std::string> versions{
      {"NodeClaim", "karpenter.sh/v1"},
      {"NodePool", "karpenter.sh/v1"},
      {"ProxmoxNodeClass", "karpenter.proxmox.sinextra.dev/v1alpha1"},
      {"ReplicaSet", "apps/v1"},
      {"Deployment", "apps/v1"},
      {"StatefulSet", "apps/v1"},
      {"DaemonSet", "apps/v1"},
      {"Job", "batch/v1"},
      {"PodDisruptionBudget", "policy/v1"}};
  auto it = versions.find(kind);
  return it == versions.end() ? "v1" : it->second;
}

result<scenario_step> parse_step(const YAML::Node& node, std::size_t index) {
  scenario_step step;
  if (!node.IsMap() || node.size() != 1)
    return make_error("invalid_scenario", "step " + std::to_string(index) +
                                              ": each step is a mapping with one key "
                                              "(apply, scale, daemonset, rollout, delete, fault, "
                                              "expect)");
  auto key = node.begin()->first.as<std::string>();
  auto body = node.begin()->second;
  step.label = "step " + std::to_string(index) + " (" + key + ")";
  auto str = [&](const char* field, std::string fallback) {
    return body[field] ? body[field].as<std::string>() : fallback;
  };
  if (key == "apply") {
    step.type = scenario_step::kind::apply;
    if (!body.IsScalar()) {
      YAML::Emitter e;
      e << body;
      step.manifest = e.c_str();
    } else {
      step.manifest = body.as<std::string>();
    }
  } else if (key == "scale" || key == "daemonset") {
    step.type = scenario_step::kind::scale;
    if (!body.IsMap())
      return make_error("invalid_scenario", step.label + ": " + key + " takes a mapping");
    step.scale.name = str("name", "");
    if (step.scale.name.empty())
      return make_error("invalid_scenario", step.label + ": name is required");
    step.scale.ns = str("namespace", "default");
    if (key == "daemonset") {
      step.scale.kind = "DaemonSet";
      if (body["replicas"])
        return make_error("invalid_scenario",
                          step.label + ": a DaemonSet has one pod per node, not replicas");
      step.scale.tolerate_all = body["tolerate_all"] && body["tolerate_all"].as<bool>();
    } else {
      step.scale.kind = str("kind", "ReplicaSet");
      const auto& kinds = scale_kinds();
      if (std::find(kinds.begin(), kinds.end(), step.scale.kind) == kinds.end())
        return make_error("invalid_scenario",
                          step.label + ": kind \"" + step.scale.kind +
                              "\" is not one of ReplicaSet, Deployment, StatefulSet");
      if (!body["replicas"])
        return make_error("invalid_scenario", step.label + ": replicas is required");
      step.scale.replicas = body["replicas"].as<int>();
      if (step.scale.replicas < 0)
        return make_error("invalid_scenario", step.label + ": replicas must not be negative");
    }
    step.scale.cpu = str("cpu", step.scale.cpu);
    step.scale.memory = str("memory", step.scale.memory);
    step.scale.image = str("image", step.scale.image);
    step.scale.storage = str("storage", step.scale.storage);
    if (!step.scale.storage.empty() && step.scale.kind != "StatefulSet")
      return make_error("invalid_scenario", step.label + ": storage is for kind StatefulSet");
    if (body["node_selector"])
      for (const auto& kv : body["node_selector"])
        step.scale.node_selector[kv.first.as<std::string>()] = kv.second.as<std::string>();
  } else if (key == "rollout") {
    step.type = scenario_step::kind::rollout;
    if (!body.IsMap())
      return make_error("invalid_scenario", step.label + ": rollout takes a mapping");
    auto& r = step.rollout;
    r.name = str("name", "");
    if (r.name.empty()) return make_error("invalid_scenario", step.label + ": name is required");
    r.ns = str("namespace", "default");
    r.kind = str("kind", "Deployment");
    if (r.kind != "Deployment" && r.kind != "StatefulSet" && r.kind != "DaemonSet")
      return make_error("invalid_scenario", step.label + ": kind \"" + r.kind +
                                                "\" is not one of Deployment, StatefulSet, "
                                                "DaemonSet");
    r.image = str("image", "");
    r.cpu = str("cpu", "");
    r.memory = str("memory", "");
    if (r.image.empty() && r.cpu.empty() && r.memory.empty())
      return make_error("invalid_scenario",
                        step.label + ": a rollout changes image, cpu or memory; none is given");
  } else if (key == "delete") {
    step.type = scenario_step::kind::remove;
    step.remove.kind = str("kind", "");
    if (step.remove.kind.empty())
      return make_error("invalid_scenario", step.label + ": kind is required");
    step.remove.api_version = str("apiVersion", default_api_version(step.remove.kind));
    step.remove.name = str("name", "");
    step.remove.ns = str("namespace", "");
    step.remove.all = body["all"] && body["all"].as<bool>();
    if (step.remove.name.empty() && !step.remove.all)
      return make_error("invalid_scenario", step.label + ": name or all: true is required");
  } else if (key == "fault") {
    step.type = scenario_step::kind::fault;
    if (body.IsScalar() && body.as<std::string>() == "clear") {
      step.faults.clear();
    } else {
      if (!body.IsMap())
        return make_error("invalid_scenario", step.label + ": a fault plan is a mapping");
      // pve-sim reads YAML fault plans as they are.
      YAML::Emitter e;
      e << body;
      step.faults = e.c_str();
    }
  } else if (key == "expect") {
    step.type = scenario_step::kind::expect;
    if (!body.IsMap())
      return make_error("invalid_scenario", step.label + ": expect takes a mapping");
    for (const auto& kv : body) {
      auto name = kv.first.as<std::string>();
      auto value = kv.second.as<std::string>();
      if (name == "within") {
        auto d = parse_duration(value);
        if (!d)
          return make_error("invalid_scenario", step.label + ": within: " + d.error().message);
        step.expect.within = *d;
      } else if (name == "optional") {
        step.expect.optional = kv.second.as<bool>();
      } else {
        const auto& known = expect_metrics();
        if (std::find(known.begin(), known.end(), name) == known.end())
          return make_error("invalid_scenario",
                            step.label + ": unknown condition \"" + name + "\"");
        auto c = parse_comparison(value);
        if (!c)
          return make_error("invalid_scenario",
                            step.label + ": " + name + ": " + c.error().message);
        step.expect.conditions[name] = *c;
      }
    }
    if (step.expect.conditions.empty())
      return make_error("invalid_scenario", step.label + ": expect names no condition");
  } else {
    return make_error("invalid_scenario",
                      "step " + std::to_string(index) + ": unknown step \"" + key +
                          "\" (apply, scale, daemonset, rollout, delete, fault, expect)");
  }
  return step;
}

}  // namespace

bool comparison::holds(long actual) const {
  if (op == "!=") return actual != value;
  if (op == ">=") return actual >= value;
  if (op == "<=") return actual <= value;
  if (op == ">") return actual > value;
  if (op == "<") return actual < value;
  return actual == value;
}

std::string comparison::text() const {
  return (op == "==" ? std::string() : op) + std::to_string(value);
}

const std::vector<std::string>& expect_metrics() {
  static const std::vector<std::string> m{
      "pods",  "pods_running", "pods_pending",     "app_pods", "daemon_pods", "nodeclaims",
      "nodes", "nodes_ready",  "rollouts_pending", "pvcs",     "vms"};
  return m;
}

const std::vector<std::string>& scale_kinds() {
  static const std::vector<std::string> k{"ReplicaSet", "Deployment", "StatefulSet"};
  return k;
}

result<scenario> parse_scenario(const std::string& yaml_text) {
  scenario s;
  try {
    auto root = YAML::Load(yaml_text);
    if (!root.IsMap()) return make_error("invalid_scenario", "a scenario is a YAML mapping");
    s.name = root["name"] ? root["name"].as<std::string>() : "unnamed";
    if (root["settings"])
      for (const auto& kv : root["settings"])
        s.settings[kv.first.as<std::string>()] = kv.second.as<std::string>();
    if (!root["steps"] || !root["steps"].IsSequence() || root["steps"].size() == 0)
      return make_error("invalid_scenario", "a scenario needs a non-empty list of steps");
    std::size_t i = 0;
    for (const auto& node : root["steps"]) {
      auto step = parse_step(node, ++i);
      if (!step) return step.error();
      s.steps.push_back(std::move(*step));
    }
  } catch (const std::exception& e) {
    return make_error("invalid_scenario", std::string("scenario: ") + e.what());
  }
  return s;
}

const std::string& default_scenario_yaml() {
  return embedded_default_scenario();
}

}  // namespace kp::lab
