#include "core/capacity_buffer/capacity_buffer.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace kp::capacity_buffer {
namespace {

using template_key = std::tuple<std::string, std::string>;               // namespace, name
using scalable_key = std::tuple<std::string, std::string, std::string>;  // namespace, kind, name

resolution refuse(resolution r, std::string_view reason, std::string field, std::string why) {
  r.ready = false;
  r.replicas = 0;
  r.reason = std::string(reason);
  r.message = field + ": " + why;
  r.field = std::move(field);
  return r;
}

// The spec alone: exactly one reference, percentage only with scalableRef, no negatives, a
// PodTemplate buffer sized by replicas or limits. Returns the refused resolution, if any.
std::optional<resolution> judge_spec(const buffer& b, const resolution& base) {
  const auto failed = reasons::resolution_failed;
  if (b.pod_template_ref && b.scalable)
    return refuse(base, failed, "spec.podTemplateRef",
                  "exactly one of podTemplateRef and scalableRef may be set, not both");
  if (!b.pod_template_ref && !b.scalable)
    return refuse(base, failed, "spec.podTemplateRef",
                  "exactly one of podTemplateRef and scalableRef must be set");
  if (b.pod_template_ref && b.pod_template_ref->empty())
    return refuse(base, failed, "spec.podTemplateRef.name", "must not be empty");
  if (b.scalable && b.scalable->name.empty())
    return refuse(base, failed, "spec.scalableRef.name", "must not be empty");
  if (b.scalable && !is_supported_scalable(*b.scalable))
    return refuse(base, failed, "spec.scalableRef.kind",
                  "\"" + b.scalable->kind + "\" in group \"" + b.scalable->api_group +
                      "\" is not supported (apps Deployment, ReplicaSet or StatefulSet)");
  if (b.replicas && *b.replicas < 0)
    return refuse(base, failed, "spec.replicas", "must be at least 0");
  if (b.percentage && *b.percentage < 0)
    return refuse(base, failed, "spec.percentage", "must be at least 0");
  if (b.percentage && !b.scalable)
    return refuse(base, failed, "spec.percentage", "applies only with scalableRef");
  if (b.pod_template_ref && !b.replicas && !b.limits)
    return refuse(base, failed, "spec.replicas",
                  "a buffer with podTemplateRef needs replicas or limits");
  if (b.limits)
    for (const auto& [name, q] : b.limits->items())
      if (q.milli < 0) return refuse(base, failed, "spec.limits." + name, "must not be negative");
  return std::nullopt;
}

model::pod virtual_pod(const buffer& b, const model::pod& shape, std::int64_t index) {
  model::pod p = shape;
  const std::string n = std::to_string(index);
  p.name = "capacity-buffer-" + b.name + "-" + n;
  p.namespace_ = b.namespace_;
  p.uid = (b.uid.empty() ? b.namespace_ + "/" + b.name : b.uid) + "-" + n;
  p.annotations.insert_or_assign(std::string(virtual_pod_annotation), "true");
  p.annotations.insert_or_assign(std::string(buffer_name_annotation), b.name);
  p.annotations.insert_or_assign(std::string(buffer_namespace_annotation), b.namespace_);
  // A virtual pod is never bound, owned or backed by a volume claim: those would tie it to
  // objects that do not exist for it (Karpenter drops claim volumes the same way).
  p.owners.clear();
  p.node_name.clear();
  p.nominated_node_name.clear();
  p.phase = "Pending";
  p.terminating = false;
  p.unschedulable = true;
  p.start_unix_ms.reset();
  const auto claims = [](const model::pod_volume& v) { return !v.claim_name.empty(); };
  const auto& volumes = p.volumes.items();
  if (std::any_of(volumes.begin(), volumes.end(), claims)) std::erase_if(p.volumes.edit(), claims);
  return p;
}

}  // namespace

bool is_supported_scalable(const scalable_ref& ref) {
  if (!ref.api_group.empty() && ref.api_group != "apps") return false;
  return ref.kind == "Deployment" || ref.kind == "ReplicaSet" || ref.kind == "StatefulSet";
}

std::int64_t percentage_chunks(std::int64_t scalable_replicas, std::int64_t percentage) {
  if (scalable_replicas <= 0 || percentage <= 0) return 0;
  // Both are int32 in the API, so the product fits; ceil without floating point.
  const std::int64_t product = scalable_replicas * percentage;
  return std::max<std::int64_t>(1, (product + 99) / 100);
}

