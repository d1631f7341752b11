#include "sim/kube/api_server.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "sim/kube/discovery.hpp"
#include "sim/kube/json_util.hpp"
#include "sim/kube/patch.hpp"
#include "sim/kube/pdb.hpp"
#include "sim/kube/protobuf_body.hpp"
#include "sim/kube/scale.hpp"
#include "sim/kube/selectors.hpp"
#include "sim/kube/table.hpp"

namespace kp::sim::kube {
namespace json = boost::json;
using transport::header_list;
using transport::http_response;

struct api_server::context {
  transport::http_request request;
  std::shared_ptr<transport::http_exchange> exchange;
  std::multimap<std::string, std::string> query;
  user_info user;

  std::string param(const std::string& k) const {
    auto it = query.find(k);
    return it == query.end() ? std::string() : it->second;
  }
  bool has(const std::string& k) const { return query.count(k) > 0; }
  bool flag(const std::string& k) const {
    auto v = param(k);
    return v == "true" || v == "1";
  }
  bool wants_table() const {
    return request.header("Accept").find("as=Table") != std::string_view::npos;
  }

  void reply(int status, std::string body, std::string content_type = "application/json",
             header_list extra = {}) {
    http_response r;
    r.status = status;
    r.headers.emplace_back("Content-Type", std::move(content_type));
    r.headers.emplace_back("Cache-Control", "no-cache, private");
    for (auto& h : extra) r.headers.push_back(std::move(h));
    r.body = std::move(body);
    exchange->respond(std::move(r));
  }
  void reply(int status, const json::object& body, const std::vector<std::string>& warnings = {}) {
    header_list extra;
    for (const auto& w : warnings) extra.emplace_back("Warning", "299 - \"" + w + "\"");
    reply(status, json::serialize(body), "application/json", std::move(extra));
  }
  void fail(const api_error& e) {
    header_list extra;
    if (e.retry_after_seconds > 0)
      extra.emplace_back("Retry-After", std::to_string(e.retry_after_seconds));
    reply(e.code, json::serialize(e.to_status()), "application/json", std::move(extra));
  }
};

namespace {

api_error not_served() {
  api_error e;
  e.code = 404;
  e.reason = "NotFound";
  e.message = "the server could not find the requested resource";
  return e;
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    auto j = path.find('/', i);
    if (i < path.size())
      out.push_back(
          url_decode(path.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i)));
    if (j == std::string_view::npos) break;
    i = j;
  }
  return out;
}

std::string content_type_base(std::string_view ct) {
  auto semi = ct.find(';');
  std::string s(ct.substr(0, semi));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

api_result<json::value> parse_body(const std::string& body) {
  if (body.empty()) return json::value(nullptr);
  boost::system::error_code ec;
  json::parse_options options;
  options.max_depth = 1000;  // CRD schemas nest deeply; the default of 32 is too shallow
  auto v = json::parse(body, ec, {}, options);
  if (ec) return bad_request("error decoding body: " + ec.message());
  return v;
}

write_options write_options_from(const std::multimap<std::string, std::string>& q) {
  write_options o;
  auto get = [&](const char* k) {
    auto it = q.find(k);
    return it == q.end() ? std::string() : it->second;
  };
  o.dry_run = get("dryRun") == "All";
  o.field_validation = get("fieldValidation");
  o.field_manager = get("fieldManager");
  return o;
}

std::string encode_continue(std::int64_t rv, const std::string& key) {
  return base64_encode(
      json::serialize(json::object{{"v", "meta.k8s.io/v1"}, {"rv", rv}, {"start", key}}));
}

bool decode_continue(const std::string& token, std::int64_t& rv, std::string& key) {
  auto raw = base64_decode(token);
  if (!raw) return false;
  boost::system::error_code ec;
  auto v = json::parse(*raw, ec);
  if (ec || !v.is_object()) return false;
  const auto& o = v.get_object();
  const auto* r = o.if_contains("rv");
  const auto* s = o.if_contains("start");
  if (!r || !s || !s->is_string() || !as_int(*r)) return false;
  rv = *as_int(*r);
  key = std::string(s->get_string());
  return true;
}

// Visits the objects of one resource in key order after `start_after` within `prefix`, with the
// versions in `snapshot` (nullptr: absent then) taking the place of the live ones, until `visit`
// returns false.
template <class Visit>
void walk_objects(const collection* live, const std::map<std::string, object_ptr>& snapshot,
                  const std::string& prefix, const std::string& start_after, Visit&& visit) {
  auto in_range = [&](const std::string& k) {
    return prefix.empty() || k.compare(0, prefix.size(), prefix) == 0;
  };
  auto from = [&](const auto& m) {
    return start_after.empty() ? m.lower_bound(prefix) : m.upper_bound(start_after);
  };
  collection empty;
  const collection& objects = live ? *live : empty;
  auto a = from(objects);
  auto b = from(snapshot);
  while (true) {
    bool has_a = a != objects.end() && in_range(a->first);
    bool has_b = b != snapshot.end() && in_range(b->first);
    if (!has_a && !has_b) return;
    const std::string* key;
    object_ptr o;
    if (has_b && (!has_a || b->first <= a->first)) {
      if (has_a && a->first == b->first) ++a;
      key = &b->first;
      o = b->second;
      ++b;
    } else {
      key = &a->first;
      o = a->second;
      ++a;
    }
    if (o && !visit(*key, o)) return;
  }
}

}  // namespace

