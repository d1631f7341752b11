#include "workload_world.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace kp::sim::kube::testing {
namespace json = boost::json;

namespace {

const transport::certificate_authority& test_ca() {
  static const auto ca = transport::certificate_authority::create("workload-test-ca");
  return ca.value();
}

const user_info admin{"admin", "", {"system:masters"}};

}  // namespace

workload_world::workload_world()
    : now(std::chrono::system_clock::now()),
      hub_(100000),
      store_(hub_),
      ops_(registry_, store_, [this] { return now; }) {
  settings.node_monitor_grace = std::chrono::hours(24);  // nodes here have no kubelet leases
  for (const char* ns : {"default", "kube-system"}) {
    write_options wo;
    (void)ops_.create(*registry_.find("", "v1", "namespaces"), "",
                      json::object{{"metadata", json::object{{"name", ns}}}}, admin, wo);
  }
  // kube-sim's order (cluster.cpp).
  controllers_.push_back(make_namespace_controller(test_ca().certificate_pem()));
  controllers_.push_back(make_token_cleaner());
  controllers_.push_back(make_node_lifecycle());
  controllers_.push_back(make_garbage_collector());
  controllers_.push_back(make_deployment_controller());
  controllers_.push_back(make_replicaset_controller());
  controllers_.push_back(make_daemonset_controller());
  controllers_.push_back(make_statefulset_controller());
  controllers_.push_back(make_job_controller());
  controllers_.push_back(make_scheduler());
  controllers_.push_back(make_kubelet());
  controllers_.push_back(make_disruption_controller());
}

void workload_world::pass() {
  controller_context ctx{ops_, settings, test_ca(), now};
  for (auto& c : controllers_) {
    auto it = enabled.find(c->name());
    if (it != enabled.end() && !it->second) continue;
    c->reconcile(ctx);
  }
}

bool workload_world::settle(int max_passes) {
  for (int i = 0; i < max_passes; ++i) {
    auto rv = store_.current_rv();
    pass();
    if (store_.current_rv() == rv) return true;
  }
  return false;
}

void workload_world::run_for(std::chrono::milliseconds total, std::chrono::milliseconds step) {
  for (std::chrono::milliseconds t{0}; t < total; t += step) {
    now += step;
    settle();
  }
}

json::object workload_world::create(const char* group, const char* plural,
                                    const std::string& json_text, const std::string& ns) {
  const auto* type = registry_.find_any_version(group, plural);
  EXPECT_NE(type, nullptr) << plural;
  if (!type) return {};
  write_options wo;
  auto r =
      ops_.create(*type, type->namespaced ? ns : "", json::parse(json_text).as_object(), admin, wo);
  EXPECT_TRUE(r.ok()) << plural << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value()->object : json::object{};
}

json::object workload_world::merge(const char* group, const char* plural, const std::string& name,
                                   const std::string& patch_json, const std::string& ns) {
  const auto* type = registry_.find_any_version(group, plural);
  write_options wo;
  auto r = ops_.patch(*type, type->namespaced ? ns : "", name, write_scope::main,
                      "application/merge-patch+json", json::parse(patch_json), admin, wo, false);
  EXPECT_TRUE(r.ok()) << plural << "/" << name << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value()->object : json::object{};
}

void workload_world::remove(const char* group, const char* plural, const std::string& name,
                            const std::string& ns) {
  const auto* type = registry_.find_any_version(group, plural);
  auto r = ops_.remove(*type, type->namespaced ? ns : "", name, {});
  EXPECT_TRUE(r.ok()) << plural << "/" << name << ": " << (r.ok() ? "" : r.error().message);
}

json::object workload_world::get(const char* group, const char* plural, const std::string& name,
                                 const std::string& ns) const {
  const auto* type = registry_.find_any_version(group, plural);
  auto o = store_.get(type->storage_key(), type->namespaced ? ns : "", name);
  return o ? o->object : json::object{};
}

std::vector<json::object> workload_world::list(const char* group, const char* plural,
                                               const std::string& ns) const {
  const auto* type = registry_.find_any_version(group, plural);
  std::vector<json::object> out;
  if (const auto* all = store_.objects(type->storage_key()))
    for (const auto& [k, o] : *all)
      if (!type->namespaced || meta_namespace(o->object) == ns) out.push_back(o->object);
  return out;
}

void workload_world::add_node(const std::string& name, const std::string& cpu,
                              const std::string& memory, const std::string& labels_json,
                              const std::string& taints_json) {
  auto labels = json::parse(labels_json).as_object();
  labels["kubernetes.io/hostname"] = name;
  json::object node{
      {"metadata", json::object{{"name", name}, {"labels", labels}}},
      {"spec", json::object{{"taints", json::parse(taints_json)}}},
      {"status",
       json::object{
           {"allocatable", json::object{{"cpu", cpu}, {"memory", memory}, {"pods", "110"}}},
           {"conditions",
            json::array{json::object{
                {"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}}}}}}};
  create("", "nodes", json::serialize(node));
}

std::vector<json::object> workload_world::pods(const std::string& prefix,
                                               bool with_deleting) const {
  std::vector<json::object> out;
  for (auto& p : list("", "pods"))
    if (meta_name(p).substr(0, prefix.size()) == prefix &&
        (with_deleting || !has_deletion_timestamp(p)))
      out.push_back(std::move(p));
  return out;
}

std::string text_at(const json::object& o, std::initializer_list<std::string_view> path) {
  return std::string(string_at(o, path));
}

std::int64_t number_at(const json::object& o, std::initializer_list<std::string_view> path) {
  const auto* v = find_path(o, path);
  return v ? as_int(*v).value_or(-1) : 0;
}

std::string condition_reason(const json::object& o, std::string_view type) {
  if (const auto* cs = array_at(o, {"status", "conditions"}))
    for (const auto& c : *cs)
      if (c.is_object() && string_at(c.get_object(), {"type"}) == type)
        return std::string(string_at(c.get_object(), {"status"})) + "/" +
               std::string(string_at(c.get_object(), {"reason"}));
  return {};
}

std::string label(const json::object& o, std::string_view key) {
  if (const auto* l = object_at(o, {"metadata", "labels"}))
    if (const auto* v = l->if_contains(key); v && v->is_string())
      return std::string(v->get_string());
  return {};
}

}  // namespace kp::sim::kube::testing
