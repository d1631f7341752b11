#include "sim/lab/node_sizes.hpp"

#include <boost/json.hpp>
#include <cstdio>
#include <map>

#include "core/model/quantity.hpp"
#include "sim/lab/lab_world.hpp"

namespace kp::lab {

namespace json = boost::json;

namespace {

const json::object* object_at(const json::value& v, std::initializer_list<const char*> path) {
  const json::value* cur = &v;
  for (auto key : path) {
    if (!cur->is_object()) return nullptr;
    cur = cur->as_object().if_contains(key);
    if (cur == nullptr) return nullptr;
  }
  return cur->if_object();
}

std::string string_at(const json::value& v, std::initializer_list<const char*> path,
                      const char* key) {
  const auto* o = object_at(v, path);
  const auto* s = o ? o->if_contains(key) : nullptr;
  return s && s->is_string() ? std::string(s->as_string()) : std::string();
}

// A quantity in base units (cores, bytes); 0 when missing or unreadable.
double amount(const json::object* list, const char* resource) {
  const auto* v = list ? list->if_contains(resource) : nullptr;
  if (v == nullptr || !v->is_string()) return 0;
  auto q = model::parse_quantity(v->as_string());
  return q ? static_cast<double>(q->milli) / 1000.0 : 0;
}

constexpr double gib = 1024.0 * 1024.0 * 1024.0;

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

std::string node_size::line() const {
  return name + " " + (instance_type.empty() ? "(no instance type)" : instance_type) + ": CPU " +
         fixed(app_cpu) + " + " + fixed(daemon_cpu) + " daemon of " + fixed(cpu) + ", memory " +
         fixed(app_memory_gib) + " + " + fixed(daemon_memory_gib) + " daemon of " +
         fixed(memory_gib) + " GiB, " + std::to_string(app_pods) + " + " +
         std::to_string(daemon_pods) + " daemon pods";
}

result<std::vector<node_size>> read_node_sizes(lab_world& world) {
  auto nodes = world.list("/api/v1/nodes");
  if (!nodes) return nodes.error();
  auto pods = world.list("/api/v1/pods");
  if (!pods) return pods.error();
  std::map<std::string, node_size> by_name;
  for (const auto& n : *nodes) {
    node_size s;
    s.name = string_at(n, {"metadata"}, "name");
    s.instance_type = string_at(n, {"metadata", "labels"}, "node.kubernetes.io/instance-type");
    const auto* alloc = object_at(n, {"status", "allocatable"});
    s.cpu = amount(alloc, "cpu");
    s.memory_gib = amount(alloc, "memory") / gib;
    by_name[s.name] = s;
  }
  for (const auto& p : *pods) {
    auto node = string_at(p, {"spec"}, "nodeName");
    auto phase = string_at(p, {"status"}, "phase");
    auto it = by_name.find(node);
    if (it == by_name.end() || phase == "Succeeded" || phase == "Failed") continue;
    bool daemon = false;
    if (const auto* meta = object_at(p, {"metadata"}))
      if (const auto* refs = meta->if_contains("ownerReferences"); refs && refs->is_array())
        for (const auto& r : refs->as_array())
          daemon |= r.is_object() && string_at(r, {}, "kind") == "DaemonSet";
    double cpu = 0, memory = 0;
    if (const auto* spec = object_at(p, {"spec"}))
      if (const auto* cs = spec->if_contains("containers"); cs && cs->is_array())
        for (const auto& c : cs->as_array()) {
          const auto* req = object_at(c, {"resources", "requests"});
          cpu += amount(req, "cpu");
          memory += amount(req, "memory");
        }
    auto& s = it->second;
    (daemon ? s.daemon_cpu : s.app_cpu) += cpu;
    (daemon ? s.daemon_memory_gib : s.app_memory_gib) += memory / gib;
    ++(daemon ? s.daemon_pods : s.app_pods);
  }
  std::vector<node_size> out;
  for (auto& [name, s] : by_name) out.push_back(std::move(s));
  return out;
}

}  // namespace kp::lab