std::optional<std::int64_t> chunks_within_limits(const model::resource_list& limits,
                                                 const model::resource_list& requests) {
  std::optional<std::int64_t> fewest;
  for (const auto& [name, limit] : limits.items()) {
    const std::int64_t each = requests.milli(name);
    if (each <= 0) continue;
    const std::int64_t n = std::max<std::int64_t>(0, limit.milli) / each;
    fewest = fewest ? std::min(*fewest, n) : n;
  }
  return fewest;
}

std::vector<resolution> resolve(const inputs& in) {
  std::map<template_key, const pod_template*> templates;
  for (const auto& t : in.templates) templates[{t.namespace_, t.name}] = &t;
  std::map<scalable_key, const scalable_object*> scalables;
  for (const auto& s : in.scalables) scalables[{s.namespace_, s.ref.kind, s.ref.name}] = &s;

  std::vector<resolution> out;
  out.reserve(in.buffers.size());
  for (const auto& b : in.buffers) {
    resolution base;
    base.namespace_ = b.namespace_;
    base.name = b.name;
    if (auto refused = judge_spec(b, base)) {
      out.push_back(std::move(*refused));
      continue;
    }
    const model::pod* shape = nullptr;
    std::vector<std::int64_t> wanted;  // the candidates; the largest is desired
    if (b.pod_template_ref) {
      auto it = templates.find({b.namespace_, *b.pod_template_ref});
      if (it == templates.end()) {
        out.push_back(
            refuse(base, reasons::pod_template_not_found, "spec.podTemplateRef.name",
                   "PodTemplate " + b.namespace_ + "/" + *b.pod_template_ref + " not found"));
        continue;
      }
      if (!it->second->error.empty()) {
        out.push_back(refuse(
            base, reasons::resolution_failed, "spec.podTemplateRef.name",
            "PodTemplate " + b.namespace_ + "/" + *b.pod_template_ref + ": " + it->second->error));
        continue;
      }
      shape = &it->second->pod;
      base.status_pod_template = *b.pod_template_ref;
      base.pod_template_generation = it->second->generation;
    } else {
      auto it = scalables.find({b.namespace_, b.scalable->kind, b.scalable->name});
      const std::string what = b.scalable->kind + " " + b.namespace_ + "/" + b.scalable->name;
      if (it == scalables.end()) {
        out.push_back(refuse(base, reasons::scalable_ref_not_found, "spec.scalableRef.name",
                             what + " not found"));
        continue;
      }
      if (!it->second->error.empty()) {
        out.push_back(refuse(base, reasons::resolution_failed, "spec.scalableRef.name",
                             what + ": " + it->second->error));
        continue;
      }
      shape = &it->second->pod;
      if (b.percentage && it->second->replicas > 0)
        wanted.push_back(percentage_chunks(it->second->replicas, *b.percentage));
    }
    if (b.replicas) wanted.push_back(*b.replicas);

    std::int64_t chunks = wanted.empty() ? 0 : *std::max_element(wanted.begin(), wanted.end());
    if (b.limits) {
      auto within = chunks_within_limits(*b.limits, model::pod_requests(*shape));
      if (within) chunks = wanted.empty() ? *within : std::min(chunks, *within);
    }
    if (chunks > max_chunks) {
      out.push_back(refuse(base, reasons::resolution_failed,
                           b.replicas ? "spec.replicas" : "spec.limits",
                           std::to_string(chunks) + " chunks exceed the most one buffer may ask (" +
                               std::to_string(max_chunks) + ")"));
      continue;
    }
    base.ready = true;
    base.replicas = chunks;
    base.reason = std::string(reasons::resolved);
    base.message = "Pod template resolved successfully";
    base.pods.reserve(static_cast<std::size_t>(chunks));
    for (std::int64_t i = 1; i <= chunks; ++i) base.pods.push_back(virtual_pod(b, *shape, i));
    out.push_back(std::move(base));
  }
  return out;
}

bool is_virtual_pod(const model::pod& p) {
  auto it = p.annotations.find(virtual_pod_annotation);
  return it != p.annotations.end() && it->second == "true";
}

std::string buffer_key_of(const model::pod& p) {
  if (!is_virtual_pod(p)) return "";
  auto ns = p.annotations.find(buffer_namespace_annotation);
  auto name = p.annotations.find(buffer_name_annotation);
  if (ns == p.annotations.end() || name == p.annotations.end()) return "";
  return ns->second + "/" + name->second;
}

}  // namespace kp::capacity_buffer
