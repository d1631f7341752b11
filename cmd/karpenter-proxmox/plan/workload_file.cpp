#include "cmd/karpenter-proxmox/plan/workload_file.hpp"

#include <boost/json.hpp>

#include "config/text_file.hpp"
#include "protocol/kube/apps_v1.hpp"
#include "protocol/kube/codec.hpp"
#include "protocol/kube/model_translation.hpp"
#include "sim/lab/yaml_json.hpp"

namespace kp::plan {
namespace {

namespace json = boost::json;

std::string string_field(const json::object& o, const char* key) {
  auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

// What kube-scheduler leaves on a pod that fits no node: what the provisioner looks for.
void make_pending(kube::pod& pod, const std::string& uid) {
  if (pod.metadata.namespace_.empty()) pod.metadata.namespace_ = "default";
  pod.metadata.uid = std::string(added_pod_uid_prefix) + uid;
  pod.spec.node_name.clear();
  pod.status = {};
  pod.status.phase = "Pending";
  kube::condition scheduled;
  scheduled.type = "PodScheduled";
  scheduled.status = "False";
  scheduled.reason = "Unschedulable";
  scheduled.message = "added by karpenter-proxmox plan";
  pod.status.conditions.push_back(std::move(scheduled));
}

template <class Workload>
result<std::vector<kube::pod>> expand(const json::value& doc, const std::string& kind) {
  auto w = kube::decode_value<Workload>(doc);
  if (!w) return w.error();
  if (w->metadata.name.empty()) return make_error("invalid_object", "metadata.name: missing");
  const auto replicas = w->replicas.value_or(1);
  if (replicas < 0) {
    return make_error("invalid_object",
                      "spec.replicas: " + std::to_string(replicas) + " is negative");
  }
  std::vector<kube::pod> out;
  for (std::int64_t i = 0; i < replicas; ++i) {
    kube::pod pod;
    pod.metadata = w->template_.metadata;
    pod.spec = w->template_.spec;
    pod.metadata.namespace_ = w->metadata.namespace_;
    // StatefulSet pods are <name>-<ordinal>; the others get a plan-made suffix.
    pod.metadata.name =
        w->metadata.name + (kind == "StatefulSet" ? "-" : "-what-if-") + std::to_string(i);
    pod.metadata.generate_name.clear();
    kube::owner_reference owner;
    owner.api_version = "apps/v1";
    owner.kind = kind == "Deployment" ? "ReplicaSet" : kind;
    owner.name = w->metadata.name;
    owner.controller = true;
    pod.metadata.owner_references = {owner};
    out.push_back(std::move(pod));
  }
  return out;
}

result<std::vector<kube::pod>> pods_of(const json::value& doc, const std::string& kind) {
  if (kind == "Pod") {
    auto pod = kube::decode_value<kube::pod>(doc);
    if (!pod) return pod.error();
    if (pod->metadata.name.empty()) return make_error("invalid_object", "metadata.name: missing");
    return std::vector<kube::pod>{std::move(*pod)};
  }
  if (kind == "Deployment") return expand<kube::deployment>(doc, kind);
  if (kind == "ReplicaSet") return expand<kube::replica_set>(doc, kind);
  if (kind == "StatefulSet") return expand<kube::stateful_set>(doc, kind);
  return make_error("invalid_object",
                    "kind: \"" + kind + "\" is not a Pod, Deployment, ReplicaSet or StatefulSet");
}

}  // namespace

result<std::vector<kube::pod>> parse_workloads(const std::string& text, const std::string& file) {
  auto docs = lab::yaml_documents_to_json(text);
  if (!docs) return make_error(docs.error().code, file + ": " + docs.error().message);
  std::vector<kube::pod> out;
  for (std::size_t i = 0; i < docs->size(); ++i) {
    const auto& doc = (*docs)[i];
    std::string where = file + ": document " + std::to_string(i + 1);
    if (!doc.is_object()) return make_error("invalid_object", where + ": not a mapping");
    const auto& o = doc.as_object();
    const std::string kind = string_field(o, "kind");
    if (kind.empty()) return make_error("invalid_object", where + ": kind: missing");
    std::string name;
    if (auto* meta = o.if_contains("metadata"); meta != nullptr && meta->is_object())
      name = string_field(meta->as_object(), "name");
    where += " (" + kind + (name.empty() ? "" : " " + name) + ")";
    auto pods = pods_of(doc, kind);
    if (!pods) return make_error(pods.error().code, where + ": " + pods.error().message);
    for (auto& pod : *pods) {
      make_pending(pod, std::to_string(out.size()));
      // Quantities and selectors are checked as the provisioner will read them.
      if (auto m = kube::to_model(pod); !m) {
        return make_error(m.error().code, where + ": " + m.error().message);
      }
      out.push_back(std::move(pod));
    }
  }
  if (out.empty()) return make_error("invalid_object", file + ": holds no pods");
  return out;
}

result<std::vector<kube::pod>> read_workload_file(const std::string& path) {
  auto text = config::read_text_file(path);
  if (!text) return make_error(text.error().code, path + ": " + text.error().message);
  return parse_workloads(*text, path);
}

}  // namespace kp::plan
