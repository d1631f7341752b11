#pragma once
// The Kubernetes Status error object (kind: Status) as a value, and a small result type that
// carries either a value or such an error. Every refusal of the simulator goes through here, so
// clients always see the real shape: HTTP code == Status.code, with reason and causes.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace kp::sim::kube {

struct api_error {
  int code = 500;
  std::string reason = "InternalError";
  std::string message;
  // details
  std::string name;
  std::string group;
  std::string kind;
  boost::json::array causes;  // {reason, message, field}
  int retry_after_seconds = 0;
  std::string continue_token;  // metadata.continue of a 410 for an expired continue token

  boost::json::object to_status() const;
};

// Constructors for the standard cases (messages worded as kube-apiserver words them).
api_error not_found(const std::string& resource, const std::string& group, const std::string& name);
api_error already_exists(const std::string& resource, const std::string& group,
                         const std::string& name);
api_error conflict(const std::string& resource, const std::string& group, const std::string& name,
                   const std::string& why);
api_error stale_conflict(const std::string& resource, const std::string& group,
                         const std::string& name);
api_error bad_request(const std::string& message);
api_error invalid(const std::string& kind, const std::string& group, const std::string& name,
                  boost::json::array causes);
api_error forbidden(const std::string& message);
api_error unauthorized();
api_error method_not_allowed(const std::string& message);
api_error gone(const std::string& message);
api_error unsupported_media_type(const std::string& content_type);
api_error too_many_requests(const std::string& message, boost::json::array causes,
                            int retry_after_seconds);
api_error internal_error(const std::string& message);

// One field-level cause of a 422.
boost::json::object field_cause(const std::string& type, const std::string& field,
                                const std::string& message);

template <class T>
class [[nodiscard]] api_result {
 public:
  api_result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT
  api_result(api_error e) : v_(std::in_place_index<1>, std::move(e)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const {
    assert(ok());
    return std::get<0>(v_);
  }
  T* operator->() { return &value(); }
  T& operator*() { return value(); }
  const api_error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }

 private:
  std::variant<T, api_error> v_;
};

struct api_ok {};
using api_status = api_result<api_ok>;

}  // namespace kp::sim::kube
