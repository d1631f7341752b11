#include "sim/pve/api_router.hpp"

#include <exception>

#include "sim/pve/access_control.hpp"
#include "sim/pve/number_text.hpp"
#include "sim/pve/parameter_checks.hpp"
#include "sim/pve/request_stats.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < path.size()) {
    auto slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) out.push_back(std::string(path.substr(start, slash - start)));
    start = slash + 1;
  }
  return out;
}

bool is_write(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "DELETE";
}

}  // namespace

api_reply reply_from(const kp::error& e) {
  if (e.code.rfind("param:", 0) == 0) return api_reply::param(e.code.substr(6), e.message);
  auto status = parse_number<int>(e.code);
  return api_reply::fail(status && *status >= 400 && *status <= 599 ? *status : 500, e.message);
}

transport::http_response render_reply(const api_reply& r) {
  transport::http_response res;
  res.status = r.status;
  json::object body;
  body["data"] = r.status == 200 ? r.data : json::value(nullptr);
  if (r.total) body["total"] = *r.total;
  if (r.status != 200) {
    if (!r.errors.empty()) body["errors"] = r.errors;
    if (!r.message.empty()) body["message"] = r.message + "\n";
  }
  res.body = json::serialize(body);
  res.headers = {{"Content-Type", "application/json;charset=UTF-8"},
                 {"Server", "pve-api-daemon/3.0"},
                 {"Cache-Control", "max-age=0"},
                 {"Pragma", "no-cache"},
                 {"Expires", "Thu, 01 Jan 1970 00:00:00 GMT"}};
  // Proxmox puts the message (first line) in the status line's reason phrase.
  if (r.status != 200) res.reason = r.message.substr(0, r.message.find('\n'));
  return res;
}

void api_router::add(std::string method, std::string path, route_handler handler,
                     bool public_path) {
  route r;
  r.method = std::move(method);
  r.parts = split_path(path);
  r.path = std::move(path);
  r.handler = std::move(handler);
  r.public_path = public_path;
  routes_.push_back(std::move(r));
}

// Matches raw (still encoded) segments against the templates; decodes the captures.
const api_router::route* api_router::match(const std::string& method,
                                           const std::vector<std::string>& segments,
                                           std::map<std::string, std::string>& captures) const {
  for (const auto& r : routes_) {
    if (r.method != method || r.parts.size() != segments.size()) continue;
    std::map<std::string, std::string> found;
    bool same = true;
    for (std::size_t i = 0; same && i < r.parts.size(); ++i) {
      if (r.parts[i].front() == '{')
        found[r.parts[i].substr(1, r.parts[i].size() - 2)] = url_decode(segments[i], false);
      else
        same = r.parts[i] == segments[i];
    }
    if (!same) continue;
    captures = std::move(found);
    return &r;
  }
  return nullptr;
}

// The handler behind the exception boundary: a die in a Proxmox handler is a 500 whose reason is
// the message, and so is anything a simulated handler throws.
api_reply api_router::dispatch(const route& r, api_call& call) {
  try {
    return r.handler(call);
  } catch (const std::exception& e) {
    return api_reply::fail(500, e.what());
  } catch (...) {
    return api_reply::fail(500, "internal error");
  }
}

void api_router::handle(const transport::http_request& request,
                        std::function<void(transport::http_response)> reply) {
  const std::string method = request.method;
  auto finish = [this, reply, method](const std::string& templ, api_reply r,
                                      std::chrono::milliseconds delay) {
    stats_.count_status(method, templ, r.status);
    auto res = render_reply(r);
    if (delay.count() > 0) {
      world_.after(delay, [reply, res = std::move(res)]() mutable { reply(std::move(res)); });
    } else {
      reply(std::move(res));
    }
  };
  std::string raw_path(request.path());
  std::string rest = raw_path.rfind("/api2/", 0) == 0 ? raw_path.substr(6) : "";
  auto slash = rest.find('/');
  if (rest.substr(0, slash) != "json" || slash == std::string::npos) {
    stats_.count_request(method, "unmatched");
    finish("unmatched", api_reply::fail(501, "no such uri"), {});
    return;
  }
  std::string rel = rest.substr(slash);
  api_call call;
  call.method = method;
  call.request = &request;
  const route* matched = match(method, split_path(rel), call.path);
  const std::string templ = matched ? matched->path : "unmatched";
  stats_.count_request(method, templ);
  if (!matched) {
    finish(templ, api_reply::fail(501, "Method '" + method + " " + rel + "' not implemented"), {});
    return;
  }
  call.path_template = templ;
  auto& faults = world_.faults();
  const auto latency =
      std::chrono::milliseconds(static_cast<std::int64_t>(faults.added_latency_ms(method, templ)));

  if (!matched->public_path) {
    bool csrf = false;
    auto who = access_.authenticate(request, rel, csrf);
    if (!who) {
      auto delay = world_.duration("auth_failure_delay") + latency;
      finish(templ, api_reply::fail(401, who.error().message), delay);
      return;
    }
    call.who = *who;
  }

  // Parameters: body first, then the query string over it, then the path.
  const bool is_upload = templ == "/nodes/{node}/storage/{storage}/upload";
  std::string content_type(request.header("Content-Type"));
  if (!request.body.empty()) {
    if (method == "GET" || method == "DELETE") {
      finish(templ, api_reply::fail(501, "Unexpected content for method '" + method + "'"),
             latency);
      return;
    }
    if (!is_upload && request.body.size() > 512 * 1024) {
      finish(templ, api_reply::fail(501, "for data too large"), latency);
      return;
    }
    if (content_type.rfind("application/json", 0) == 0) {
      if (auto st = parse_json_object(request.body, call.params); !st) {
        finish(templ, api_reply::fail(400, st.error().message), latency);
        return;
      }
    } else if (content_type.rfind("multipart/form-data", 0) != 0) {
      parse_form(request.body, call.params);
    }
  }
  request_params query;
  parse_form(request.query(), query);
  for (const auto& [k, v] : query.items()) call.params.erase(k);
  for (const auto& [k, v] : query.items()) call.params.add(k, v);
  for (const auto& [k, v] : call.path) {
    auto given = call.params.get(k);
    if (given && *given != v) {
      finish(templ,
             api_reply::fail(
                 400, "duplicate parameter (already defined in URI) with conflicting values!"),
             latency);
      return;
    }
  }

  // A call for another node is proxied there first; a node that cannot be reached answers
  // AnyEvent::HTTP's pseudo-statuses.
  if (auto node = call.path.find("node"); node != call.path.end()) {
    if (auto reachable = world_.reach_node(node->second); !reachable) {
      finish(templ, reply_from(reachable.error()), latency);
      return;
    }
  }
  // The target node then verifies the parameters against the method's schema.
  if (auto vmid = call.path.find("vmid"); vmid != call.path.end()) {
    if (auto checked = check_vmid("vmid", vmid->second); !checked) {
      finish(templ, reply_from(checked.error()), latency);
      return;
    }
  }
  auto injected = faults.request_error(method, templ);
  if (injected && !(injected->applied && is_write(method))) {
    finish(templ, api_reply::fail(injected->status, injected->message), latency);
    return;
  }
  api_reply r = dispatch(*matched, call);
  // An applied fault: the write happened, the client sees the error anyway.
  if (injected) r = api_reply::fail(injected->status, injected->message);
  finish(templ, std::move(r), latency);
}

}  // namespace kp::sim::pve
