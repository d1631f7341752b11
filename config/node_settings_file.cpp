#include "config/node_settings_file.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstring>

#include "config/text_file.hpp"

namespace kp::config {
namespace {

using topology::host_settings;
using topology::located;

struct context {
  std::string origin;  // "NODE_SETTING_FILE <path>"
  std::string region;
  std::string host;

  error fail(const YAML::Node& at, const std::string& why) const {
    std::string s = origin;
    if (at.Mark().line >= 0) s += " line " + std::to_string(at.Mark().line + 1);
    s += ": ";
    if (!region.empty()) s += region + (host.empty() ? "" : "/" + host) + ": ";
    return make_error("invalid_node_settings", s + why);
  }
};

int line_of(const YAML::Node& n) {
  return n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
}

std::string key_text(const YAML::Node& key) {
  return key.IsScalar() ? key.Scalar() : "?";
}

// A whole number of a count or a byte size. JSON numbers only: "8Gi" or 1.5 are refused with
// the reason, since the Go provider would refuse them too.
result<located<std::int64_t>> integer(const YAML::Node& n, const std::string& field,
                                      const context& c) {
  if (!n.IsScalar()) return c.fail(n, field + ": expected a whole number");
  const std::string& s = n.Scalar();
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
    return c.fail(n, field + " \"" + s + "\": expected a whole number" +
                         (field.find("mem") != std::string::npos ? " of bytes" : ""));
  }
  return located<std::int64_t>{v, line_of(n)};
}

result<located<std::string>> text(const YAML::Node& n, const std::string& field, const context& c) {
  if (!n.IsScalar()) return c.fail(n, field + ": expected a string");
  return located<std::string>{n.Scalar(), line_of(n)};
}

// [0, 4] or "0,4" / "0-1": a CPU list either way.
result<located<std::string>> cpu_list(const YAML::Node& n, const context& c) {
  if (n.IsNull()) return located<std::string>{"", line_of(n)};
  if (n.IsScalar()) return text(n, "reservedcpus", c);
  if (!n.IsSequence()) return c.fail(n, "reservedcpus: expected a list of CPU ids, e.g. [0, 4]");
  std::string list;
  for (const auto& item : n) {
    auto id = integer(item, "reservedcpus", c);
    if (!id) return id.error();
    if (id->value < 0) return c.fail(item, "reservedcpus: CPU ids are not negative");
    list += (list.empty() ? "" : ",") + std::to_string(id->value);
  }
  return located<std::string>{list, line_of(n)};
}

result<topology::numa_node_setting> read_numa_node(const YAML::Node& key, const YAML::Node& value,
                                                   const context& c) {
  topology::numa_node_setting n;
  n.id = key_text(key);
  n.line = line_of(key);
  const std::string prefix = "nodes." + n.id;
  if (!value.IsMap()) return c.fail(value, prefix + ": expected {\"cpus\": ..., \"memsize\": ...}");
  for (const auto& item : value) {
    std::string k = key_text(item.first);
    if (k == "cpus") {
      auto v = text(item.second, prefix + ".cpus", c);
      if (!v) return v.error();
      n.cpus = *v;
    } else if (k == "memsize" || k == "memory") {
      if (n.memory_bytes) return c.fail(item.first, prefix + ": both memsize and memory given");
      auto v = integer(item.second, prefix + "." + k, c);
      if (!v) return v.error();
      n.memory_bytes = *v;
    } else if (k == "threads") {
      // In the Go provider's sample file but not in its types: ignored there, so here too.
    } else {
      return c.fail(item.first, prefix + ": unknown key \"" + k +
                                    "\": allowed keys are cpus, memsize (or memory)");
    }
  }
  return n;
}

result<host_settings> read_host(const YAML::Node& key, const YAML::Node& value, const context& c) {
  host_settings h;
  h.region = c.region;
  h.host = c.host;
  h.line = line_of(key);
  if (!value.IsMap()) return c.fail(value, "expected a mapping of host settings");
  for (const auto& item : value) {
    std::string k = key_text(item.first);
    std::optional<located<std::int64_t>>* count = nullptr;
    if (k == "cores") count = &h.cores;
    if (k == "sockets") count = &h.sockets;
    if (k == "threads") count = &h.threads;
    if (k == "uncorecaches") count = &h.uncore_caches;
    if (k == "reservedmemory") count = &h.reserved_memory_bytes;
    if (count != nullptr) {
      auto v = integer(item.second, k, c);
      if (!v) return v.error();
      *count = *v;
    } else if (k == "reservedcpus") {
      auto v = cpu_list(item.second, c);
      if (!v) return v.error();
      h.reserved_cpus = *v;
    } else if (k == "nodes") {
      if (item.second.IsNull()) continue;
      if (!item.second.IsMap()) {
        return c.fail(item.second, "nodes: expected {\"<numa id>\": {\"cpus\": ..., ...}}");
      }
      for (const auto& numa : item.second) {
        auto n = read_numa_node(numa.first, numa.second, c);
        if (!n) return n.error();
        h.numa_nodes.push_back(std::move(*n));
      }
    } else {
      return c.fail(item.first, "unknown key \"" + k +
                                    "\": allowed keys are sockets, cores, threads, uncorecaches, "
                                    "nodes, reservedcpus, reservedmemory");
    }
  }
  return h;
}

}  // namespace

result<topology::node_settings_file> parse_node_settings(std::string_view text,
                                                         const std::string& source) {
  topology::node_settings_file file;
  file.origin = "NODE_SETTING_FILE " + source;
  context c{file.origin, "", ""};
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    std::string where = e.mark.line >= 0 ? " line " + std::to_string(e.mark.line + 1) : "";
    return make_error("invalid_node_settings",
                      file.origin + where + ": not valid JSON/YAML: " + e.msg);
  }
  if (!root || root.IsNull()) return file;  // an empty file overrides nothing
  if (!root.IsMap()) {
    return c.fail(root, "expected {\"<region>\": {\"<host>\" or \"*\": {...}}}");
  }
  for (const auto& region : root) {
    context rc{file.origin, key_text(region.first), ""};
    if (region.second.IsNull()) continue;
    if (!region.second.IsMap()) return rc.fail(region.second, "expected a mapping of hosts");
    for (const auto& host : region.second) {
      context hc{file.origin, rc.region, key_text(host.first)};
      auto h = read_host(host.first, host.second, hc);
      if (!h) return h.error();
      file.hosts.push_back(std::move(*h));
    }
  }
  if (auto valid = topology::validate_node_settings(file); !valid) return valid.error();
  return file;
}

result<topology::node_settings_file> load_node_settings_file(const std::string& path) {
  if (path.empty()) return topology::node_settings_file{};
  auto content = read_text_file(path);
  if (!content) {
    return make_error(content.error().code,
                      "NODE_SETTING_FILE " + path + ": " + content.error().message);
  }
  return parse_node_settings(*content, path);
}

}  // namespace kp::config
