#include "sim/kube/operations.hpp"

#include <algorithm>

#include "sim/kube/crd_rules.hpp"
#include "sim/kube/crd_schema.hpp"
#include "sim/kube/crd_structural.hpp"
#include "sim/kube/json_util.hpp"
#include "sim/kube/patch.hpp"
#include "sim/kube/time_fields.hpp"
#include "sim/kube/workload_defaults.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

bool user_info::in_group(std::string_view g) const {
  return std::find(groups.begin(), groups.end(), g) != groups.end();
}

bool is_pod_terminal(const json::object& pod) {
  auto phase = string_at(pod, {"status", "phase"});
  return phase == "Succeeded" || phase == "Failed";
}

namespace {

bool lower_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool alnum(char c) {
  return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

// An RFC 1123 subdomain: dot-separated labels of [a-z0-9-], each starting and ending alphanumeric.
bool valid_subdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    auto dot = name.find('.', start);
    auto label =
        name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty() || !lower_alnum(label.front()) || !lower_alnum(label.back())) return false;
    for (char c : label)
      if (!lower_alnum(c) && c != '-') return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// Empty, or at most 63 of [A-Za-z0-9-_.] starting and ending alphanumeric.
bool valid_label_value(std::string_view v) {
  if (v.empty()) return true;
  if (v.size() > 63 || !alnum(v.front()) || !alnum(v.back())) return false;
  for (char c : v)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

std::string random_suffix() {
  static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string uid = make_uid();
  std::string out;
  for (int i = 0; i < 5; ++i) out += alphabet[static_cast<unsigned char>(uid[i * 3]) % 27];
  return out;
}

std::vector<std::string> finalizers_of(const json::object& o) {
  std::vector<std::string> out;
  if (const auto* f = array_at(o, {"metadata", "finalizers"}))
    for (const auto& v : *f)
      if (v.is_string()) out.emplace_back(v.get_string());
  return out;
}

// Everything but metadata and status: a change here bumps metadata.generation.
bool spec_changed(const json::object& a, const json::object& b) {
  for (const auto& kv : a) {
    if (kv.key() == "metadata" || kv.key() == "status") continue;
    const auto* other = b.if_contains(kv.key());
    if (!other || *other != kv.value()) return true;
  }
  for (const auto& kv : b) {
    if (kv.key() == "metadata" || kv.key() == "status") continue;
    if (!a.contains(kv.key())) return true;
  }
  return false;
}

std::string qos_class(const json::object& pod) {
  const auto* containers = array_at(pod, {"spec", "containers"});
  if (!containers) return "BestEffort";
  bool any = false;
  bool guaranteed = true;
  for (const auto& c : *containers) {
    const auto* co = c.if_object();
    if (!co) continue;
    const auto* req = object_at(*co, {"resources", "requests"});
    const auto* lim = object_at(*co, {"resources", "limits"});
    if ((req && !req->empty()) || (lim && !lim->empty())) any = true;
    for (const char* r : {"cpu", "memory"}) {
      const auto* l = lim ? lim->if_contains(r) : nullptr;
      const auto* q = req ? req->if_contains(r) : nullptr;
      if (!l)
        guaranteed = false;
      else if (q && *q != *l)
        guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

bool is_pod(const resource_type& t) {
  return t.group.empty() && t.plural == "pods";
}
bool is_namespace(const resource_type& t) {
  return t.group.empty() && t.plural == "namespaces";
}
bool is_crd(const resource_type& t) {
  return t.group == "apiextensions.k8s.io" && t.plural == "customresourcedefinitions";
}

}  // namespace

operations::operations(resource_registry& registry, object_store& store, clock_fn clock)
    : registry_(registry), store_(store), clock_(std::move(clock)) {}

api_status operations::check_create_allowed(const resource_type& type, std::string_view ns) {
  if (!type.namespaced) return api_ok{};
  auto nso = store_.get("/namespaces", "", ns);
  if (!nso) return not_found("namespaces", "", std::string(ns));
  if (has_deletion_timestamp(nso->object))
    return forbidden(type.plural +
                     " \"\" is forbidden: unable to create new content in namespace " +
                     std::string(ns) + " because it is being terminated");
  return api_ok{};
}

api_status operations::apply_schema_rules(const resource_type& type, json::object& object,
                                          const json::object* old, write_options& options) {
  if (!type.custom || !type.schema) return api_ok{};
  json::value v = std::move(object);
  auto outcome = apply_schema(v, *type.schema);
  object = std::move(v.get_object());
  if (!outcome.unknown_fields.empty()) {
    if (options.field_validation == "Strict") {
      std::string msg = type.kind + " in version \"" + type.version + "\" cannot be handled as a " +
                        type.kind + ": strict decoding error: ";
      for (std::size_t i = 0; i < outcome.unknown_fields.size(); ++i)
        msg += (i ? ", " : "") + std::string("unknown field \"") + outcome.unknown_fields[i] + "\"";
      return bad_request(msg);
    }
    if (options.field_validation != "Ignore")
      for (const auto& f : outcome.unknown_fields)
        options.warnings.push_back("unknown field \"" + f + "\"");
  }
  // Type errors block the CEL rules, as in kube-apiserver: rules would only repeat them.
  bool blocking =
      std::any_of(outcome.causes.begin(), outcome.causes.end(), [](const json::value& c) {
        return string_at(c.get_object(), {"reason"}) == "FieldValueTypeInvalid";
      });
  if (!blocking) {
    json::value old_value = old ? json::value(*old) : json::value(nullptr);
    json::value now_value(object);
    auto rule_causes = evaluate_crd_rules(now_value, old ? &old_value : nullptr, *type.schema);
    for (auto& c : rule_causes) outcome.causes.push_back(std::move(c));
  }
  if (!outcome.causes.empty())
    return invalid(type.kind, type.group, std::string(meta_name(object)),
                   std::move(outcome.causes));
  return api_ok{};
}

std::int64_t operations::class_priority(const json::object& pod_spec) const {
  auto name = string_at(pod_spec, {"priorityClassName"});
  if (name == "system-node-critical") return 2000001000;
  if (name == "system-cluster-critical") return 2000000000;
  if (name.empty()) return 0;
  if (auto pc = store_.get("scheduling.k8s.io/priorityclasses", "", std::string(name)))
    if (const auto* v = pc->object.if_contains("value")) return as_int(*v).value_or(0);
  return 0;
}

void operations::prepare_create(const resource_type& type, json::object& object,
                                const user_info& user) {
  auto& meta = ensure_object(object, "metadata");
  if (is_pod(type)) {
    auto& spec = ensure_object(object, "spec");
    if (!spec.contains("schedulerName")) spec["schedulerName"] = "default-scheduler";
    if (!spec.contains("restartPolicy")) spec["restartPolicy"] = "Always";
    if (!spec.contains("terminationGracePeriodSeconds")) spec["terminationGracePeriodSeconds"] = 30;
    if (!spec.contains("dnsPolicy")) spec["dnsPolicy"] = "ClusterFirst";
    // The Priority admission plugin: priorityClassName gives spec.priority.
    if (!spec.contains("priority")) spec["priority"] = class_priority(spec);
    if (!spec.contains("enableServiceLinks")) spec["enableServiceLinks"] = true;
    // The DefaultTolerationSeconds admission plugin: tolerate not-ready/unreachable for 300 s.
    auto& tol = ensure_array(spec, "tolerations");
    for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
      bool found = std::any_of(tol.begin(), tol.end(), [&](const json::value& t) {
        return t.is_object() && string_at(t.get_object(), {"key"}) == key;
      });
      if (!found)
        tol.push_back(json::object{{"key", key},
                                   {"operator", "Exists"},
                                   {"effect", "NoExecute"},
                                   {"tolerationSeconds", 300}});
    }
    if (auto* cs = spec.if_contains("containers"); cs && cs->is_array()) {
      for (auto& c : cs->get_array()) {
        if (!c.is_object()) continue;
        auto& co = c.get_object();
        if (!co.contains("imagePullPolicy")) {
          auto image = string_at(co, {"image"});
          bool latest = image.find(':') == std::string_view::npos ||
                        image.substr(image.size() >= 7 ? image.size() - 7 : 0) == ":latest";
          co["imagePullPolicy"] = latest ? "Always" : "IfNotPresent";
        }
        if (!co.contains("terminationMessagePath"))
          co["terminationMessagePath"] = "/dev/termination-log";
        if (!co.contains("terminationMessagePolicy")) co["terminationMessagePolicy"] = "File";
        if (!co.contains("resources")) co["resources"] = json::object{};
      }
    }
    object["status"] = json::object{{"phase", "Pending"}, {"qosClass", qos_class(object)}};
  } else if (is_namespace(type)) {
    ensure_object(meta, "labels")["kubernetes.io/metadata.name"] = meta["name"];
    ensure_object(object, "spec")["finalizers"] = json::array{"kubernetes"};
    object["status"] = json::object{{"phase", "Active"}};
  } else if (type.group.empty() && type.plural == "secrets") {
    if (!object.contains("type")) object["type"] = "Opaque";
    if (auto* sd = object.if_contains("stringData"); sd && sd->is_object()) {
      auto& data = ensure_object(object, "data");
      for (const auto& kv : sd->get_object())
        if (kv.value().is_string())
          data[kv.key()] = base64_encode(std::string_view(kv.value().get_string()));
      object.erase("stringData");
    }
  } else if (type.group == "certificates.k8s.io") {
    auto& spec = ensure_object(object, "spec");
    spec["username"] = user.name;
    if (!user.uid.empty()) spec["uid"] = user.uid;
    json::array groups;
    for (const auto& g : user.groups) groups.push_back(json::value(g));
    spec["groups"] = std::move(groups);
    object["status"] = json::object{};
  } else if (is_crd(type)) {
    auto& spec = ensure_object(object, "spec");
    auto& names = ensure_object(spec, "names");
    std::string kind(string_at(names, {"kind"}));
    if (!names.contains("singular")) {
      std::string s = kind;
      std::transform(s.begin(), s.end(), s.begin(), ::tolower);
      names["singular"] = s;
    }
    if (!names.contains("listKind")) names["listKind"] = kind + "List";
  } else if (type.group == "policy" && type.plural == "poddisruptionbudgets") {
    object["status"] = json::object{{"disruptionsAllowed", 0},
                                    {"currentHealthy", 0},
                                    {"desiredHealthy", 0},
                                    {"expectedPods", 0}};
  } else if (type.custom && type.has_status) {
    object.erase("status");  // the status subresource owns it
  }
}

api_status operations::validate(const resource_type& type, const json::object& object,
                                const object_ptr& old) {
  json::array causes;
  std::string name(meta_name(object));
  const auto* meta = object_at(object, {"metadata"});
  if (meta) {
    for (const char* field : {"labels", "annotations"}) {
      const auto* m = meta->if_contains(field);
      if (!m || m->is_null()) continue;
      if (!m->is_object()) {
        causes.push_back(field_cause("FieldValueInvalid", std::string("metadata.") + field,
                                     "Invalid value: must be a map of strings"));
        continue;
      }
      for (const auto& kv : m->get_object()) {
        if (!kv.value().is_string()) {
          causes.push_back(field_cause(
              "FieldValueInvalid", std::string("metadata.") + field + "." + std::string(kv.key()),
              "Invalid value: must be a string"));
        } else if (std::string_view(field) == "labels" &&
                   !valid_label_value(std::string_view(kv.value().get_string()))) {
          causes.push_back(field_cause(
              "FieldValueInvalid", "metadata.labels",
              "Invalid value: \"" + std::string(kv.value().get_string()) +
                  "\": a valid label must be an empty string or consist of alphanumeric "
                  "characters, '-', '_' or '.', and must start and end with an alphanumeric "
                  "character"));
        }
      }
    }
    if (const auto* f = meta->if_contains("finalizers"); f && !f->is_null() && !f->is_array())
      causes.push_back(field_cause("FieldValueInvalid", "metadata.finalizers",
                                   "Invalid value: must be a list of strings"));
  }
  if (old && has_deletion_timestamp(old->object)) {
    auto before = finalizers_of(old->object);
    for (const auto& f : finalizers_of(object))
      if (std::find(before.begin(), before.end(), f) == before.end())
        causes.push_back(field_cause("FieldValueForbidden", "metadata.finalizers",
                                     "Forbidden: no new finalizers can be added if the object is "
                                     "being deleted, found new finalizers []string{\"" +
                                         f + "\"}"));
  }
  if (is_pod(type) && !old) {
    const auto* cs = array_at(object, {"spec", "containers"});
    if (!cs || cs->empty()) {
      causes.push_back(field_cause("FieldValueRequired", "spec.containers", "Required value"));
    } else {
      for (std::size_t i = 0; i < cs->size(); ++i) {
        const auto* c = (*cs)[i].if_object();
        std::string base = "spec.containers[" + std::to_string(i) + "]";
        if (!c || string_at(*c, {"name"}).empty())
          causes.push_back(field_cause("FieldValueRequired", base + ".name", "Required value"));
        if (!c || string_at(*c, {"image"}).empty())
          causes.push_back(field_cause("FieldValueRequired", base + ".image", "Required value"));
      }
    }
  }
  if (is_crd(type)) {
    const auto* spec = object_at(object, {"spec"});
    std::string group = spec ? std::string(string_at(*spec, {"group"})) : "";
    std::string plural = spec ? std::string(string_at(*spec, {"names", "plural"})) : "";
    if (group.empty())
      causes.push_back(field_cause("FieldValueRequired", "spec.group", "Required value"));
    if (plural.empty())
      causes.push_back(field_cause("FieldValueRequired", "spec.names.plural", "Required value"));
    if (!spec || string_at(*spec, {"names", "kind"}).empty())
      causes.push_back(field_cause("FieldValueRequired", "spec.names.kind", "Required value"));
    auto scope = spec ? string_at(*spec, {"scope"}) : "";
    if (scope != "Namespaced" && scope != "Cluster")
      causes.push_back(field_cause("FieldValueNotSupported", "spec.scope",
                                   "Unsupported value: \"" + std::string(scope) +
                                       "\": supported values: \"Cluster\", \"Namespaced\""));
    const auto* versions = spec ? array_at(*spec, {"versions"}) : nullptr;
    if (!versions || versions->empty())
      causes.push_back(field_cause("FieldValueRequired", "spec.versions", "Required value"));
    if (!group.empty() && !plural.empty() && name != plural + "." + group)
      causes.push_back(field_cause(
          "FieldValueInvalid", "metadata.name",
          "Invalid value: \"" + name + "\": must be spec.names.plural+\".\"+spec.group"));
    for (auto& c : check_crd_rules(object)) causes.push_back(std::move(c));
    for (auto& c : check_structural_junctors(object)) causes.push_back(std::move(c));
  }
  if (type.group == "certificates.k8s.io" && !old) {
    auto req = string_at(object, {"spec", "request"});
    if (req.empty())
      causes.push_back(field_cause("FieldValueRequired", "spec.request", "Required value"));
    else if (!base64_decode(req))
      causes.push_back(
          field_cause("FieldValueInvalid", "spec.request", "Invalid value: not base64"));
    if (string_at(object, {"spec", "signerName"}).empty())
      causes.push_back(field_cause("FieldValueRequired", "spec.signerName", "Required value"));
  }
  if (!causes.empty()) return invalid(type.kind, type.group, name, std::move(causes));
  return api_ok{};
}

api_result<object_ptr> operations::create(const resource_type& type, std::string_view ns,
                                          json::object object, const user_info& user,
                                          write_options& options) {
  auto av = string_at(object, {"apiVersion"});
  auto kind = string_at(object, {"kind"});
  if (!av.empty() && av != type.api_version())
    return bad_request("the API version in the data (" + std::string(av) +
                       ") does not match the expected API version (" + type.api_version() + ")");
  if (!kind.empty() && kind != type.kind)
    return bad_request("the kind in the data (" + std::string(kind) +
                       ") does not match the expected kind (" + type.kind + ")");
  object["apiVersion"] = type.api_version();
  object["kind"] = type.kind;
  auto& meta = ensure_object(object, "metadata");
  std::string body_ns(string_at(object, {"metadata", "namespace"}));
  if (type.namespaced) {
    if (!body_ns.empty() && body_ns != ns)
      return bad_request(
          "the namespace of the provided object does not match the namespace sent on the request");
    meta["namespace"] = ns;
  } else {
    meta.erase("namespace");
  }
  std::string name(string_at(object, {"metadata", "name"}));
  if (name.empty()) {
    std::string prefix(string_at(object, {"metadata", "generateName"}));
    if (prefix.empty())
      return invalid(type.kind, type.group, "",
                     json::array{field_cause("FieldValueRequired", "metadata.name",
                                             "Required value: name or generateName is required")});
    for (int attempt = 0; attempt < 8; ++attempt) {
      name = prefix + random_suffix();
      if (!store_.get(type.storage_key(), ns, name)) break;
    }
    meta["name"] = name;
  }
  if (!valid_subdomain(name))
    return invalid(type.kind, type.group, name,
                   json::array{field_cause(
                       "FieldValueInvalid", "metadata.name",
                       "Invalid value: \"" + name +
                           "\": a lowercase RFC 1123 subdomain must consist of lower case "
                           "alphanumeric characters, '-' or '.', and must start and end with an "
                           "alphanumeric character")});
  if (auto s = check_create_allowed(type, ns); !s) return s.error();
  if (store_.get(type.storage_key(), type.namespaced ? ns : "", name))
    return already_exists(type.plural, type.group, name);
  if (auto s = apply_schema_rules(type, object, nullptr, options); !s) return s.error();
  if (!type.custom) {
    if (auto s = normalize_time_fields(object, type.kind, type.version); !s) return s.error();
  }
  prepare_create(type, object, user);
  apply_workload_defaults(type, object);
  if (auto s = validate(type, object, nullptr); !s) return s.error();
  auto& m = ensure_object(object, "metadata");
  m["uid"] = make_uid();
  m["creationTimestamp"] = format_time(now());
  m["generation"] = 1;
  m.erase("resourceVersion");
  m.erase("deletionTimestamp");
  m.erase("deletionGracePeriodSeconds");
  if (is_crd(type) && !options.dry_run) {
    auto& st = ensure_object(object, "status");
    auto t = format_time(now());
    st["conditions"] = json::array{json::object{{"type", "NamesAccepted"},
                                                {"status", "True"},
                                                {"reason", "NoConflicts"},
                                                {"message", "no conflicts found"},
                                                {"lastTransitionTime", t}},
                                   json::object{{"type", "Established"},
                                                {"status", "True"},
                                                {"reason", "InitialNamesAccepted"},
                                                {"message", "the initial names have been accepted"},
                                                {"lastTransitionTime", t}}};
    st["acceptedNames"] = *find_path(object, {"spec", "names"});
    json::array stored;
    if (const auto* vs = array_at(object, {"spec", "versions"}))
      for (const auto& v : *vs)
        if (v.is_object() && find_path(v.get_object(), {"storage"}) &&
            v.get_object().at("storage") == json::value(true))
          stored.push_back(v.get_object().at("name"));
    st["storedVersions"] = std::move(stored);
    registry_.register_crd(object);
  }
  if (options.dry_run) return make_stored(std::move(object));
  auto stored = store_.put(type.storage_key(), std::move(object));
  if (on_change) on_change();
  return stored;
}

api_result<object_ptr> operations::commit(const resource_type& type, const object_ptr& old,
                                          json::object next, bool dry_run) {
  auto& meta = ensure_object(next, "metadata");
  meta["resourceVersion"] = old->object.at("metadata").as_object().at("resourceVersion");
  bool deleting = has_deletion_timestamp(next);
  if (deleting && finalizers_of(next).empty()) {
    bool pod_waiting = false;
    if (is_pod(type)) {
      const auto* g = find_path(next, {"metadata", "deletionGracePeriodSeconds"});
      pod_waiting = g && as_int(*g).value_or(0) > 0;
    }
    if (!pod_waiting && !is_namespace(type)) {
      if (dry_run) return make_stored(std::move(next));
      auto last = store_.erase(type.storage_key(), meta_namespace(next), meta_name(next));
      after_removal(type, next);
      if (on_change) on_change();
      return last;
    }
  }
  if (next == old->object) return old;  // a no-op write changes nothing, as the API server does
  if (dry_run) return make_stored(std::move(next));
  if (is_crd(type)) registry_.register_crd(next);
  auto stored = store_.put(type.storage_key(), std::move(next));
  if (on_change) on_change();
  return stored;
}

api_result<object_ptr> operations::update(const resource_type& type, std::string_view ns,
                                          std::string_view name, json::object object,
                                          write_scope scope, write_options& options) {
  auto old = store_.get(type.storage_key(), type.namespaced ? ns : "", name);
  if (!old) return not_found(type.plural, type.group, std::string(name));
  auto body_name = string_at(object, {"metadata", "name"});
  if (!body_name.empty() && body_name != name)
    return bad_request("the name of the object (" + std::string(body_name) +
                       ") does not match the name on the URL (" + std::string(name) + ")");
  auto av = string_at(object, {"apiVersion"});
  if (!av.empty() && av != type.api_version())
    return bad_request("the API version in the data (" + std::string(av) +
                       ") does not match the expected API version (" + type.api_version() + ")");
  std::string rv(string_at(object, {"metadata", "resourceVersion"}));
  const auto& old_meta = old->object.at("metadata").as_object();
  if (rv.empty() && type.custom && scope != write_scope::all)
    return invalid(type.kind, type.group, std::string(name),
                   json::array{field_cause("FieldValueInvalid", "metadata.resourceVersion",
                                           "Invalid value: 0x0: must be specified for an update")});
  if (!rv.empty() && rv != old_meta.at("resourceVersion").as_string())
    return stale_conflict(type.plural, type.group, std::string(name));

  json::object next;
  if (scope == write_scope::status) {
    next = old->object;
    if (auto* st = object.if_contains("status"))
      next["status"] = *st;
    else
      next.erase("status");
  } else {
    next = std::move(object);
    next["apiVersion"] = type.api_version();
    next["kind"] = type.kind;
    if (scope == write_scope::main && type.has_status) {
      if (const auto* st = old->object.if_contains("status"))
        next["status"] = *st;
      else
        next.erase("status");
    }
    if (auto s = apply_schema_rules(type, next, &old->object, options); !s) return s.error();
    // Before taking `meta`: defaulting may add "spec", which can move next's members.
    apply_workload_defaults(type, next);
    auto& meta = ensure_object(next, "metadata");
    // Identity and lifecycle fields are the server's.
    for (const char* k : {"uid", "creationTimestamp", "deletionTimestamp",
                          "deletionGracePeriodSeconds", "generation"}) {
      if (const auto* v = old_meta.if_contains(k))
        meta[k] = *v;
      else
        meta.erase(k);
    }
    meta["name"] = old_meta.at("name");
    if (type.namespaced) meta["namespace"] = old_meta.at("namespace");
    if (spec_changed(old->object, next)) {
      auto gen =
          as_int(old_meta.contains("generation") ? old_meta.at("generation") : json::value(0));
      meta["generation"] = gen.value_or(0) + 1;
    }
  }
  if (type.custom && type.schema && scope == write_scope::status) {
    if (auto s = apply_schema_rules(type, next, &old->object, options); !s) return s.error();
  }
  if (!type.custom) {
    if (auto s = normalize_time_fields(next, type.kind, type.version); !s) return s.error();
  }
  if (auto s = validate(type, next, old); !s) return s.error();
  return commit(type, old, std::move(next), options.dry_run);
}

api_result<object_ptr> operations::patch(const resource_type& type, std::string_view ns,
                                         std::string_view name, write_scope scope,
                                         std::string_view content_type, const json::value& body,
                                         const user_info& user, write_options& options,
                                         bool force) {
  (void)force;
  bool apply = content_type == "application/apply-patch+yaml" ||
               content_type == "application/apply-patch+json";
  auto old = store_.get(type.storage_key(), type.namespaced ? ns : "", name);
  if (apply && options.field_manager.empty())
    return bad_request("PATCH requests with an apply patch require a fieldManager");
  if (!old) {
    if (!apply || scope != write_scope::main)
      return not_found(type.plural, type.group, std::string(name));
    if (!body.is_object()) return bad_request("the apply patch must be a JSON object");
    json::object obj = body.get_object();
    ensure_object(obj, "metadata")["name"] = name;
    return create(type, ns, std::move(obj), user, options);
  }
  json::value doc = old->object;
  // A resourceVersion inside the patch is a precondition.
  std::string precondition_rv;
  if (body.is_object())
    precondition_rv = std::string(string_at(body.get_object(), {"metadata", "resourceVersion"}));
  if (content_type == "application/merge-patch+json" || content_type == "application/json") {
    if (!body.is_object()) return bad_request("the merge patch must be a JSON object");
    apply_merge_patch(doc, body);
  } else if (content_type == "application/json-patch+json") {
    if (auto s = apply_json_patch(doc, body); !s) {
      auto e = s.error();
      if (e.code == 422) {
        e.name = std::string(name);
        e.kind = type.plural;
        e.group = type.group;
      }
      return e;
    }
  } else if (content_type == "application/strategic-merge-patch+json") {
    if (type.custom) return unsupported_media_type(std::string(content_type));
    if (auto s = apply_strategic_merge_patch(doc, body); !s) return s.error();
  } else if (apply) {
    if (!body.is_object()) return bad_request("the apply patch must be a JSON object");
    if (type.custom)
      apply_merge_patch(doc, body);
    else if (auto s = apply_strategic_merge_patch(doc, body); !s)
      return s.error();
  } else {
    return unsupported_media_type(std::string(content_type));
  }
  if (!doc.is_object()) return bad_request("the patch turned the object into a non-object");
  auto& meta = ensure_object(doc.get_object(), "metadata");
  meta["resourceVersion"] = precondition_rv.empty()
                                ? old->object.at("metadata").as_object().at("resourceVersion")
                                : json::value(precondition_rv);
  return update(type, ns, name, std::move(doc.get_object()), scope, options);
}

api_result<delete_outcome> operations::remove(const resource_type& type, std::string_view ns,
                                              std::string_view name, const delete_options& opts) {
  auto old = store_.get(type.storage_key(), type.namespaced ? ns : "", name);
  if (!old) return not_found(type.plural, type.group, std::string(name));
  const auto& o = old->object;
  if (!opts.precondition_uid.empty() && opts.precondition_uid != meta_uid(o))
    return conflict(type.plural, type.group, std::string(name),
                    "Precondition failed: UID in precondition: " + opts.precondition_uid +
                        ", UID in object meta: " + std::string(meta_uid(o)));
  if (!opts.precondition_rv.empty() &&
      opts.precondition_rv != string_at(o, {"metadata", "resourceVersion"}))
    return conflict(type.plural, type.group, std::string(name),
                    "Precondition failed: ResourceVersion in precondition: " +
                        opts.precondition_rv + ", ResourceVersion in object meta: " +
                        std::string(string_at(o, {"metadata", "resourceVersion"})));
  if (is_namespace(type) && (name == "default" || name == "kube-system" || name == "kube-public"))
    return forbidden("namespaces \"" + std::string(name) +
                     "\" is forbidden: this namespace may not be deleted");

  json::object next = o;
  auto& meta = ensure_object(next, "metadata");
  auto finalizers = finalizers_of(o);
  auto add_finalizer = [&](const char* f) {
    if (std::find(finalizers.begin(), finalizers.end(), f) != finalizers.end()) return;
    finalizers.emplace_back(f);
    ensure_array(meta, "finalizers").push_back(json::value(f));
  };
  auto now_t = now();
  if (is_pod(type)) {
    std::int64_t grace = 30;
    if (const auto* g = find_path(o, {"spec", "terminationGracePeriodSeconds"}))
      grace = as_int(*g).value_or(30);
    if (opts.grace_period_seconds) grace = *opts.grace_period_seconds;
    if (string_at(o, {"spec", "nodeName"}).empty() || is_pod_terminal(o)) grace = 0;
    if (grace < 0) grace = 0;
    std::optional<std::int64_t> existing_grace;
    if (const auto* e = find_path(o, {"metadata", "deletionGracePeriodSeconds"}))
      existing_grace = as_int(*e);
    if (existing_grace) grace = std::min(grace, *existing_grace);
    if (grace > 0 || !finalizers.empty()) {
      if (!has_deletion_timestamp(o) || !existing_grace || grace < *existing_grace) {
        meta["deletionTimestamp"] = format_time(now_t + std::chrono::seconds(grace));
      }
      meta["deletionGracePeriodSeconds"] = grace;
      auto r = commit(type, old, std::move(next), opts.dry_run);
      if (!r) return r.error();
      return delete_outcome{r.value(), false};
    }
  } else {
    if (opts.propagation == "Foreground") add_finalizer("foregroundDeletion");
    if (opts.propagation == "Orphan") add_finalizer("orphan");
    if (!finalizers.empty() || is_namespace(type)) {
      if (!has_deletion_timestamp(o)) {
        meta["deletionTimestamp"] = format_time(now_t);
        meta["deletionGracePeriodSeconds"] = 0;
      }
      if (is_namespace(type)) ensure_object(next, "status")["phase"] = "Terminating";
      auto r = commit(type, old, std::move(next), opts.dry_run);
      if (!r) return r.error();
      return delete_outcome{r.value(), false};
    }
  }
  if (opts.dry_run) return delete_outcome{old, true};
  auto last = store_.erase(type.storage_key(), type.namespaced ? ns : "", name);
  after_removal(type, last->object);
  if (on_change) on_change();
  return delete_outcome{last, true};
}

void operations::after_removal(const resource_type& type, const json::object& last) {
  if (!is_crd(type)) return;
  std::string group(string_at(last, {"spec", "group"}));
  std::string plural(string_at(last, {"spec", "names", "plural"}));
  registry_.unregister_crd(last);
  std::string key = group + "/" + plural;
  std::vector<std::pair<std::string, std::string>> doomed;
  if (const auto* c = store_.objects(key))
    for (const auto& [k, obj] : *c)
      doomed.emplace_back(std::string(meta_namespace(obj->object)),
                          std::string(meta_name(obj->object)));
  for (const auto& [ns, n] : doomed) store_.erase(key, ns, n);
}

object_ptr operations::write(const resource_type& type, json::object object) {
  auto old = store_.get(type.storage_key(), meta_namespace(object), meta_name(object));
  if (!old) {
    auto stored = store_.put(type.storage_key(), std::move(object));
    if (on_change) on_change();
    return stored;
  }
  auto r = commit(type, old, std::move(object), false);
  return r ? r.value() : old;
}

}  // namespace kp::sim::kube
