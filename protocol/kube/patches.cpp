#include "protocol/kube/patches.hpp"

#include <boost/json.hpp>

#include "protocol/kube/codec.hpp"

namespace kp::kube {
namespace {

namespace bj = boost::json;

std::string map_patch(const char* field, const string_map& set,
                      const std::vector<std::string>& remove, const std::string& resource_version) {
  bj::object values;
  for (const auto& [k, v] : set) values[k] = bj::string(v);
  for (const auto& k : remove) values[k] = nullptr;  // null deletes the key
  bj::object meta;
  meta[field] = std::move(values);
  if (!resource_version.empty()) meta["resourceVersion"] = bj::string(resource_version);
  return bj::serialize(bj::object{{"metadata", std::move(meta)}});
}

}  // namespace

std::string labels_merge_patch(const string_map& set, const std::vector<std::string>& remove,
                               const std::string& resource_version) {
  return map_patch("labels", set, remove, resource_version);
}

std::string annotations_merge_patch(const string_map& set, const std::vector<std::string>& remove,
                                    const std::string& resource_version) {
  return map_patch("annotations", set, remove, resource_version);
}

std::string finalizers_merge_patch(const std::vector<std::string>& finalizers,
                                   const std::string& resource_version) {
  bj::array list;
  for (const auto& f : finalizers) list.emplace_back(bj::string(f));
  bj::object meta{{"finalizers", std::move(list)}};
  if (!resource_version.empty()) meta["resourceVersion"] = bj::string(resource_version);
  return bj::serialize(bj::object{{"metadata", std::move(meta)}});
}

std::string unschedulable_merge_patch(bool unschedulable) {
  return bj::serialize(bj::object{{"spec", bj::object{{"unschedulable", unschedulable}}}});
}

std::string taints_json_patch(const std::vector<taint>& taints,
                              const std::string& resource_version) {
  bj::array list;
  for (const auto& t : taints) {
    bj::object o{{"key", t.key}, {"effect", t.effect}};
    if (!t.value.empty()) o["value"] = bj::string(t.value);
    if (!t.time_added.empty()) o["timeAdded"] = bj::string(t.time_added);
    list.emplace_back(std::move(o));
  }
  bj::array ops;
  if (!resource_version.empty()) {
    ops.emplace_back(bj::object{
        {"op", "test"}, {"path", "/metadata/resourceVersion"}, {"value", resource_version}});
  }
  // "add" replaces an existing member and creates a missing one, unlike "replace".
  ops.emplace_back(bj::object{{"op", "add"}, {"path", "/spec/taints"}, {"value", std::move(list)}});
  return bj::serialize(ops);
}

std::string node_claim_status_merge_patch(const node_claim& claim) {
  auto v = encode_value(claim);
  bj::object out;
  if (auto* st = v.as_object().if_contains("status")) {
    out["status"] = *st;
  } else {
    out["status"] = bj::object();
  }
  return bj::serialize(out);
}

std::string conditions_status_merge_patch(const std::vector<condition>& conditions,
                                          boost::json::object fields) {
  bj::array list;
  for (const auto& c : conditions) {
    bj::object o;
    o["type"] = c.type;
    o["status"] = c.status;
    o["reason"] = c.reason;
    o["message"] = c.message;
    o["lastTransitionTime"] = c.last_transition_time;
    if (c.observed_generation > 0) o["observedGeneration"] = c.observed_generation;
    list.push_back(std::move(o));
  }
  fields["conditions"] = std::move(list);
  return bj::serialize(bj::object{{"status", std::move(fields)}});
}

}  // namespace kp::kube
