#include "sim/pve/faults.hpp"

#include <yaml-cpp/yaml.h>
#include <boost/json.hpp>

#include <algorithm>
#include <exception>
#include <stdexcept>

namespace kp::sim::pve {

namespace {
bool matches(const std::string& pattern, const std::string& value) {
  return pattern == "*" || pattern == value;
}

// "*", one method, "write", or several joined with ',' or '|'.
bool method_matches(const std::string& pattern, const std::string& method) {
  std::size_t start = 0;
  while (start <= pattern.size()) {
    auto end = pattern.find_first_of(",|", start);
    std::string one = pattern.substr(start, end == std::string::npos ? end : end - start);
    if (one == "*" || one == method) return true;
    if (one == "write" && (method == "POST" || method == "PUT" || method == "DELETE")) return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

double non_negative(const YAML::Node& n, const char* key, const char* what) {
  double v = n[key] ? n[key].as<double>() : 0;
  if (v < 0) throw std::invalid_argument(std::string(what) + "." + key + " must be >= 0");
  return v;
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
      if (e["applied"]) f.applied = e["applied"].as<bool>();
      f.duration_ms = non_negative(e, "duration_ms", "errors[]");
      if (f.status < 400 || f.status > 599)
        return make_error("invalid_faults", "errors[].status must be 400..599");
      plan.errors.push_back(f);
    }
    for (const auto& e : root["latency"]) {
      latency_fault f;
      f.path = str(e, "path", "*");
      f.method = str(e, "method", "*");
      f.ms = non_negative(e, "ms", "latency[]");
      f.duration_ms = non_negative(e, "duration_ms", "latency[]");
      plan.latency.push_back(f);
    }
    for (const auto& e : root["failing_tasks"]) {
      task_fault f;
      f.type = str(e, "type", "*");
      if (e["rate"]) f.rate = e["rate"].as<double>();
      f.message = str(e, "message", f.message);
      if (e["count"]) f.count = e["count"].as<int>();
      f.duration_ms = non_negative(e, "duration_ms", "failing_tasks[]");
      plan.failing_tasks.push_back(f);
    }
    for (const auto& e : root["offline_hosts"]) {
      offline_host_fault f;
      if (e.IsScalar()) {
        f.node = e.as<std::string>();
      } else {
        f.node = str(e, "node", "");
        if (e["status"]) f.status = e["status"].as<int>();
        f.duration_ms = non_negative(e, "duration_ms", "offline_hosts[]");
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
      f.duration_ms = non_negative(e, "duration_ms", "unreachable_storages[]");
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
                      {"count", f.count},
                      {"applied", f.applied},
                      {"duration_ms", f.duration_ms}});
  o["errors"] = std::move(errors);
  json::array latency;
  for (const auto& f : plan.latency)
    latency.push_back(
        {{"path", f.path}, {"method", f.method}, {"ms", f.ms}, {"duration_ms", f.duration_ms}});
  o["latency"] = std::move(latency);
  json::array tasks;
  for (const auto& f : plan.failing_tasks)
    tasks.push_back({{"type", f.type},
                     {"rate", f.rate},
                     {"message", f.message},
                     {"count", f.count},
                     {"duration_ms", f.duration_ms}});
  o["failing_tasks"] = std::move(tasks);
  json::array hosts;
  for (const auto& f : plan.offline_hosts)
    hosts.push_back({{"node", f.node}, {"status", f.status}, {"duration_ms", f.duration_ms}});
  o["offline_hosts"] = std::move(hosts);
  o["slow_clone_factor"] = plan.slow_clone_factor;
  json::array storages;
  for (const auto& f : plan.unreachable_storages)
    storages.push_back({{"node", f.node}, {"storage", f.storage}, {"duration_ms", f.duration_ms}});
  o["unreachable_storages"] = std::move(storages);
  return json::serialize(o);
}

void fault_injector::replace(fault_plan plan) {
  const auto now = clock::now();
  // A host that stays unreachable across the change keeps its "offline since".
  std::map<std::string, clock::time_point> since;
  for (const auto& f : plan.offline_hosts) {
    if (since.count(f.node)) continue;
    auto before = offline_since(f.node);
    since[f.node] = before ? *before : now;
  }
  plan_ = std::move(plan);
  set_at_ = now;
  offline_since_ = std::move(since);
  rng_.seed(plan_.seed);
}

bool fault_injector::active(double duration_ms) const {
  return duration_ms <= 0 ||
         clock::now() - set_at_ < std::chrono::duration<double, std::milli>(duration_ms);
}

std::string fault_injector::describe() const {
  namespace json = boost::json;
  auto doc = json::parse(fault_plan_to_json(plan_)).as_object();
  auto mark = [&](const char* list, auto&& is_active) {
    auto& rows = doc[list].as_array();
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i].as_object()["active"] = is_active(i);
  };
  mark("errors", [&](std::size_t i) {
    return plan_.errors[i].count >= 0 && active(plan_.errors[i].duration_ms);
  });
  mark("latency", [&](std::size_t i) { return active(plan_.latency[i].duration_ms); });
  mark("failing_tasks", [&](std::size_t i) {
    return plan_.failing_tasks[i].count >= 0 && active(plan_.failing_tasks[i].duration_ms);
  });
  mark("offline_hosts", [&](std::size_t i) { return active(plan_.offline_hosts[i].duration_ms); });
  mark("unreachable_storages",
       [&](std::size_t i) { return active(plan_.unreachable_storages[i].duration_ms); });
  return json::serialize(doc);
}

std::optional<path_error_fault> fault_injector::request_error(const std::string& method,
                                                              const std::string& path) {
  for (auto& f : plan_.errors) {
    if (!matches(f.path, path) || !method_matches(f.method, method) || f.count < 0 ||
        !active(f.duration_ms))
      continue;
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
    if (matches(f.path, path) && method_matches(f.method, method) && active(f.duration_ms))
      ms += f.ms;
  return ms;
}

std::optional<std::string> fault_injector::task_failure(const std::string& type) {
  for (auto& f : plan_.failing_tasks) {
    if (!matches(f.type, type) || f.count < 0 || !active(f.duration_ms)) continue;
    if (f.rate < 1.0 && std::uniform_real_distribution<double>(0, 1)(rng_) >= f.rate) continue;
    if (f.count > 0 && --f.count == 0) f.count = -1;
    return f.message;
  }
  return std::nullopt;
}

std::optional<int> fault_injector::host_offline(const std::string& node) const {
  for (const auto& f : plan_.offline_hosts)
    if (f.node == node && active(f.duration_ms)) return f.status;
  return std::nullopt;
}

std::optional<fault_injector::clock::time_point> fault_injector::offline_since(
    const std::string& node) const {
  if (!host_offline(node)) return std::nullopt;
  auto it = offline_since_.find(node);
  return it == offline_since_.end() ? set_at_ : it->second;
}

bool fault_injector::storage_unreachable(const std::string& node,
                                         const std::string& storage) const {
  return std::any_of(plan_.unreachable_storages.begin(), plan_.unreachable_storages.end(),
                     [&](const storage_fault& f) {
                       return matches(f.node, node) && f.storage == storage &&
                              active(f.duration_ms);
                     });
}

}  // namespace kp::sim::pve
