#pragma once
// Request bodies in Kubernetes' protobuf encoding (Content-Type
// application/vnd.kubernetes.protobuf): the "k8s\0" magic, a runtime.Unknown envelope naming
// apiVersion and kind, and the object's message. kubectl 1.32's typed clients send these for
// `create namespace|secret|configmap|deployment|job`; kube-sim decodes the messages of those
// kinds (the fields of k8s.io/api's generated.proto they use) into the JSON the API works on,
// as Go's encoding/json would write them (zero scalars omitted unless the field is a pointer).
// A field it does not know is refused with a 415 naming it, never dropped.
#include <boost/json/object.hpp>
#include <string_view>

#include "sim/kube/api_error.hpp"

namespace kp::sim::kube {

inline constexpr std::string_view protobuf_content_type = "application/vnd.kubernetes.protobuf";

api_result<boost::json::object> decode_protobuf_object(std::string_view body);

}  // namespace kp::sim::kube