api_server::api_server(operations& ops, watch_hub& hub, api_server_settings settings)
    : ops_(ops), hub_(hub), settings_(std::move(settings)) {}

void api_server::handle(transport::http_request request,
                        std::shared_ptr<transport::http_exchange> exchange) {
  ++requests_;
  ++requests_by_method_[request.method];
  context c{std::move(request), std::move(exchange), {}, {}};
  try {
    c.query = parse_query(c.request.query());
    auto who = authenticate(c.request, settings_.auth, ops_.store(), ops_.now());
    if (!who) return c.fail(who.error());
    c.user = who.value();
    dispatch(c);
  } catch (const std::exception& e) {
    c.fail(internal_error(std::string("internal error: ") + e.what()));
  }
}

void api_server::dispatch(context& c) {
  auto path = std::string(c.request.path());
  auto segs = split_path(path);
  const auto& method = c.request.method;
  bool aggregated =
      c.request.header("Accept").find("as=APIGroupDiscoveryList") != std::string_view::npos &&
      c.request.header("Accept").find("apidiscovery.k8s.io") != std::string_view::npos;
  auto& reg = ops_.registry();
  if (segs.empty()) {
    json::array paths{"/api", "/api/v1", "/apis", "/healthz", "/openapi/v3", "/version"};
    return c.reply(200, json::object{{"paths", paths}});
  }
  if (segs[0] == "healthz" || segs[0] == "livez" || segs[0] == "readyz")
    return c.reply(200, "ok", "text/plain; charset=utf-8");
  if (segs[0] == "version" && segs.size() == 1) return c.reply(200, version_document());
  if (segs[0] == "sim") {
    if (!is_admin(c.user)) return c.fail(forbidden("test controls are for the admin only"));
    if (!controls_) return c.fail(not_served());
    auto body = parse_body(c.request.body);
    if (!body) return c.fail(body.error());
    auto r = controls_(method, path, body.value());
    if (!r) return c.fail(r.error());
    return c.reply(200, r.value());
  }
  bool discovery_path = segs[0] == "openapi" || (segs[0] == "api" && segs.size() <= 2) ||
                        (segs[0] == "apis" && segs.size() <= 3);
  if (method != "GET" && discovery_path)
    return c.fail(
        method_not_allowed("the server does not allow this method on the requested resource"));
  if (segs[0] == "openapi") {
    if (segs.size() >= 2 && segs[1] == "v3") {
      if (segs.size() == 2) return c.reply(200, openapi_v3_index(reg));
      std::string rest;
      for (std::size_t i = 2; i < segs.size(); ++i) rest += (i > 2 ? "/" : "") + segs[i];
      auto doc = openapi_v3_document(reg, rest);
      if (!doc) return c.fail(not_served());
      return c.reply(200, *doc);
    }
    return c.fail(not_served());
  }
  const char* aggregated_type =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
  if (segs[0] == "api") {
    if (segs.size() == 1) {
      if (method != "GET") return c.fail(method_not_allowed("method not allowed"));
      if (aggregated)
        return c.reply(200, json::serialize(aggregated_document(reg, true)), aggregated_type);
      return c.reply(200, core_versions_document());
    }
    if (segs.size() == 2) {
      auto doc = resource_list_document(reg, "", segs[1]);
      if (!doc) return c.fail(not_served());
      return c.reply(200, *doc);
    }
    return serve_resource(c, "", segs[1], std::vector<std::string>(segs.begin() + 2, segs.end()));
  }
  if (segs[0] == "apis") {
    if (segs.size() == 1) {
      if (method != "GET") return c.fail(method_not_allowed("method not allowed"));
      if (aggregated)
        return c.reply(200, json::serialize(aggregated_document(reg, false)), aggregated_type);
      return c.reply(200, group_list_document(reg));
    }
    if (segs.size() == 2) {
      for (const auto& [g, versions] : reg.groups()) {
        if (g != segs[1] || g.empty()) continue;
        json::array vs;
        for (const auto& v : versions)
          vs.push_back(json::object{{"groupVersion", g + "/" + v}, {"version", v}});
        return c.reply(200, json::object{{"kind", "APIGroup"},
                                         {"apiVersion", "v1"},
                                         {"name", g},
                                         {"versions", vs},
                                         {"preferredVersion", vs.front()}});
      }
      return c.fail(not_served());
    }
    if (segs.size() == 3) {
      auto doc = resource_list_document(reg, segs[1], segs[2]);
      if (!doc) return c.fail(not_served());
      return c.reply(200, *doc);
    }
    return serve_resource(c, segs[1], segs[2],
                          std::vector<std::string>(segs.begin() + 3, segs.end()));
  }
  c.fail(not_served());
}

