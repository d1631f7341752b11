#pragma once
// Snapshot objects from YAML documents, as tests build them: each document is decoded with the
// controller's codec into a shared object map keyed as the informers key them. A document that
// does not decode fails the test that gave it.
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "protocol/kube/codec.hpp"
#include "sim/lab/yaml_json.hpp"

namespace kp::test_support {

template <class T>
protocol::shared_objects<T> objects_from_yaml(const std::string& yaml) {
  auto map = std::make_shared<protocol::object_map<T>>();
  auto docs = lab::yaml_documents_to_json(yaml);
  EXPECT_TRUE(docs.ok());
  if (!docs.ok()) return map;
  for (const auto& d : *docs) {
    auto o = kube::decode_value<T>(d);
    EXPECT_TRUE(o.ok()) << (o.ok() ? "" : o.error().message);
    if (o.ok()) (*map)[protocol::object_key_of(*o)] = std::make_shared<const T>(*o);
  }
  return map;
}

}  // namespace kp::test_support
