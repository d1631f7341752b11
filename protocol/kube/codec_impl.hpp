#pragma once
// Internal to protocol/kube: definitions of the public codec templates and the macro that
// instantiates them for one object type (used in the codec_*.cpp files).
#include <boost/json.hpp>

#include "protocol/kube/codec.hpp"
#include "protocol/kube/codec_fields.hpp"
#include "protocol/kube/codec_io.hpp"

namespace kp::kube {

template <class T>
result<T> decode_value(const boost::json::value& value) {
  return codec::decode_object<T>(value, T::resource.kind);
}

template <class T>
result<T> decode(std::string_view json) {
  boost::json::monotonic_resource arena;
  auto v = codec::parse_json(json, &arena);
  if (!v) return v.error();
  return decode_value<T>(*v);
}

template <class T>
result<object_list<T>> decode_list(std::string_view json) {
  boost::json::monotonic_resource arena;
  auto v = codec::parse_json(json, &arena);
  if (!v) return v.error();
  const auto* obj = v->if_object();
  const std::string kind = std::string(T::resource.kind) + "List";
  if (!obj) return make_error("invalid_object", kind + ": expected an object");
  object_list<T> out;
  kp::error err;
  const codec::path_node root;
  codec::decoder d(*obj, root, err);
  d.nested("metadata", [&](codec::decoder& m) {
    m("resourceVersion", out.resource_version);
    m("continue", out.continue_token);
    m("remainingItemCount", out.remaining_item_count);
  });
  d("items", out.items);
  if (!err.code.empty()) {
    err.message = kind + " " + err.message;
    return err;
  }
  return out;
}

template <class T>
boost::json::value encode_value(const T& object) {
  return codec::encode_object(object, T::resource.api_version(), T::resource.kind);
}

template <class T>
std::string encode(const T& object) {
  return boost::json::serialize(encode_value(object));
}

}  // namespace kp::kube

#define KP_KUBE_INSTANTIATE_CODEC(T)                                                        \
  template kp::result<T> kp::kube::decode<T>(std::string_view);                             \
  template kp::result<T> kp::kube::decode_value<T>(const boost::json::value&);              \
  template kp::result<kp::kube::object_list<T>> kp::kube::decode_list<T>(std::string_view); \
  template std::string kp::kube::encode<T>(const T&);                                       \
  template boost::json::value kp::kube::encode_value<T>(const T&);

#define KP_KUBE_INSTANTIATE_FIELDS(T)                                                             \
  template void kp::kube::codec::fields<kp::kube::codec::decoder>(kp::kube::codec::decoder&, T&); \
  template void kp::kube::codec::fields<kp::kube::codec::encoder>(kp::kube::codec::encoder&, T&);
