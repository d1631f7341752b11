#pragma once
// JSON codecs for the modelled objects (see core_v1.hpp, apps_v1.hpp, ... karpenter_v1.hpp,
// proxmox_v1alpha1.hpp, api_status.hpp). Decoding never throws: malformed JSON gives
// "invalid_json", a malformed object "invalid_object" with the kind and field path in the
// message ("Pod spec.containers[0].name: expected a string, got a number"). Encoding writes
// apiVersion and kind and omits empty fields, as Go's omitempty does.
//
// The templates are instantiated in protocol/kube for every modelled type only.
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "protocol/kube/meta_types.hpp"

namespace boost::json {
class value;
}

namespace kp::kube {

template <class T>
result<T> decode(std::string_view json);
template <class T>
result<T> decode_value(const boost::json::value& value);
// A List ("items" plus list metadata) of T.
template <class T>
result<object_list<T>> decode_list(std::string_view json);
template <class T>
std::string encode(const T& object);
template <class T>
boost::json::value encode_value(const T& object);

}  // namespace kp::kube
