#pragma once
// One immutable version of an object: the JSON value and its serialization, made once at write
// time so lists and every watcher reuse the same bytes. Versions are shared, never modified:
// a write stores a new version, and watch history holds old ones cheaply.
#include <boost/json/object.hpp>
#include <memory>
#include <string>

namespace kp::sim::kube {

struct stored_object {
  boost::json::object object;
  std::string text;  // serialize(object)
};

using object_ptr = std::shared_ptr<const stored_object>;

object_ptr make_stored(boost::json::object object);

}  // namespace kp::sim::kube
