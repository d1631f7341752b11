#include "sim/kube/resource_registry.hpp"

#include <algorithm>

#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {
resource_type builtin(std::string group, std::string version, std::string kind, std::string plural,
                      bool namespaced, std::vector<std::string> short_names = {},
                      bool status = false) {
  resource_type t;
  t.group = std::move(group);
  t.version = std::move(version);
  t.kind = std::move(kind);
  t.plural = std::move(plural);
  t.singular = t.kind;
  std::transform(t.singular.begin(), t.singular.end(), t.singular.begin(), ::tolower);
  t.namespaced = namespaced;
  t.short_names = std::move(short_names);
  t.has_status = status;
  return t;
}
}  // namespace

resource_registry::resource_registry() {
  add(builtin("", "v1", "Namespace", "namespaces", false, {"ns"}, true));
  auto pods = builtin("", "v1", "Pod", "pods", true, {"po"}, true);
  pods.has_eviction = true;
  pods.has_binding = true;
  pods.categories = {"all"};
  add(pods);
  add(builtin("", "v1", "Node", "nodes", false, {"no"}, true));
  add(builtin("", "v1", "Secret", "secrets", true));
  add(builtin("", "v1", "ConfigMap", "configmaps", true, {"cm"}));
  add(builtin("", "v1", "Event", "events", true, {"ev"}));
  add(builtin("", "v1", "ServiceAccount", "serviceaccounts", true, {"sa"}));
  auto services = builtin("", "v1", "Service", "services", true, {"svc"}, true);
  services.categories = {"all"};
  add(services);
  add(builtin("", "v1", "Endpoints", "endpoints", true, {"ep"}));
  add(builtin("", "v1", "PersistentVolume", "persistentvolumes", false, {"pv"}, true));
  add(builtin("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", true, {"pvc"}, true));
  for (auto t : {builtin("apps", "v1", "Deployment", "deployments", true, {"deploy"}, true),
                 builtin("apps", "v1", "ReplicaSet", "replicasets", true, {"rs"}, true),
                 builtin("apps", "v1", "StatefulSet", "statefulsets", true, {"sts"}, true),
                 builtin("apps", "v1", "DaemonSet", "daemonsets", true, {"ds"}, true)}) {
    t.categories = {"all"};
    if (t.plural != "daemonsets") t.scale = scale_paths{};
    add(t);
  }
  for (auto t : {builtin("batch", "v1", "Job", "jobs", true, {}, true),
                 builtin("batch", "v1", "CronJob", "cronjobs", true, {"cj"}, true)}) {
    t.categories = {"all"};
    add(t);
  }
  add(builtin("", "v1", "PodTemplate", "podtemplates", true));
  add(builtin("coordination.k8s.io", "v1", "Lease", "leases", true));
  add(builtin("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true, {"pdb"}, true));
  add(builtin("events.k8s.io", "v1", "Event", "events", true, {"ev"}));
  add(builtin("storage.k8s.io", "v1", "StorageClass", "storageclasses", false, {"sc"}));
  add(builtin("storage.k8s.io", "v1", "CSINode", "csinodes", false));
  add(builtin("storage.k8s.io", "v1", "CSIDriver", "csidrivers", false));
  add(builtin("storage.k8s.io", "v1", "VolumeAttachment", "volumeattachments", false, {}, true));
  auto csr = builtin("certificates.k8s.io", "v1", "CertificateSigningRequest",
                     "certificatesigningrequests", false, {"csr"}, true);
  csr.has_approval = true;
  add(csr);
  add(builtin("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions",
              false, {"crd", "crds"}, true));
  add(builtin("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", false, {"pc"}));
  add(builtin("node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", false));
}

void resource_registry::add(resource_type t) {
  types_.push_back(std::make_shared<resource_type>(std::move(t)));
}

const resource_type* resource_registry::find(const std::string& group, const std::string& version,
                                             const std::string& plural) const {
  for (const auto& t : types_)
    if (t->group == group && t->version == version && t->plural == plural) return t.get();
  return nullptr;
}

const resource_type* resource_registry::find_any_version(const std::string& group,
                                                         const std::string& plural) const {
  for (const auto& t : types_)
    if (t->group == group && t->plural == plural) return t.get();
  return nullptr;
}

const resource_type* resource_registry::find_kind(const std::string& group,
                                                  const std::string& kind) const {
  for (const auto& t : types_)
    if (t->group == group && t->kind == kind) return t.get();
  return nullptr;
}

std::vector<std::pair<std::string, std::vector<std::string>>> resource_registry::groups() const {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto& t : types_) {
    auto it = std::find_if(out.begin(), out.end(), [&](auto& g) { return g.first == t->group; });
    if (it == out.end()) {
      out.push_back({t->group, {t->version}});
    } else if (std::find(it->second.begin(), it->second.end(), t->version) == it->second.end()) {
      it->second.push_back(t->version);
    }
  }
  return out;
}

void resource_registry::register_crd(const json::object& crd) {
  unregister_crd(crd);
  const auto* spec = object_at(crd, {"spec"});
  if (!spec) return;
  std::string group(string_at(*spec, {"group"}));
  const auto* names = object_at(*spec, {"names"});
  if (group.empty() || !names) return;
  const auto* versions = array_at(*spec, {"versions"});
  if (!versions) return;
  for (const auto& vv : *versions) {
    const auto* v = vv.if_object();
    if (!v) continue;
    const auto* served = v->if_contains("served");
    if (served && served->is_bool() && !served->get_bool()) continue;
    resource_type t;
    t.group = group;
    t.version = std::string(string_at(*v, {"name"}));
    t.kind = std::string(string_at(*names, {"kind"}));
    t.plural = std::string(string_at(*names, {"plural"}));
    t.singular = std::string(string_at(*names, {"singular"}));
    if (t.singular.empty()) {
      t.singular = t.kind;
      std::transform(t.singular.begin(), t.singular.end(), t.singular.begin(), ::tolower);
    }
    t.namespaced = string_at(*spec, {"scope"}) != "Cluster";
    if (const auto* sn = array_at(*names, {"shortNames"}))
      for (const auto& s : *sn)
        if (s.is_string()) t.short_names.emplace_back(s.get_string());
    if (const auto* cats = array_at(*names, {"categories"}))
      for (const auto& s : *cats)
        if (s.is_string()) t.categories.emplace_back(s.get_string());
    t.has_status = find_path(*v, {"subresources", "status"}) != nullptr;
    if (const auto* s = object_at(*v, {"subresources", "scale"})) {
      scale_paths paths;
      paths.spec_replicas = std::string(string_at(*s, {"specReplicasPath"}));
      paths.status_replicas = std::string(string_at(*s, {"statusReplicasPath"}));
      paths.label_selector = std::string(string_at(*s, {"labelSelectorPath"}));
      t.scale = std::move(paths);
    }
    t.custom = true;
    if (const auto* schema = find_path(*v, {"schema", "openAPIV3Schema"}))
      t.schema = std::make_shared<const json::value>(*schema);
    if (const auto* cols = array_at(*v, {"additionalPrinterColumns"})) {
      for (const auto& c : *cols) {
        const auto* co = c.if_object();
        if (!co) continue;
        printer_column pc;
        pc.name = std::string(string_at(*co, {"name"}));
        pc.type = std::string(string_at(*co, {"type"}));
        pc.json_path = std::string(string_at(*co, {"jsonPath"}));
        if (const auto* p = co->if_contains("priority"))
          pc.priority = static_cast<int>(as_int(*p).value_or(0));
        t.columns.push_back(std::move(pc));
      }
    }
    if (t.version.empty() || t.kind.empty() || t.plural.empty()) continue;
    add(std::move(t));
  }
}

void resource_registry::unregister_crd(const json::object& crd) {
  const auto* spec = object_at(crd, {"spec"});
  if (!spec) return;
  std::string group(string_at(*spec, {"group"}));
  std::string plural(string_at(*spec, {"names", "plural"}));
  types_.erase(std::remove_if(types_.begin(), types_.end(),
                              [&](const auto& t) {
                                return t->custom && t->group == group && t->plural == plural;
                              }),
               types_.end());
}

}  // namespace kp::sim::kube
