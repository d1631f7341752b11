#include "sim/pve/faults.hpp"

#include <yaml-cpp/yaml.h>
#include <boost/json.hpp>

#include <algorithm>
#include <exception>

namespace kp::sim::pve {

namespace {
bool matches(const std::string& pattern, const std::string& value) {
  return pattern == "*" || pattern == value;
}
}  // namespace

result<fault_plan> parse_fault_plan(const std::string& text) {
  fault_plan plan;
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return plan;
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) return make_error("invalid_faults", "faults must be a mapping");
    auto str = [](const YAML::Node& n, const char* key, std::string fallback) {
      return n[key] ? n[key].as<std::string>() : fallback;
    };
    if (root["seed"]) plan.seed = root["seed"].as<unsigned>();
    for (const auto& e : root["errors"]) {
      path_error_fault f;
      f.path = str(e, "path", "*");
      f.method = str(e, "method", "*");
      if (e["rate"]) f.rate = e["rate"].as<double>();
      if (e["status"]) f.status = e["status"].as<int>();
      f.message = str(e, "message", f.message);
      if (e["count"]) f.count = e["count"].as<int>();
      if (f.status < 400 || f.status > 599)
        return make_error("invalid_faults", "errors[].status must be 400..599");
      plan.errors.push_back(f);
    }
    for (const auto& e : root["latency"]) {
      latency_fault f;
      f.path = str(e, "path", "*");
      f.method = str(e, "method", "*");
      if (e["ms"]) f.ms = e["ms"].as<double>();
      plan.latency.push_back(f);
    }
    for (const auto& e : root["failing_tasks"]) {
      task_fault f;
      f.type = str(e, "type", "*");
      if (e["rate"]) f.rate = e["rate"].as<double>();
      f.message = str(e, "message", f.message);
      if (e["count"]) f.count = e["count"].as<int>();
      plan.failing_tasks.push_back(f);
    }
    for (const auto& e : root["offline_hosts"]) {
      offline_host_fault f;
      if (e.IsScalar()) {
        f.node = e.as<std::string>();
      } else {
        f.node = str(e, "node", "");
        if (e["status"]) f.status = e["status"].as<int>();
      }
      if (f.status != 595 && f.status != 596)
        return make_error("invalid_faults", "offline_hosts[].status must be 595 or 596");
      plan.offline_hosts.push_back(f);
    }
    if (root["slow_clone_factor"]) plan.slow_clone_factor = root["slow_clone_factor"].as<double>();
    if (plan.slow_clone_factor <= 0)
      return make_error("invalid_faults", "slow_clone_factor must be > 0");
    for (const auto& e : root["unreachable_storages"]) {
      storage_fault f;
      f.node = str(e, "node", "*");
      f.storage = str(e, "storage", "");
      plan.unreachable_storages.push_back(f);
    }
  } catch (const std::exception& e) {
    return make_error("invalid_faults", std::string("faults: ") + e.what());
  }
  return plan;
}

std::string fault_plan_to_json(const fault_plan& plan) {
  namespace json = boost::json;
  json::object o;
  o["seed"] = plan.seed;
  json::array errors;
  for (const auto& f : plan.errors)
    errors.push_back({{"path", f.path},
                      {"method", f.method},
                      {"rate", f.rate},
                      {"status", f.status},
                      {"message", f.message},
                      {"count", f.count}});
  o["errors"] = std::move(errors);
  json::array latency;
  for (const auto& f : plan.latency)
    latency.push_back({{"path", f.path}, {"method", f.method}, {"ms", f.ms}});
  o["latency"] = std::move(latency);
  json::array tasks;
  for (const auto& f : plan.failing_tasks)
    tasks.push_back(
        {{"type", f.type}, {"rate", f.rate}, {"message", f.message}, {"count", f.count}});
  o["failing_tasks"] = std::move(tasks);
  json::array hosts;
  for (const auto& f : plan.offline_hosts)
    hosts.push_back({{"node", f.node}, {"status", f.status}});
  o["offline_hosts"] = std::move(hosts);
  o["slow_clone_factor"] = plan.slow_clone_factor;
  json::array storages;
  for (const auto& f : plan.unreachable_storages)
    storages.push_back({{"node", f.node}, {"storage", f.storage}});
  o["unreachable_storages"] = std::move(storages);
  return json::serialize(o);
}

void fault_injector::replace(fault_plan plan) {
  plan_ = std::move(plan);
  rng_.seed(plan_.seed);
}

std::optional<path_error_fault> fault_injector::request_error(const std::string& method,
                                                              const std::string& path) {
  for (auto& f : plan_.errors) {
    if (!matches(f.path, path) || !matches(f.method, method) || f.count < 0) continue;
    if (f.rate < 1.0 && std::uniform_real_distribution<double>(0, 1)(rng_) >= f.rate) continue;
    path_error_fault fired = f;
    if (f.count > 0 && --f.count == 0) f.count = -1;  // used up
    return fired;
  }
  return std::nullopt;
}

double fault_injector::added_latency_ms(const std::string& method, const std::string& path) const {
  double ms = 0;
  for (const auto& f : plan_.latency)
    if (matches(f.path, path) && matches(f.method, method)) ms += f.ms;
  return ms;
}

std::optional<std::string> fault_injector::task_failure(const std::string& type) {
  for (auto& f : plan_.failing_tasks) {
    if (!matches(f.type, type) || f.count < 0) continue;
    if (f.rate < 1.0 && std::uniform_real_distribution<double>(0, 1)(rng_) >= f.rate) continue;
    if (f.count > 0 && --f.count == 0) f.count = -1;
    return f.message;
  }
  return std::nullopt;
}

std::optional<int> fault_injector::host_offline(const std::string& node) const {
  for (const auto& f : plan_.offline_hosts)
    if (f.node == node) return f.status;
  return std::nullopt;
}

bool fault_injector::storage_unreachable(const std::string& node,
                                         const std::string& storage) const {
  return std::any_of(
      plan_.unreachable_storages.begin(), plan_.unreachable_storages.end(),
      [&](const storage_fault& f) { return matches(f.node, node) && f.storage == storage; });
}

}  // namespace kp::sim::pve
