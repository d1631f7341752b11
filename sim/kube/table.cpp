#include "sim/kube/table.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>

#include "sim/kube/json_util.hpp"
#include "sim/kube/scale.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

std::string human_age(std::chrono::system_clock::duration d) {
  auto s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  if (s < 0) s = 0;
  auto m = s / 60, h = s / 3600, days = s / 86400;
  if (s < 120) return std::to_string(s) + "s";
  if (m < 10) return std::to_string(m) + "m" + (s % 60 ? std::to_string(s % 60) + "s" : "");
  if (m < 180) return std::to_string(m) + "m";
  if (h < 8) return std::to_string(h) + "h" + (m % 60 ? std::to_string(m % 60) + "m" : "");
  if (h < 48) return std::to_string(h) + "h";
  if (days < 8) return std::to_string(days) + "d" + (h % 24 ? std::to_string(h % 24) + "h" : "");
  return std::to_string(days) + "d";
}

const json::value* eval_json_path(const json::value& root, const std::string& path) {
  const json::value* cur = &root;
  std::size_t i = 0;
  if (!path.empty() && path[0] == '{') return nullptr;
  while (i < path.size() && cur) {
    if (path[i] == '.') {
      ++i;
      std::size_t end = i;
      while (end < path.size() && path[end] != '.' && path[end] != '[') ++end;
      std::string key = path.substr(i, end - i);
      const auto* o = cur->if_object();
      cur = o ? o->if_contains(key) : nullptr;
      i = end;
    } else if (path[i] == '[') {
      auto close = path.find(']', i);
      if (close == std::string::npos) return nullptr;
      std::string inner = path.substr(i + 1, close - i - 1);
      const auto* a = cur->if_array();
      if (!a) return nullptr;
      if (inner.rfind("?(@.", 0) == 0) {
        auto eq = inner.find("==");
        if (eq == std::string::npos) return nullptr;
        std::string key = inner.substr(4, eq - 4);
        std::string val = inner.substr(eq + 2);
        if (!val.empty() && val.back() == ')') val.pop_back();
        if (val.size() >= 2 && (val[0] == '"' || val[0] == '\''))
          val = val.substr(1, val.size() - 2);
        const json::value* found = nullptr;
        for (const auto& e : *a) {
          const auto* eo = e.if_object();
          if (eo && string_at(*eo, {key}) == val) {
            found = &e;
            break;
          }
        }
        cur = found;
      } else {
        auto idx = parse_uint64(inner);
        if (!idx) return nullptr;
        cur = *idx < a->size() ? &(*a)[static_cast<std::size_t>(*idx)] : nullptr;
      }
      i = close + 1;
    } else {
      return nullptr;
    }
  }
  return cur;
}

