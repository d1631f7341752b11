#pragma once
// The Kubernetes API calls the controller's code makes, read from its sources: every kube::client
// call (get, get_scale, create, update, update_status, update_with_retry, patch, remove, evict) with the
// object type it names, and every informer (list and watch). A call through a template parameter
// (`get<T>`) counts once for each type the enclosing function template is instantiated with in
// the same file. The result is what RBAC must grant: (API group, resource[/subresource], verb).
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace kp::test {

struct api_call {
  std::string group;     // "" = core
  std::string resource;  // "nodeclaims", "nodeclaims/status", "pods/eviction"
  std::string verb;      // get, list, watch, create, update, patch, delete
  std::string where;     // "file.cpp:line", for messages
  friend bool operator<(const api_call& a, const api_call& b) {
    return std::tie(a.group, a.resource, a.verb) < std::tie(b.group, b.resource, b.verb);
  }
};

struct scan_result {
  std::vector<api_call> calls;
  std::vector<std::string> problems;  // calls the scanner could not resolve
};

// Scans every .cpp under `dirs` (relative to `source_dir`).
scan_result scan_api_calls(const std::string& source_dir, const std::vector<std::string>& dirs);

// (group, resource, verb) of each call, without duplicates.
std::set<std::tuple<std::string, std::string, std::string>> permissions_of(
    const std::vector<api_call>& calls);

}  // namespace kp::test