void api_server::serve_resource(context& c, const std::string& group, const std::string& version,
                                const std::vector<std::string>& rest) {
  auto& reg = ops_.registry();
  std::string ns, plural, name, sub;
  bool namespaced_path = rest.size() >= 3 && rest[0] == "namespaces" &&
                         !(rest.size() == 3 && (rest[2] == "status" || rest[2] == "finalize"));
  std::vector<std::string> tail;
  if (namespaced_path) {
    ns = rest[1];
    tail.assign(rest.begin() + 2, rest.end());
  } else {
    tail = rest;
  }
  if (tail.empty() || tail.size() > 3) return c.fail(not_served());
  plural = tail[0];
  if (tail.size() >= 2) name = tail[1];
  if (tail.size() == 3) sub = tail[2];
  const auto* t = reg.find(group, version, plural);
  if (!t) return c.fail(not_served());
  if (namespaced_path && !t->namespaced) return c.fail(not_served());
  const auto& method = c.request.method;

  std::string verb;
  if (name.empty()) {
    if (method == "GET")
      verb = c.flag("watch") ? "watch" : "list";
    else if (method == "POST")
      verb = "create";
    else if (method == "DELETE")
      verb = "deletecollection";
    else
      return c.fail(
          method_not_allowed("the server does not allow this method on the requested resource"));
  } else {
    if (method == "GET")
      verb = "get";
    else if (method == "POST")
      verb = "create";
    else if (method == "PUT")
      verb = "update";
    else if (method == "PATCH")
      verb = "patch";
    else if (method == "DELETE")
      verb = "delete";
    else
      return c.fail(
          method_not_allowed("the server does not allow this method on the requested resource"));
  }
  std::string auth_resource = plural;
  if (!sub.empty()) auth_resource += "/" + sub;
  if (auto s = authorize(c.user, verb, group, plural, ns); !s) return c.fail(s.error());

  if (!sub.empty()) {
    bool known = (sub == "status" && t->has_status) || (sub == "scale" && t->scale) ||
                 (sub == "eviction" && t->has_eviction) || (sub == "binding" && t->has_binding) ||
                 (sub == "approval" && t->has_approval) ||
                 (sub == "finalize" && plural == "namespaces" && group.empty());
    if (!known) return c.fail(not_served());
  }
  if (t->namespaced && ns.empty() && !name.empty()) return c.fail(not_served());
  if (t->namespaced && ns.empty() && verb == "create")
    return c.fail(
        method_not_allowed("the server does not allow this method on the requested resource"));

  if (verb == "list") return serve_list(c, *t, ns);
  if (verb == "watch") return serve_watch(c, *t, ns);
  if (verb == "deletecollection") return serve_delete_collection(c, *t, ns);

  auto ct = content_type_base(c.request.header("Content-Type"));
  bool protobuf = ct == protobuf_content_type;
  if ((method == "POST" || method == "PUT") && !ct.empty() && ct != "application/json" &&
      ct != "*/*" && !protobuf)
    return c.fail(unsupported_media_type(ct));
  if (method == "PATCH" && ct != "application/json-patch+json" &&
      ct != "application/merge-patch+json" && ct != "application/strategic-merge-patch+json" &&
      ct != "application/apply-patch+yaml")
    return c.fail(unsupported_media_type(ct));
  auto body = protobuf && !c.request.body.empty() ? [&]() -> api_result<json::value> {
    auto o = decode_protobuf_object(c.request.body);
    if (!o) return o.error();
    return json::value(std::move(o.value()));
  }()
      : parse_body(c.request.body);
  if (!body) return c.fail(body.error());
  auto opts = write_options_from(c.query);
  const std::string scope_ns = t->namespaced ? ns : "";

  if (sub == "scale") return serve_scale(c, *t, scope_ns, name, ct, body.value(), opts);
  if (verb == "get") {
    auto o = ops_.store().get(t->storage_key(), scope_ns, name);
    if (!o) return c.fail(not_found(plural, group, name));
    if (c.wants_table())
      return c.reply(
          200, make_table(*t, {o}, ops_.now(),
                          std::string(string_at(o->object, {"metadata", "resourceVersion"})), ""));
    return c.reply(200, o->text);
  }
  if ((method == "POST" || method == "PUT") && !body.value().is_object())
    return c.fail(bad_request("the request body must be a JSON object"));
  if (verb == "create" && sub.empty()) {
    auto r = ops_.create(*t, scope_ns, std::move(body.value().get_object()), c.user, opts);
    if (!r) return c.fail(r.error());
    return c.reply(201, r.value()->text, "application/json", [&] {
      header_list h;
      for (const auto& w : opts.warnings) h.emplace_back("Warning", "299 - \"" + w + "\"");
      return h;
    }());
  }
  if (verb == "create" && sub == "eviction") {
    auto r = evict_pod(ops_, ns, name, body.value());
    if (!r) return c.fail(r.error());
    return c.reply(201, r.value());
  }
  if (verb == "create" && sub == "binding") {
    const auto& b = body.value().get_object();
    std::string node(string_at(b, {"target", "name"}));
    if (node.empty()) return c.fail(bad_request("a binding needs target.name"));
    auto pod = ops_.store().get("/pods", ns, name);
    if (!pod) return c.fail(not_found("pods", "", name));
    auto current = string_at(pod->object, {"spec", "nodeName"});
    if (!current.empty())
      return c.fail(conflict(
          "pods/binding", "", name,
          "pod " + name + " is already assigned to node \"" + std::string(current) + "\""));
    json::object next = pod->object;
    ensure_object(next, "spec")["nodeName"] = node;
    auto& conds = ensure_array(ensure_object(next, "status"), "conditions");
    conds.push_back(json::object{{"type", "PodScheduled"},
                                 {"status", "True"},
                                 {"lastTransitionTime", format_time(ops_.now())}});
    ops_.write(*t, std::move(next));
    return c.reply(201, json::object{{"kind", "Status"},
                                     {"apiVersion", "v1"},
                                     {"metadata", json::object{}},
                                     {"status", "Success"},
                                     {"code", 201}});
  }
  if (verb == "create")
    return c.fail(
        method_not_allowed("the server does not allow this method on the requested resource"));

  write_scope scope = sub.empty() ? write_scope::main : write_scope::status;
  if (verb == "update") {
    auto r = ops_.update(*t, scope_ns, name, std::move(body.value().get_object()), scope, opts);
    if (!r) return c.fail(r.error());
    return c.reply(200, r.value()->text, "application/json", [&] {
      header_list h;
      for (const auto& w : opts.warnings) h.emplace_back("Warning", "299 - \"" + w + "\"");
      return h;
    }());
  }
  if (verb == "patch") {
    bool existed = ops_.store().get(t->storage_key(), scope_ns, name) != nullptr;
    auto r = ops_.patch(*t, scope_ns, name, scope, ct, body.value(), c.user, opts, c.flag("force"));
    if (!r) return c.fail(r.error());
    return c.reply(existed ? 200 : 201, r.value()->text);
  }
  if (verb == "delete") {
    delete_options d;
    if (body.value().is_object()) {
      const auto& b = body.value().get_object();
      if (const auto* g = b.if_contains("gracePeriodSeconds")) d.grace_period_seconds = as_int(*g);
      d.precondition_uid = std::string(string_at(b, {"preconditions", "uid"}));
      d.precondition_rv = std::string(string_at(b, {"preconditions", "resourceVersion"}));
      d.propagation = std::string(string_at(b, {"propagationPolicy"}));
      if (const auto* od = b.if_contains("orphanDependents");
          od && od->is_bool() && d.propagation.empty())
        d.propagation = od->get_bool() ? "Orphan" : "Background";
      if (const auto* dr = array_at(b, {"dryRun"}); dr && !dr->empty()) d.dry_run = true;
    } else if (!body.value().is_null()) {
      return c.fail(bad_request("the DeleteOptions body must be a JSON object"));
    }
    if (c.has("gracePeriodSeconds")) {
      auto g = parse_int64(c.param("gracePeriodSeconds"));
      if (!g)
        return c.fail(
            bad_request("invalid gracePeriodSeconds: \"" + c.param("gracePeriodSeconds") + "\""));
      d.grace_period_seconds = *g;
    }
    if (c.has("propagationPolicy")) d.propagation = c.param("propagationPolicy");
    if (c.param("dryRun") == "All") d.dry_run = true;
    if (!d.propagation.empty() && d.propagation != "Background" && d.propagation != "Foreground" &&
        d.propagation != "Orphan")
      return c.fail(bad_request("propagationPolicy: Unsupported value: \"" + d.propagation + "\""));
    auto r = ops_.remove(*t, scope_ns, name, d);
    if (!r) return c.fail(r.error());
    return c.reply(200, r.value().object->text);
  }
  c.fail(method_not_allowed("the server does not allow this method on the requested resource"));
}

