#include "sim/lab/workload_steps.hpp"

#include <boost/json.hpp>

#include "sim/lab/lab_world.hpp"

namespace kp::lab {

namespace json = boost::json;

namespace {

std::string kube_message(const http_reply& r) {
  auto v = r.json();
  if (v.is_object() && v.as_object().contains("message") && v.at("message").is_string())
    return std::string(v.at("message").as_string());
  return r.body;
}

}  // namespace

std::string workload_manifest(const scale_step& s) {
  json::object labels{{"app", s.name}, {"kp-lab/scenario", "true"}};
  json::object container{
      {"name", "app"},
      {"image", s.image.empty() ? scale_step::default_image : s.image},
      {"resources",
       json::object{
           {"requests",
            json::object{{"cpu", s.cpu.empty() ? scale_step::default_cpu : s.cpu},
                         {"memory", s.memory.empty() ? scale_step::default_memory : s.memory}}}}}};
  bool claims = s.kind == "StatefulSet" && !s.storage.empty();
  if (claims)
    container["volumeMounts"] = json::array{json::object{{"name", "data"}, {"mountPath", "/data"}}};
  json::object pod_spec{{"containers", json::array{container}},
                        {"terminationGracePeriodSeconds", 1}};
  if (s.tolerate_all) pod_spec["tolerations"] = json::array{json::object{{"operator", "Exists"}}};
  // Node agents run at system-node-critical priority, so the scheduler places them on a new
  // node before the application pods that could otherwise fill it.
  if (s.kind == "DaemonSet") pod_spec["priorityClassName"] = "system-node-critical";
  if (!s.node_selector.empty()) {
    json::object sel;
    for (const auto& [k, v] : s.node_selector) sel[k] = v;
    pod_spec["nodeSelector"] = sel;
  }
  json::object spec{{"selector", json::object{{"matchLabels", json::object{{"app", s.name}}}}},
                    {"template", json::object{{"metadata", json::object{{"labels", labels}}},
                                              {"spec", pod_spec}}}};
  if (s.kind != "DaemonSet") spec["replicas"] = s.replicas;
  if (s.kind == "StatefulSet") {
    spec["serviceName"] = s.name;
    if (claims)
      spec["volumeClaimTemplates"] = json::array{json::object{
          {"metadata", json::object{{"name", "data"}}},
          {"spec",
           json::object{
               {"accessModes", json::array{"ReadWriteOnce"}},
               {"resources", json::object{{"requests", json::object{{"storage", s.storage}}}}}}}}};
  }
  return json::serialize(json::object{
      {"apiVersion", "apps/v1"},
      {"kind", s.kind},
      {"metadata", json::object{{"name", s.name}, {"namespace", s.ns}, {"labels", labels}}},
      {"spec", spec}});
}

std::string replica_set_manifest(const scale_step& step) {
  auto s = step;
  s.kind = "ReplicaSet";
  return workload_manifest(s);
}

status apply_scale_step(lab_world& world, const scale_step& step) {
  if (step.kind != "DaemonSet" && step.cpu.empty() && step.memory.empty() && step.image.empty()) {
    // Only the count: the pods keep the template they were made with.
    auto path = world.collection_path("apps/v1", step.kind, step.ns);
    if (!path) return path.error();
    auto r = world.kube().call(
        "PATCH", *path + "/" + step.name,
        json::serialize(json::object{{"spec", json::object{{"replicas", step.replicas}}}}),
        "application/merge-patch+json");
    if (!r) return r.error();
    if (r->ok()) return {};
    if (r->status != 404)
      return make_error("scale_failed", step.kind + " " + step.name + ": HTTP " +
                                            std::to_string(r->status) + " " + kube_message(*r));
  }
  return world.apply_yaml(workload_manifest(step));
}

status scale_replica_set(lab_world& world, const scale_step& step) {
  auto s = step;
  s.kind = "ReplicaSet";
  return apply_scale_step(world, s);
}

status apply_rollout_step(lab_world& world, const rollout_step& step) {
  json::object container{{"name", "app"}};
  if (!step.image.empty()) container["image"] = step.image;
  json::object requests;
  if (!step.cpu.empty()) requests["cpu"] = step.cpu;
  if (!step.memory.empty()) requests["memory"] = step.memory;
  if (!requests.empty()) container["resources"] = json::object{{"requests", requests}};
  json::object patch{
      {"spec",
       json::object{{"template", json::object{{"spec", json::object{{"containers",
                                                                     json::array{container}}}}}}}}};
  auto path = world.collection_path("apps/v1", step.kind, step.ns);
  if (!path) return path.error();
  auto r = world.kube().call("PATCH", *path + "/" + step.name, json::serialize(patch),
                             "application/strategic-merge-patch+json");
  if (!r) return r.error();
  if (r->ok()) return {};
  return make_error("rollout_failed", step.kind + " " + step.name + ": HTTP " +
                                          std::to_string(r->status) + " " + kube_message(*r));
}

}  // namespace kp::lab