namespace {

json::object column(const std::string& name, const std::string& type, int priority = 0,
                    const std::string& format = "") {
  return json::object{{"name", name},
                      {"type", type},
                      {"format", format},
                      {"description", ""},
                      {"priority", priority}};
}

std::string age_of(const json::object& o, std::chrono::system_clock::time_point now) {
  auto created = parse_time(string_at(o, {"metadata", "creationTimestamp"}));
  return created ? human_age(now - *created) : "<unknown>";
}

std::string condition_status(const json::object& o, std::string_view type) {
  if (const auto* cs = array_at(o, {"status", "conditions"}))
    for (const auto& c : *cs)
      if (c.is_object() && string_at(c.get_object(), {"type"}) == type)
        return std::string(string_at(c.get_object(), {"status"}));
  return {};
}

json::value cell_value(const json::value* v, const std::string& type,
                       std::chrono::system_clock::time_point now) {
  if (!v || v->is_null()) return json::value(nullptr);
  if (type == "date" && v->is_string()) {
    auto t = parse_time(std::string_view(v->get_string()));
    return t ? json::value(human_age(now - *t)) : *v;
  }
  if (v->is_string() || v->is_number() || v->is_bool()) return *v;
  return json::value(json::serialize(*v));
}

std::int64_t count_at(const json::object& o, std::initializer_list<std::string_view> path,
                      std::int64_t fallback = 0) {
  const auto* v = find_path(o, path);
  return v ? as_int(*v).value_or(fallback) : fallback;
}

std::string ratio(std::int64_t a, std::int64_t b) {
  return std::to_string(a) + "/" + std::to_string(b);
}

// The workload kinds kubectl's printers give their own columns.
enum class workload { none, deployment, replica_set, stateful_set, daemon_set, job };

workload workload_of(const resource_type& type) {
  if (type.custom) return workload::none;
  if (type.group == "apps") {
    if (type.plural == "deployments") return workload::deployment;
    if (type.plural == "replicasets") return workload::replica_set;
    if (type.plural == "statefulsets") return workload::stateful_set;
    if (type.plural == "daemonsets") return workload::daemon_set;
  }
  if (type.group == "batch" && type.plural == "jobs") return workload::job;
  return workload::none;
}

void workload_columns(workload w, json::array& columns) {
  auto add = [&](const char* name, const char* type, int priority = 0) {
    columns.push_back(column(name, type, priority));
  };
  switch (w) {
    case workload::deployment:
      add("Ready", "string"), add("Up-to-date", "integer"), add("Available", "integer");
      break;
    case workload::replica_set:
      add("Desired", "integer"), add("Current", "integer"), add("Ready", "integer");
      break;
    case workload::stateful_set:
      add("Ready", "string");
      break;
    case workload::daemon_set:
      add("Desired", "integer"), add("Current", "integer"), add("Ready", "integer");
      add("Up-to-date", "integer"), add("Available", "integer"), add("Node Selector", "string");
      break;
    case workload::job:
      add("Status", "string"), add("Completions", "string"), add("Duration", "string");
      break;
    case workload::none:
      return;
  }
  add("Age", "string");
  add("Containers", "string", 1), add("Images", "string", 1);
  if (w != workload::stateful_set) add("Selector", "string", 1);
}

// A Job's STATUS column: its finished condition first, then what is under way.
std::string job_status(const json::object& job) {
  if (condition_status(job, "Complete") == "True") return "Complete";
  if (condition_status(job, "Failed") == "True") return "Failed";
  if (has_deletion_timestamp(job)) return "Terminating";
  if (condition_status(job, "SuccessCriteriaMet") == "True") return "SuccessCriteriaMet";
  if (condition_status(job, "FailureTarget") == "True") return "FailureTarget";
  const auto* suspend = find_path(job, {"spec", "suspend"});
  if (suspend && suspend->is_bool() && suspend->get_bool()) return "Suspended";
  return "Running";
}

void workload_cells(workload w, const json::object& o, std::chrono::system_clock::time_point now,
                    json::array& cells) {
  auto replicas = count_at(o, {"spec", "replicas"}, 1);
  auto status = [&](const char* field) { return count_at(o, {"status", field}); };
  switch (w) {
    case workload::deployment:
      cells.push_back(json::value(ratio(status("readyReplicas"), replicas)));
      cells.push_back(json::value(status("updatedReplicas")));
      cells.push_back(json::value(status("availableReplicas")));
      break;
    case workload::replica_set:
      cells.push_back(json::value(replicas));
      cells.push_back(json::value(status("replicas")));
      cells.push_back(json::value(status("readyReplicas")));
      break;
    case workload::stateful_set:
      cells.push_back(json::value(ratio(status("readyReplicas"), replicas)));
      break;
    case workload::daemon_set: {
      for (const char* f : {"desiredNumberScheduled", "currentNumberScheduled", "numberReady",
                            "updatedNumberScheduled", "numberAvailable"})
        cells.push_back(json::value(status(f)));
      std::vector<std::string> pairs;
      if (const auto* sel = object_at(o, {"spec", "template", "spec", "nodeSelector"}))
        for (const auto& kv : *sel)
          if (kv.value().is_string())
            pairs.push_back(std::string(kv.key()) + "=" + std::string(kv.value().get_string()));
      std::sort(pairs.begin(), pairs.end());
      std::string text;
      for (const auto& p : pairs) text += (text.empty() ? "" : ",") + p;
      cells.push_back(json::value(text.empty() ? "<none>" : text));
      break;
    }
    case workload::job: {
      cells.push_back(json::value(job_status(o)));
      const auto* completions = find_path(o, {"spec", "completions"});
      auto succeeded = status("succeeded");
      auto parallelism = count_at(o, {"spec", "parallelism"}, 0);
      if (completions && !completions->is_null())
        cells.push_back(json::value(ratio(succeeded, as_int(*completions).value_or(0))));
      else if (parallelism > 1)
        cells.push_back(json::value(ratio(succeeded, 1) + " of " + std::to_string(parallelism)));
      else
        cells.push_back(json::value(ratio(succeeded, 1)));
      auto started = parse_time(string_at(o, {"status", "startTime"}));
      auto completed = parse_time(string_at(o, {"status", "completionTime"}));
      cells.push_back(json::value(!started    ? std::string()
                                  : completed ? human_age(*completed - *started)
                                              : human_age(now - *started)));
      break;
    }
    case workload::none:
      return;
  }
  cells.push_back(json::value(age_of(o, now)));
  std::string names, images;
  if (const auto* cs = array_at(o, {"spec", "template", "spec", "containers"}))
    for (const auto& c : *cs)
      if (const auto* co = c.if_object()) {
        names += (names.empty() ? "" : ",") + std::string(string_at(*co, {"name"}));
        images += (images.empty() ? "" : ",") + std::string(string_at(*co, {"image"}));
      }
  cells.push_back(json::value(names));
  cells.push_back(json::value(images));
  if (w != workload::stateful_set) {
    auto selector = selector_text(object_at(o, {"spec", "selector"}));
    cells.push_back(json::value(selector.empty() ? "<none>" : selector));
  }
}

}  // namespace