void api_server::serve_scale(context& c, const resource_type& t, const std::string& ns,
                             const std::string& name, const std::string& content_type,
                             const json::value& body, write_options& opts) {
  auto o = ops_.store().get(t.storage_key(), ns, name);
  if (!o) return c.fail(not_found(t.plural, t.group, name));
  auto current = scale_of(t, o->object);
  const auto& method = c.request.method;
  if (method == "GET") return c.reply(200, current);
  json::value next_scale;
  if (method == "PUT") {
    if (!body.is_object()) return c.fail(bad_request("the request body must be a JSON object"));
    next_scale = body;
  } else if (method == "PATCH") {
    next_scale = current;
    if (content_type == "application/json-patch+json") {
      if (auto s = apply_json_patch(next_scale, body); !s) return c.fail(s.error());
    } else {
      // Scale has no lists: strategic merge and apply behave as a merge patch on it.
      if (!body.is_object()) return c.fail(bad_request("the patch must be a JSON object"));
      apply_merge_patch(next_scale, body);
    }
  } else {
    return c.fail(
        method_not_allowed("the server does not allow this method on the requested resource"));
  }
  auto next = with_scale(t, o->object, next_scale);
  if (!next) return c.fail(next.error());
  auto r = ops_.update(t, ns, name, std::move(next.value()), write_scope::main, opts);
  if (!r) return c.fail(r.error());
  c.reply(200, scale_of(t, r.value()->object));
}

