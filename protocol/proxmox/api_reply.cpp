#include "protocol/proxmox/api_reply.hpp"

#include <boost/json.hpp>

#include <map>

#include "protocol/proxmox/api_error.hpp"

namespace kp::proxmox {

namespace json = boost::json;

namespace {

std::string first_line(std::string_view text) {
  auto end = text.find_first_of("\r\n");
  return std::string(text.substr(0, std::min<std::size_t>(end, 300)));
}

std::string as_text(const json::value& v) {
  if (v.is_string()) return std::string(v.as_string());
  return json::serialize(v);
}

}  // namespace

result<json::value> decode_reply(const transport::response_result& outcome) {
  if (!outcome.ok()) return transport_error(outcome.error());
  const auto& response = outcome.value();
  json::error_code ec;
  json::value body = json::parse(response.body, ec);
  const json::object* object = (!ec && body.is_object()) ? &body.as_object() : nullptr;

  if (response.status < 200 || response.status >= 300) {
    std::string message;
    std::map<std::string, std::string> parameter_errors;
    if (object != nullptr) {
      if (auto* m = object->if_contains("message"); m != nullptr && m->is_string()) {
        message = first_line(m->as_string());
      }
      if (auto* e = object->if_contains("errors"); e != nullptr && e->is_object()) {
        for (const auto& [name, why] : e->as_object()) {
          parameter_errors[std::string(name)] = first_line(as_text(why));
        }
      }
    } else if (!response.body.empty()) {
      message = first_line(response.body);
    }
    // Proxmox before 8.3 sends the message only in the status line's reason phrase.
    if (message.empty()) message = first_line(response.reason);
    return api_error(response.status, message, parameter_errors);
  }
  if (object == nullptr) {
    return make_error("invalid_reply", "status " + std::to_string(response.status) +
                                           " with a body that is not a JSON object: '" +
                                           first_line(response.body).substr(0, 100) + "'");
  }
  auto* data = object->if_contains("data");
  if (data == nullptr) return make_error("invalid_reply", "the reply has no \"data\" member");
  return json::value(std::move(*data));
}

}  // namespace kp::proxmox