json::object make_table(const resource_type& type, const std::vector<object_ptr>& objects,
                        std::chrono::system_clock::time_point now,
                        const std::string& resource_version, const std::string& continue_token) {
  json::array columns;
  columns.push_back(column("Name", "string", 0, "name"));
  bool pods = type.group.empty() && type.plural == "pods";
  bool nodes = type.group.empty() && type.plural == "nodes";
  bool namespaces = type.group.empty() && type.plural == "namespaces";
  bool pdbs = type.group == "policy" && type.plural == "poddisruptionbudgets";
  auto kind = workload_of(type);
  if (kind != workload::none) {
    workload_columns(kind, columns);
  } else if (pdbs) {
    columns.push_back(column("Min Available", "string"));
    columns.push_back(column("Max Unavailable", "string"));
    columns.push_back(column("Allowed Disruptions", "integer"));
    columns.push_back(column("Age", "string"));
  } else if (pods) {
    columns.push_back(column("Ready", "string"));
    columns.push_back(column("Status", "string"));
    columns.push_back(column("Restarts", "string"));
    columns.push_back(column("Age", "string"));
    columns.push_back(column("IP", "string", 1));
    columns.push_back(column("Node", "string", 1));
  } else if (nodes) {
    columns.push_back(column("Status", "string"));
    columns.push_back(column("Roles", "string"));
    columns.push_back(column("Age", "string"));
    columns.push_back(column("Version", "string"));
    columns.push_back(column("Internal-IP", "string", 1));
  } else if (namespaces) {
    columns.push_back(column("Status", "string"));
    columns.push_back(column("Age", "string"));
  } else if (!type.columns.empty()) {
    for (const auto& c : type.columns) columns.push_back(column(c.name, c.type, c.priority));
    bool has_age = false;
    for (const auto& c : type.columns) has_age |= c.name == "Age";
    if (!has_age) columns.push_back(column("Age", "date"));
  } else {
    columns.push_back(column("Age", "string"));
  }
  json::array rows;
  for (const auto& p : objects) {
    const auto& o = p->object;
    json::array cells;
    cells.push_back(json::value(meta_name(o)));
    if (kind != workload::none) {
      workload_cells(kind, o, now, cells);
    } else if (pdbs) {
      for (const char* f : {"minAvailable", "maxUnavailable"}) {
        const auto* v = find_path(o, {"spec", f});
        cells.push_back(v ? (v->is_string() ? *v : json::value(json::serialize(*v)))
                          : json::value("N/A"));
      }
      const auto* allowed = find_path(o, {"status", "disruptionsAllowed"});
      cells.push_back(allowed ? *allowed : json::value(0));
      cells.push_back(json::value(age_of(o, now)));
    } else if (pods) {
      std::size_t total = 0, ready = 0;
      if (const auto* cs = array_at(o, {"spec", "containers"})) total = cs->size();
      if (const auto* st = array_at(o, {"status", "containerStatuses"}))
        for (const auto& s : *st)
          if (s.is_object() && find_path(s.get_object(), {"ready"}) &&
              s.get_object().at("ready") == json::value(true))
            ++ready;
      cells.push_back(json::value(std::to_string(ready) + "/" + std::to_string(total)));
      std::string phase(string_at(o, {"status", "phase"}));
      if (has_deletion_timestamp(o)) phase = "Terminating";
      cells.push_back(json::value(phase));
      cells.push_back(json::value("0"));
      cells.push_back(json::value(age_of(o, now)));
      auto ip = string_at(o, {"status", "podIP"});
      auto node = string_at(o, {"spec", "nodeName"});
      cells.push_back(json::value(ip.empty() ? "<none>" : ip));
      cells.push_back(json::value(node.empty() ? "<none>" : node));
    } else if (nodes) {
      auto ready = condition_status(o, "Ready");
      std::string status = ready == "True" ? "Ready" : ready.empty() ? "Unknown" : "NotReady";
      const auto* u = find_path(o, {"spec", "unschedulable"});
      if (u && u->is_bool() && u->get_bool()) status += ",SchedulingDisabled";
      cells.push_back(json::value(status));
      std::string roles;
      if (const auto* labels = object_at(o, {"metadata", "labels"}))
        for (const auto& kv : *labels)
          if (kv.key().starts_with("node-role.kubernetes.io/"))
            roles += (roles.empty() ? "" : ",") + std::string(kv.key().substr(24));
      cells.push_back(json::value(roles.empty() ? "<none>" : roles));
      cells.push_back(json::value(age_of(o, now)));
      auto ver = string_at(o, {"status", "nodeInfo", "kubeletVersion"});
      cells.push_back(json::value(ver.empty() ? "" : ver));
      std::string ip = "<none>";
      if (const auto* as = array_at(o, {"status", "addresses"}))
        for (const auto& a : *as)
          if (a.is_object() && string_at(a.get_object(), {"type"}) == "InternalIP")
            ip = std::string(string_at(a.get_object(), {"address"}));
      cells.push_back(json::value(ip));
    } else if (namespaces) {
      cells.push_back(json::value(string_at(o, {"status", "phase"})));
      cells.push_back(json::value(age_of(o, now)));
    } else if (!type.columns.empty()) {
      json::value whole = o;
      bool has_age = false;
      for (const auto& c : type.columns) {
        has_age |= c.name == "Age";
        cells.push_back(cell_value(eval_json_path(whole, c.json_path), c.type, now));
      }
      if (!has_age) cells.push_back(json::value(age_of(o, now)));
    } else {
      cells.push_back(json::value(age_of(o, now)));
    }
    json::object partial{{"kind", "PartialObjectMetadata"},
                         {"apiVersion", "meta.k8s.io/v1"},
                         {"metadata", o.contains("metadata") ? o.at("metadata") : json::object{}}};
    rows.push_back(json::object{{"cells", cells}, {"object", partial}});
  }
  json::object meta{{"resourceVersion", resource_version}};
  if (!continue_token.empty()) meta["continue"] = continue_token;
  return json::object{{"kind", "Table"},
                      {"apiVersion", "meta.k8s.io/v1"},
                      {"metadata", meta},
                      {"columnDefinitions", columns},
                      {"rows", rows}};
}

}  // namespace kp::sim::kube
