#include "test/chart/code_api_calls.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "protocol/kube/apps_v1.hpp"
#include "protocol/kube/autoscaling_v1beta1.hpp"
#include "protocol/kube/certificates_v1.hpp"
#include "protocol/kube/coordination_v1.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/karpenter_v1.hpp"
#include "protocol/kube/karpenter_v1alpha1.hpp"
#include "protocol/kube/policy_v1.hpp"
#include "protocol/kube/proxmox_v1alpha1.hpp"
#include "protocol/kube/storage_v1.hpp"

namespace kp::test {
namespace {

namespace fs = std::filesystem;

struct resource_name {
  std::string group;
  std::string plural;
};

// Every object type of protocol/kube, by the name the code spells after "kube::".
const std::map<std::string, resource_name>& resources() {
#define KP_KIND(T)                                                                \
  {                                                                               \
#T, {                                                                         \
      std::string(kube::T::resource.group), std::string(kube::T::resource.plural) \
    }                                                                             \
  }
  static const std::map<std::string, resource_name> m{KP_KIND(daemon_set),
                                                      KP_KIND(replica_set),
                                                      KP_KIND(deployment),
                                                      KP_KIND(stateful_set),
                                                      KP_KIND(lease),
                                                      KP_KIND(pod),
                                                      KP_KIND(node),
                                                      KP_KIND(namespace_object),
                                                      KP_KIND(secret),
                                                      KP_KIND(config_map),
                                                      KP_KIND(event),
                                                      KP_KIND(persistent_volume),
                                                      KP_KIND(persistent_volume_claim),
                                                      KP_KIND(node_claim),
                                                      KP_KIND(node_pool),
                                                      KP_KIND(node_overlay),
                                                      KP_KIND(pod_disruption_budget),
                                                      KP_KIND(proxmox_node_class),
                                                      KP_KIND(proxmox_template),
                                                      KP_KIND(proxmox_unmanaged_template),
                                                      KP_KIND(csi_node),
                                                      KP_KIND(storage_class),
                                                      KP_KIND(volume_attachment),
                                                      KP_KIND(certificate_signing_request),
                                                      KP_KIND(capacity_buffer),
                                                      KP_KIND(pod_template)};
#undef KP_KIND
  return m;
}

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::size_t line_of(const std::string& text, std::size_t pos) {
  std::size_t n = 1;
  for (std::size_t i = 0; i < pos && i < text.size(); ++i) n += text[i] == '\n';
  return n;
}

// The text between the '(' at `open` and its matching ')', skipping string and char literals.
std::string call_arguments(const std::string& text, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"' || c == '\'') {
      for (++i; i < text.size() && text[i] != c; ++i) {
        if (text[i] == '\\') ++i;
      }
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')' && --depth == 0) return text.substr(open + 1, i - open - 1);
  }
  return {};
}

std::string trim_right(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s;
}

// The types a function template enclosing `pos` is instantiated with in this file:
// `name<kube::X>(` anywhere in the text.
std::vector<std::string> instantiations(const std::string& text, std::size_t pos) {
  auto t = text.rfind("template <class T>", pos);
  if (t == std::string::npos) return {};
  auto paren = text.find('(', t);
  if (paren == std::string::npos || paren > pos) return {};
  auto end = paren;
  auto begin = end;
  while (begin > 0 && ident_char(text[begin - 1])) --begin;
  const std::string name = text.substr(begin, end - begin);
  std::vector<std::string> out;
  const std::string needle = name + "<kube::";
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    if (at > 0 && ident_char(text[at - 1])) continue;
    auto close = text.find('>', at);
    out.push_back(text.substr(at + needle.size(), close - at - needle.size()));
  }
  return out;
}

void scan_file(const fs::path& path, const std::string& shown, scan_result& out) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  auto add = [&](const std::string& type, const std::string& sub, const std::string& verb,
                 std::size_t pos) {
    const auto where = shown + ":" + std::to_string(line_of(text, pos));
    auto it = resources().find(type);
    if (it == resources().end()) {
      out.problems.push_back(where + ": unknown kube type " + type);
      return;
    }
    out.calls.push_back(
        {it->second.group, it->second.plural + (sub.empty() ? "" : "/" + sub), verb, where});
  };

  static const std::map<std::string, std::vector<std::string>> verbs{
      {"get", {"get"}},       {"create", {"create"}},
      {"update", {"update"}}, {"update_status", {"update"}},
      {"patch", {"patch"}},   {"remove", {"delete"}},
      {"list", {"list"}},     {"update_with_retry", {"get", "update"}},
      {"get_scale", {"get"}}};

  for (auto at = text.find("->"); at != std::string::npos; at = text.find("->", at + 2)) {
    std::size_t i = at + 2;
    if (text.compare(i, 9, "template ") == 0) i += 9;
    std::size_t name_end = i;
    while (name_end < text.size() && ident_char(text[name_end])) ++name_end;
    const std::string name = text.substr(i, name_end - i);
    if (name == "evict" && name_end < text.size() && text[name_end] == '(') {
      add("pod", "eviction", "create", at);
      continue;
    }
    auto v = verbs.find(name);
    if (v == verbs.end() || name_end >= text.size() || text[name_end] != '<') continue;
    auto close = text.find('>', name_end);
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != '(') continue;
    std::string type = text.substr(name_end + 1, close - name_end - 1);
    std::vector<std::string> types;
    if (type.rfind("kube::", 0) == 0) {
      types.push_back(type.substr(6));
    } else if (type == "T") {
      types = instantiations(text, at);
      if (types.empty()) {
        out.problems.push_back(shown + ":" + std::to_string(line_of(text, at)) +
                               ": cannot tell which types " + name + "<T> is called with");
      }
    } else {
      continue;  // not a Kubernetes object (another client's template method)
    }
    std::string sub;
    if (name == "update_status") sub = "status";
    if (name == "get_scale") sub = "scale";
    if (name == "patch" && trim_right(call_arguments(text, close + 1)).ends_with("\"status\"")) {
      sub = "status";
    }
    for (const auto& t : types) {
      for (const auto& verb : v->second) add(t, sub, verb, at);
    }
  }
  // Informers: one list-then-watch loop per kind.
  const std::string informer = "add.operator()<kube::";
  for (auto at = text.find(informer); at != std::string::npos; at = text.find(informer, at + 1)) {
    auto close = text.find('>', at);
    const auto type = text.substr(at + informer.size(), close - at - informer.size());
    add(type, "", "list", at);
    add(type, "", "watch", at);
  }
}

}  // namespace

scan_result scan_api_calls(const std::string& source_dir, const std::vector<std::string>& dirs) {
  scan_result out;
  for (const auto& dir : dirs) {
    const fs::path root = fs::path(source_dir) / dir;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (e.path().extension() != ".cpp") continue;
      scan_file(e.path(), fs::relative(e.path(), source_dir).string(), out);
    }
  }
  return out;
}

std::set<std::tuple<std::string, std::string, std::string>> permissions_of(
    const std::vector<api_call>& calls) {
  std::set<std::tuple<std::string, std::string, std::string>> out;
  for (const auto& c : calls) out.emplace(c.group, c.resource, c.verb);
  return out;
}

}  // namespace kp::test
