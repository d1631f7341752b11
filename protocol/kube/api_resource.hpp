#pragma once
// Where an object kind lives on the API server: its group, version, kind and plural, and
// whether it is namespaced. Every object type carries one as `T::resource`, so the client can
// build URLs and the codecs can write apiVersion and kind.
#include <string>
#include <string_view>

namespace kp::kube {

struct api_resource {
  std::string_view group;  // "" for the core group
  std::string_view version;
  std::string_view kind;
  std::string_view plural;
  bool namespaced = false;

  // "v1" or "group/version".
  std::string api_version() const {
    return group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
  }
  // "/api/v1" or "/apis/group/version".
  std::string base_path() const {
    return group.empty() ? "/api/" + std::string(version)
                         : "/apis/" + std::string(group) + "/" + std::string(version);
  }
};

}  // namespace kp::kube
