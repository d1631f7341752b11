#pragma once
// What a write means in Kubernetes, independent of HTTP: create (names, uids, defaults, schema),
// update (optimistic concurrency, status subresources, generation), patch, and delete
// (preconditions, finalizers, graceful pod deletion, propagation). The REST layer and the
// simulated controllers both write through here, so both obey the same rules.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/kube/api_error.hpp"
#include "sim/kube/object_store.hpp"
#include "sim/kube/resource_registry.hpp"

namespace kp::sim::kube {

struct user_info {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  bool in_group(std::string_view g) const;
};

struct write_options {
  bool dry_run = false;
  std::string field_validation;  // Strict, Warn, Ignore ("" = Warn)
  std::string field_manager;
  std::vector<std::string> warnings;  // out: Warning headers
};

enum class write_scope { main, status, all };

struct delete_options {
  std::optional<std::int64_t> grace_period_seconds;
  std::string precondition_uid;
  std::string precondition_rv;
  std::string propagation;  // Background (default), Foreground, Orphan
  bool dry_run = false;
};

struct delete_outcome {
  object_ptr object;
  bool removed = false;
};

class operations {
 public:
  using clock_fn = std::function<std::chrono::system_clock::time_point()>;
  operations(resource_registry& registry, object_store& store, clock_fn clock);

  api_result<object_ptr> create(const resource_type& type, std::string_view namespace_name,
                                boost::json::object object, const user_info& user,
                                write_options& options);
  api_result<object_ptr> update(const resource_type& type, std::string_view namespace_name,
                                std::string_view name, boost::json::object object,
                                write_scope scope, write_options& options);
  // content_type selects the patch format; apply patches create a missing object.
  api_result<object_ptr> patch(const resource_type& type, std::string_view namespace_name,
                               std::string_view name, write_scope scope,
                               std::string_view content_type, const boost::json::value& body,
                               const user_info& user, write_options& options, bool force);
  api_result<delete_outcome> remove(const resource_type& type, std::string_view namespace_name,
                                    std::string_view name, const delete_options& options);

  // For simulated controllers: stores a changed object as is (no resourceVersion check, status
  // included); does nothing when the object did not change. Returns the stored version.
  object_ptr write(const resource_type& type, boost::json::object object);

  resource_registry& registry() { return registry_; }
  object_store& store() { return store_; }
  std::chrono::system_clock::time_point now() const { return clock_(); }
  // Called after every committed change (controllers use it to schedule a pass).
  std::function<void()> on_change;

 private:
  api_result<object_ptr> commit(const resource_type& type, const object_ptr& old,
                                boost::json::object next, bool dry_run);
  // Schema defaults, pruning and validation, then the CEL rules (with `old` for transition
  // rules and ratcheting; nullptr on create).
  api_status apply_schema_rules(const resource_type& type, boost::json::object& object,
                                const boost::json::object* old, write_options& options);
  api_status check_create_allowed(const resource_type& type, std::string_view ns);
  // A pod's priority from its priorityClassName (the built-in system classes or a stored one).
  std::int64_t class_priority(const boost::json::object& pod_spec) const;
  void prepare_create(const resource_type& type, boost::json::object& object,
                      const user_info& user);
  api_status validate(const resource_type& type, const boost::json::object& object,
                      const object_ptr& old);
  void after_removal(const resource_type& type, const boost::json::object& last);

  resource_registry& registry_;
  object_store& store_;
  clock_fn clock_;
};

bool is_pod_terminal(const boost::json::object& pod);

}  // namespace kp::sim::kube