void api_server::serve_list(context& c, const resource_type& t, const std::string& ns) {
  auto labels = label_selector::parse(c.param("labelSelector"));
  if (!labels) return c.fail(labels.error());
  auto fields = field_selector::parse(c.param("fieldSelector"), t.kind);
  if (!fields) return c.fail(fields.error());
  std::size_t limit = 0;
  if (c.has("limit")) {
    auto l = parse_int64(c.param("limit"));
    if (!l) return c.fail(bad_request("invalid limit: \"" + c.param("limit") + "\""));
    limit = *l > 0 ? static_cast<std::size_t>(*l) : 0;
  }
  auto rv_param = c.param("resourceVersion");
  std::uint64_t list_rv = ops_.store().current_rv();
  if (!rv_param.empty() && rv_param != "0") {
    auto want = parse_uint64(rv_param);
    if (!want) return c.fail(bad_request("invalid resourceVersion: " + rv_param));
    if (*want > list_rv) {
      api_error e;
      e.code = 504;
      e.reason = "Timeout";
      e.message =
          "Too large resource version: " + rv_param + ", current: " + std::to_string(list_rv);
      e.causes.push_back(json::object{{"reason", "ResourceVersionTooLarge"},
                                      {"message", "Too large resource version"}});
      return c.fail(e);
    }
  }
  std::string start_after;
  // A continued list shows the objects as they were when its first page was served.
  std::map<std::string, object_ptr> snapshot;
  if (c.has("continue") && !c.param("continue").empty()) {
    if (!rv_param.empty() && rv_param != "0")
      return c.fail(bad_request("specifying resource version is not allowed when using continue"));
    std::int64_t token_rv = 0;
    if (!decode_continue(c.param("continue"), token_rv, start_after))
      return c.fail(
          bad_request("continue key is not valid: incorrect encoded start resourceVersion (version "
                      "meta.k8s.io/v1)"));
    // rv -1 is the "inconsistent" continuation offered with a 410: from the newest state.
    if (token_rv > 0 && (static_cast<std::uint64_t>(token_rv) < hub_.compacted_rv() ||
                         hub_.take_forced_expired())) {
      auto e = gone(
          "The provided continue parameter is too old to display a consistent list result. You can "
          "start a new list without the continue parameter, or use the continue token in this "
          "response to retrieve the remainder of the results. Continuing with the provided token "
          "results in an inconsistent list - objects that were created, modified, or deleted "
          "between the time the first chunk was returned and now may show up in the list.");
      e.continue_token = encode_continue(-1, start_after);
      return c.fail(e);
    }
    if (token_rv > 0) {
      list_rv = static_cast<std::uint64_t>(token_rv);
      if (list_rv < ops_.store().current_rv()) snapshot = hub_.states_at(t.storage_key(), list_rv);
    }
  }
  std::vector<object_ptr> items;
  std::string next_key;
  bool more = false;
  auto selected = [&](const object_ptr& o) {
    return (labels.value().empty() ||
            labels.value().matches(object_at(o->object, {"metadata", "labels"}))) &&
           fields.value().matches(o->object);
  };
  auto visit = [&](const std::string& key, const object_ptr& o) {
    if (!selected(o)) return true;
    if (limit && items.size() >= limit) {
      more = true;  // a further match exists: a continue token is due
      return false;
    }
    items.push_back(o);
    next_key = key;
    return true;
  };
  const auto* coll = ops_.store().objects(t.storage_key());
  auto exact = fields.value().exact_name();
  if (exact && (!t.namespaced || !ns.empty())) {
    auto key = object_key(t.namespaced ? ns : "", *exact);
    object_ptr o;
    if (auto s = snapshot.find(key); s != snapshot.end()) {
      o = s->second;
    } else if (coll) {
      if (auto it = coll->find(key); it != coll->end()) o = it->second;
    }
    if (o && (start_after.empty() || key > start_after)) visit(key, o);
  } else {
    walk_objects(coll, snapshot, ns.empty() ? "" : ns + "/", start_after, visit);
  }
  std::string token = more ? encode_continue(static_cast<std::int64_t>(list_rv), next_key) : "";
  if (c.wants_table())
    return c.reply(200, make_table(t, items, ops_.now(), std::to_string(list_rv), token));
  std::string out;
  std::size_t total = 0;
  for (const auto& o : items) total += o->text.size() + 1;
  out.reserve(total + 256);
  out += "{\"kind\":\"";
  out += t.kind;
  out += "List\",\"apiVersion\":\"";
  out += t.api_version();
  out += "\",\"metadata\":{\"resourceVersion\":\"";
  out += std::to_string(list_rv);
  out += "\"";
  if (!token.empty()) {
    out += ",\"continue\":\"";
    out += token;
    out += "\"";
  }
  out += "},\"items\":[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += items[i]->text;
  }
  out += "]}";
  c.reply(200, std::move(out));
}

