#include "sim/kube/table.hpp"

#include <boost/json/serialize.hpp>

#include "sim/kube/json_util.hpp"

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
  if (pdbs) {
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
    if (pdbs) {
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
