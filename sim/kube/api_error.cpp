#include "sim/kube/api_error.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {
std::string qualified(const std::string& resource, const std::string& group) {
  return group.empty() ? resource : resource + "." + group;
}
api_error make(int code, std::string reason, std::string message) {
  api_error e;
  e.code = code;
  e.reason = std::move(reason);
  e.message = std::move(message);
  return e;
}
}  // namespace

json::object api_error::to_status() const {
  json::object s;
  s["kind"] = "Status";
  s["apiVersion"] = "v1";
  s["metadata"] =
      continue_token.empty() ? json::object{} : json::object{{"continue", continue_token}};
  s["status"] = "Failure";
  s["message"] = message;
  s["reason"] = reason;
  json::object details;
  if (!name.empty()) details["name"] = name;
  if (!group.empty()) details["group"] = group;
  if (!kind.empty()) details["kind"] = kind;
  if (!causes.empty()) details["causes"] = causes;
  if (retry_after_seconds > 0) details["retryAfterSeconds"] = retry_after_seconds;
  if (!details.empty()) s["details"] = std::move(details);
  s["code"] = code;
  return s;
}

api_error not_found(const std::string& resource, const std::string& group,
                    const std::string& name) {
  auto e = make(404, "NotFound", qualified(resource, group) + " \"" + name + "\" not found");
  e.name = name;
  e.group = group;
  e.kind = resource;
  return e;
}

api_error already_exists(const std::string& resource, const std::string& group,
                         const std::string& name) {
  auto e =
      make(409, "AlreadyExists", qualified(resource, group) + " \"" + name + "\" already exists");
  e.name = name;
  e.group = group;
  e.kind = resource;
  return e;
}

api_error conflict(const std::string& resource, const std::string& group, const std::string& name,
                   const std::string& why) {
  auto e = make(409, "Conflict",
                "Operation cannot be fulfilled on " + qualified(resource, group) + " \"" + name +
                    "\": " + why);
  e.name = name;
  e.group = group;
  e.kind = resource;
  return e;
}

api_error stale_conflict(const std::string& resource, const std::string& group,
                         const std::string& name) {
  return conflict(resource, group, name,
                  "the object has been modified; please apply your changes to the latest version "
                  "and try again");
}

api_error bad_request(const std::string& message) {
  return make(400, "BadRequest", message);
}

api_error invalid(const std::string& kind, const std::string& group, const std::string& name,
                  json::array causes) {
  std::string msg = qualified(kind, group) + " \"" + name + "\" is invalid: ";
  bool first = true;
  if (causes.size() > 1) msg += "[";
  for (const auto& c : causes) {
    if (!first) msg += ", ";
    first = false;
    const auto& o = c.as_object();
    if (auto* f = o.if_contains("field")) msg += std::string(f->as_string()) + ": ";
    if (auto* m = o.if_contains("message")) msg += std::string(m->as_string());
  }
  if (causes.size() > 1) msg += "]";
  auto e = make(422, "Invalid", msg);
  e.name = name;
  e.group = group;
  e.kind = kind;
  e.causes = std::move(causes);
  return e;
}

api_error forbidden(const std::string& message) {
  return make(403, "Forbidden", message);
}
api_error unauthorized() {
  return make(401, "Unauthorized", "Unauthorized");
}
api_error method_not_allowed(const std::string& message) {
  return make(405, "MethodNotAllowed", message);
}
api_error gone(const std::string& message) {
  return make(410, "Expired", message);
}

api_error unsupported_media_type(const std::string& content_type) {
  (void)content_type;
  return make(415, "UnsupportedMediaType",
              "the body of the request was in an unknown format - accepted media types include: "
              "application/json-patch+json, application/merge-patch+json, "
              "application/apply-patch+yaml");
}

api_error too_many_requests(const std::string& message, json::array causes,
                            int retry_after_seconds) {
  auto e = make(429, "TooManyRequests", message);
  e.causes = std::move(causes);
  e.retry_after_seconds = retry_after_seconds;
  return e;
}

api_error internal_error(const std::string& message) {
  return make(500, "InternalError", message);
}

json::object field_cause(const std::string& type, const std::string& field,
                         const std::string& message) {
  return json::object{{"reason", type}, {"message", message}, {"field", field}};
}

}  // namespace kp::sim::kube