void api_server::serve_watch(context& c, const resource_type& t, const std::string& ns) {
  auto labels = label_selector::parse(c.param("labelSelector"));
  if (!labels) return c.fail(labels.error());
  auto fields = field_selector::parse(c.param("fieldSelector"), t.kind);
  if (!fields) return c.fail(fields.error());
  watch_spec spec;
  spec.storage_key = t.storage_key();
  spec.kind = t.kind;
  spec.api_version = t.api_version();
  spec.namespace_name = ns;
  spec.labels = labels.value();
  spec.fields = fields.value();
  spec.bookmarks = c.flag("allowWatchBookmarks");
  auto timeout = settings_.default_watch_timeout;
  if (c.has("timeoutSeconds")) {
    auto seconds = parse_int64(c.param("timeoutSeconds"));
    if (!seconds || *seconds < 0 || *seconds > 1000000000)
      return c.fail(bad_request("invalid timeoutSeconds: \"" + c.param("timeoutSeconds") + "\""));
    timeout = std::chrono::seconds(*seconds);
  }
  spec.deadline = std::chrono::steady_clock::now() + timeout;
  if (c.wants_table()) {
    auto type = std::make_shared<resource_type>(t);
    auto clock = [this] { return ops_.now(); };
    spec.render = [type, clock](const object_ptr& o) {
      return json::serialize(
          make_table(*type, {o}, clock(),
                     std::string(string_at(o->object, {"metadata", "resourceVersion"})), ""));
    };
  }
  auto rv_param = c.param("resourceVersion");
  std::uint64_t from = 0;
  bool initial = rv_param.empty() || rv_param == "0";
  if (!initial) {
    auto parsed = parse_uint64(rv_param);
    if (!parsed) return c.fail(bad_request("invalid resourceVersion: " + rv_param));
    from = *parsed;
  }
  if (c.has("sendInitialEvents") && c.flag("sendInitialEvents")) initial = true;
  header_list headers{{"Content-Type", "application/json"}, {"Cache-Control", "no-cache, private"}};
  c.exchange->start_stream(200, headers);
  bool expired = hub_.take_forced_expired() || (!initial && from < hub_.compacted_rv());
  if (expired) {
    auto e = gone("too old resource version: " + rv_param + " (" +
                  std::to_string(hub_.compacted_rv() + 1) + ")");
    c.exchange->write(watch_hub::event_line("ERROR", json::serialize(e.to_status())));
    c.exchange->finish();
    return;
  }
  auto current = ops_.store().current_rv();
  if (initial) {
    if (const auto* coll = ops_.store().objects(t.storage_key())) {
      std::string prefix = ns.empty() ? "" : ns + "/";
      std::string batch;
      for (auto it = coll->lower_bound(prefix); it != coll->end(); ++it) {
        if (!prefix.empty() && it->first.compare(0, prefix.size(), prefix) != 0) break;
        const auto& o = it->second->object;
        if (!spec.labels.empty() && !spec.labels.matches(object_at(o, {"metadata", "labels"})))
          continue;
        if (!spec.fields.matches(o)) continue;
        batch += watch_hub::event_line("ADDED",
                                       spec.render ? spec.render(it->second) : it->second->text);
        if (batch.size() > (1u << 20)) {
          c.exchange->write(std::move(batch));
          batch.clear();
        }
      }
      if (!batch.empty()) c.exchange->write(std::move(batch));
    }
    if (c.flag("sendInitialEvents") && spec.bookmarks) {
      json::object bm{
          {"kind", t.kind},
          {"apiVersion", t.api_version()},
          {"metadata",
           json::object{{"resourceVersion", std::to_string(current)},
                        {"annotations", json::object{{"k8s.io/initial-events-end", "true"}}}}}};
      c.exchange->write(watch_hub::event_line("BOOKMARK", json::serialize(bm)));
    }
    from = current;
  }
  hub_.open(std::move(spec), c.exchange, from);
}

