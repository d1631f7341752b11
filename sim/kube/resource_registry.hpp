#pragma once
// Which resources the simulator serves: the built-in kinds and, once their CRD is created, custom
// ones. Discovery, routing, storage keys and patch rules all read this one table.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kp::sim::kube {

struct printer_column {
  std::string name;
  std::string type;  // string, integer, date, ...
  std::string json_path;
  int priority = 0;
};

// Where a resource keeps what its /scale subresource (autoscaling/v1 Scale) shows: JSON paths
// as a CRD's subresources.scale writes them (".spec.replicas").
struct scale_paths {
  std::string spec_replicas = ".spec.replicas";
  std::string status_replicas = ".status.replicas";
  std::string label_selector;  // a string field; empty: built-ins render .spec.selector
};

struct resource_type {
  std::string group;  // "" for the core group
  std::string version;
  std::string kind;
  std::string plural;
  std::string singular;
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  bool has_status = false;
  bool has_eviction = false;  // pods
  bool has_binding = false;   // pods
  bool has_approval = false;  // certificatesigningrequests
  bool custom = false;        // served from a CRD: strategic merge patch is refused
  std::optional<scale_paths> scale;
  // Version schema of a CRD (openAPIV3Schema) and its printer columns.
  std::shared_ptr<const boost::json::value> schema;
  std::vector<printer_column> columns;

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  // Storage is shared by every version of a group/resource.
  std::string storage_key() const { return group + "/" + plural; }
};

class resource_registry {
 public:
  resource_registry();  // with the built-in kinds

  const resource_type* find(const std::string& group, const std::string& version,
                            const std::string& plural) const;
  // Any served version of group/plural (the first registered).
  const resource_type* find_any_version(const std::string& group, const std::string& plural) const;
  const resource_type* find_kind(const std::string& group, const std::string& kind) const;
  const std::vector<std::shared_ptr<resource_type>>& all() const { return types_; }
  // Groups in registration order, each with its versions in order.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups() const;

  // Registers (or replaces) the served versions of a CRD object; returns the names accepted.
  void register_crd(const boost::json::object& crd);
  void unregister_crd(const boost::json::object& crd);

 private:
  void add(resource_type t);
  std::vector<std::shared_ptr<resource_type>> types_;
};

}  // namespace kp::sim::kube
