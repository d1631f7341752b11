#include "sim/kube/discovery.hpp"

#include <functional>

namespace kp::sim::kube {
namespace json = boost::json;

namespace {
json::array strings(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.push_back(json::value(s));
  return a;
}
json::array all_verbs() {
  return json::array{"create", "delete", "deletecollection", "get",
                     "list",   "patch",  "update",           "watch"};
}
std::string gv_path(const std::string& group, const std::string& version) {
  return group.empty() ? "api/" + version : "apis/" + group + "/" + version;
}
std::string registry_hash(const resource_registry& registry) {
  std::string all;
  for (const auto& t : registry.all()) all += t->api_version() + "/" + t->plural + ";";
  return std::to_string(std::hash<std::string>{}(all));
}
}  // namespace

json::object version_document() {
  return json::object{{"major", "1"},
                      {"minor", "32"},
                      {"gitVersion", "v1.32.4-kube-sim"},
                      {"gitCommit", "0000000000000000000000000000000000000000"},
                      {"gitTreeState", "clean"},
                      {"buildDate", "2025-04-22T00:00:00Z"},
                      {"goVersion", "go1.23.6"},
                      {"compiler", "gc"},
                      {"platform", "linux/amd64"}};
}

json::object core_versions_document() {
  return json::object{{"kind", "APIVersions"},
                      {"versions", json::array{"v1"}},
                      {"serverAddressByClientCIDRs",
                       json::array{json::object{{"clientCIDR", "0.0.0.0/0"},
                                                {"serverAddress", "127.0.0.1:6443"}}}}};
}

json::object group_list_document(const resource_registry& registry) {
  json::array groups;
  for (const auto& [group, versions] : registry.groups()) {
    if (group.empty()) continue;
    json::array vs;
    for (const auto& v : versions)
      vs.push_back(json::object{{"groupVersion", group + "/" + v}, {"version", v}});
    groups.push_back(json::object{
        {"name", group},
        {"versions", vs},
        {"preferredVersion", json::object{{"groupVersion", group + "/" + versions.front()},
                                          {"version", versions.front()}}}});
  }
  return json::object{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

std::optional<json::object> resource_list_document(const resource_registry& registry,
                                                   const std::string& group,
                                                   const std::string& version) {
  json::array resources;
  bool any = false;
  for (const auto& t : registry.all()) {
    if (t->group != group || t->version != version) continue;
    any = true;
    json::object r{{"name", t->plural},
                   {"singularName", t->singular},
                   {"namespaced", t->namespaced},
                   {"kind", t->kind},
                   {"verbs", all_verbs()}};
    if (!t->short_names.empty()) r["shortNames"] = strings(t->short_names);
    if (!t->categories.empty()) r["categories"] = strings(t->categories);
    resources.push_back(std::move(r));
    if (t->has_status)
      resources.push_back(json::object{{"name", t->plural + "/status"},
                                       {"singularName", ""},
                                       {"namespaced", t->namespaced},
                                       {"kind", t->kind},
                                       {"verbs", json::array{"get", "patch", "update"}}});
    if (t->scale)
      resources.push_back(json::object{{"name", t->plural + "/scale"},
                                       {"singularName", ""},
                                       {"namespaced", t->namespaced},
                                       {"group", "autoscaling"},
                                       {"version", "v1"},
                                       {"kind", "Scale"},
                                       {"verbs", json::array{"get", "patch", "update"}}});
    if (t->has_eviction)
      resources.push_back(json::object{{"name", t->plural + "/eviction"},
                                       {"singularName", ""},
                                       {"namespaced", true},
                                       {"group", "policy"},
                                       {"version", "v1"},
                                       {"kind", "Eviction"},
                                       {"verbs", json::array{"create"}}});
    if (t->has_binding)
      resources.push_back(json::object{{"name", t->plural + "/binding"},
                                       {"singularName", ""},
                                       {"namespaced", true},
                                       {"kind", "Binding"},
                                       {"verbs", json::array{"create"}}});
    if (t->has_approval)
      resources.push_back(json::object{{"name", t->plural + "/approval"},
                                       {"singularName", ""},
                                       {"namespaced", false},
                                       {"kind", t->kind},
                                       {"verbs", json::array{"get", "patch", "update"}}});
  }
  if (!any) return std::nullopt;
  return json::object{{"kind", "APIResourceList"},
                      {"apiVersion", "v1"},
                      {"groupVersion", group.empty() ? version : group + "/" + version},
                      {"resources", resources}};
}

json::object aggregated_document(const resource_registry& registry, bool core) {
  json::array items;
  for (const auto& [group, versions] : registry.groups()) {
    if (core != group.empty()) continue;
    json::array vs;
    for (const auto& v : versions) {
      json::array resources;
      for (const auto& t : registry.all()) {
        if (t->group != group || t->version != v) continue;
        json::object r{
            {"resource", t->plural},
            {"responseKind",
             json::object{{"group", t->group}, {"version", t->version}, {"kind", t->kind}}},
            {"scope", t->namespaced ? "Namespaced" : "Cluster"},
            {"singularResource", t->singular},
            {"verbs", all_verbs()}};
        if (!t->short_names.empty()) r["shortNames"] = strings(t->short_names);
        if (!t->categories.empty()) r["categories"] = strings(t->categories);
        json::array subs;
        auto sub = [&](const std::string& name, const std::string& g, const std::string& ver,
                       const std::string& kind, json::array verbs) {
          subs.push_back(json::object{
              {"subresource", name},
              {"responseKind", json::object{{"group", g}, {"version", ver}, {"kind", kind}}},
              {"verbs", std::move(verbs)}});
        };
        if (t->has_status) sub("status", t->group, t->version, t->kind, {"get", "patch", "update"});
        if (t->scale) sub("scale", "autoscaling", "v1", "Scale", {"get", "patch", "update"});
        if (t->has_eviction) sub("eviction", "policy", "v1", "Eviction", {"create"});
        if (t->has_binding) sub("binding", "", "v1", "Binding", {"create"});
        if (t->has_approval)
          sub("approval", t->group, t->version, t->kind, {"get", "patch", "update"});
        if (!subs.empty()) r["subresources"] = std::move(subs);
        resources.push_back(std::move(r));
      }
      vs.push_back(
          json::object{{"version", v}, {"freshness", "Current"}, {"resources", resources}});
    }
    json::object meta;
    if (!group.empty()) meta["name"] = group;
    items.push_back(json::object{{"metadata", meta}, {"versions", vs}});
  }
  return json::object{{"kind", "APIGroupDiscoveryList"},
                      {"apiVersion", "apidiscovery.k8s.io/v2"},
                      {"metadata", json::object{}},
                      {"items", items}};
}

json::object openapi_v3_index(const resource_registry& registry) {
  json::object paths;
  auto hash = registry_hash(registry);
  for (const auto& [group, versions] : registry.groups())
    for (const auto& v : versions) {
      auto p = gv_path(group, v);
      paths[p] = json::object{{"serverRelativeURL", "/openapi/v3/" + p + "?hash=" + hash}};
    }
  return json::object{{"paths", paths}};
}

std::optional<json::object> openapi_v3_document(const resource_registry& registry,
                                                const std::string& path) {
  json::object paths;
  bool any = false;
  for (const auto& t : registry.all()) {
    if (gv_path(t->group, t->version) != path) continue;
    any = true;
    std::string prefix = "/" + path + "/";
    std::string item = t->namespaced ? prefix + "namespaces/{namespace}/" + t->plural + "/{name}"
                                     : prefix + t->plural + "/{name}";
    json::object op{
        {"x-kubernetes-group-version-kind",
         json::object{{"group", t->group}, {"version", t->version}, {"kind", t->kind}}},
        {"parameters", json::array{json::object{{"name", "fieldValidation"}, {"in", "query"}}}}};
    paths[item] = json::object{{"patch", op}};
  }
  if (!any) return std::nullopt;
  return json::object{{"openapi", "3.0.0"},
                      {"info", json::object{{"title", "Kubernetes"}, {"version", "v1.32.4"}}},
                      {"paths", paths}};
}

}  // namespace kp::sim::kube