void api_server::serve_delete_collection(context& c, const resource_type& t,
                                         const std::string& ns) {
  auto labels = label_selector::parse(c.param("labelSelector"));
  if (!labels) return c.fail(labels.error());
  auto fields = field_selector::parse(c.param("fieldSelector"), t.kind);
  if (!fields) return c.fail(fields.error());
  std::vector<std::pair<std::string, std::string>> targets;
  if (const auto* coll = ops_.store().objects(t.storage_key())) {
    std::string prefix = ns.empty() ? "" : ns + "/";
    for (auto it = coll->lower_bound(prefix); it != coll->end(); ++it) {
      if (!prefix.empty() && it->first.compare(0, prefix.size(), prefix) != 0) break;
      const auto& o = it->second->object;
      if (!labels.value().empty() && !labels.value().matches(object_at(o, {"metadata", "labels"})))
        continue;
      if (!fields.value().matches(o)) continue;
      targets.emplace_back(std::string(meta_namespace(o)), std::string(meta_name(o)));
    }
  }
  json::array items;
  for (const auto& [n, name] : targets) {
    auto r = ops_.remove(t, n, name, delete_options{});
    if (r) items.push_back(r.value().object->object);
  }
  c.reply(200, json::object{{"kind", t.kind + "List"},
                            {"apiVersion", t.api_version()},
                            {"metadata", json::object{{"resourceVersion",
                                                       std::to_string(ops_.store().current_rv())}}},
                            {"items", items}});
}

}  // namespace kp::sim::kube
