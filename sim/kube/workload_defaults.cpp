#include "sim/kube/workload_defaults.hpp"

#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

// Sets `key` when it is missing or null.
void fill(json::object& o, std::string_view key, json::value value) {
  auto* v = o.if_contains(key);
  if (!v || v->is_null()) o[key] = std::move(value);
}

void deployment(json::object& spec) {
  fill(spec, "replicas", 1);
  fill(spec, "revisionHistoryLimit", 10);
  fill(spec, "progressDeadlineSeconds", 600);
  auto& strategy = ensure_object(spec, "strategy");
  fill(strategy, "type", "RollingUpdate");
  if (string_at(strategy, {"type"}) != "RollingUpdate") return;
  auto& rolling = ensure_object(strategy, "rollingUpdate");
  fill(rolling, "maxUnavailable", "25%");
  fill(rolling, "maxSurge", "25%");
}

void daemon_set(json::object& spec) {
  fill(spec, "revisionHistoryLimit", 10);
  auto& strategy = ensure_object(spec, "updateStrategy");
  fill(strategy, "type", "RollingUpdate");
  if (string_at(strategy, {"type"}) != "RollingUpdate") return;
  auto& rolling = ensure_object(strategy, "rollingUpdate");
  fill(rolling, "maxUnavailable", 1);
  fill(rolling, "maxSurge", 0);
}

void stateful_set(json::object& spec) {
  fill(spec, "replicas", 1);
  fill(spec, "revisionHistoryLimit", 10);
  fill(spec, "podManagementPolicy", "OrderedReady");
  auto& retention = ensure_object(spec, "persistentVolumeClaimRetentionPolicy");
  fill(retention, "whenDeleted", "Retain");
  fill(retention, "whenScaled", "Retain");
  auto& strategy = ensure_object(spec, "updateStrategy");
  fill(strategy, "type", "RollingUpdate");
  if (string_at(strategy, {"type"}) != "RollingUpdate") return;
  fill(ensure_object(strategy, "rollingUpdate"), "partition", 0);
}

void job(json::object& spec) {
  auto* completions = spec.if_contains("completions");
  auto* parallelism = spec.if_contains("parallelism");
  if ((!completions || completions->is_null()) && (!parallelism || parallelism->is_null()))
    spec["completions"] = 1;
  fill(spec, "parallelism", 1);
  fill(spec, "backoffLimit", 6);
  fill(spec, "completionMode", "NonIndexed");
  fill(spec, "suspend", false);
  if (!spec.contains("podFailurePolicy")) fill(spec, "podReplacementPolicy", "TerminatingOrFailed");
}

}  // namespace

void apply_workload_defaults(const resource_type& type, json::object& object) {
  if (type.custom || (type.group != "apps" && type.group != "batch")) return;
  if (type.plural == "deployments")
    deployment(ensure_object(object, "spec"));
  else if (type.plural == "daemonsets")
    daemon_set(ensure_object(object, "spec"));
  else if (type.plural == "statefulsets")
    stateful_set(ensure_object(object, "spec"));
  else if (type.plural == "jobs")
    job(ensure_object(object, "spec"));
}

}  // namespace kp::sim::kube
