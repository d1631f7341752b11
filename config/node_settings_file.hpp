#pragma once
// Reads NODE_SETTING_FILE, the Go provider's host topology overrides (kpp.md section 7):
//   {"<region>": {"<host>|*": {"sockets": 2, "cores": 8, "threads": 2, "uncorecaches": 2,
//     "nodes": {"0": {"cpus": "0-7,16-23", "memsize": 68719476736}, ...},
//     "reservedcpus": [0, 16], "reservedmemory": 1073741824}}}
// JSON as the Go provider documents it; YAML with the same shape is accepted too (yaml-cpp
// reads both and tells the line of every value). Unknown keys are refused (a misspelt key
// would otherwise silently do nothing); "memory" is read as "memsize" (the Go docs' spelling)
// and a NUMA node's "threads" (in the Go provider's sample) is ignored. reservedcpus may also be
// a CPU list string ("0-1,16"). The result is validated (core/topology/node_settings.hpp).
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "core/topology/node_settings.hpp"

namespace kp::config {

// `path` empty: no file configured, an empty result. Errors ("invalid_node_settings",
// "unreadable") start with "NODE_SETTING_FILE <path>" and name the line, region/host and field.
result<topology::node_settings_file> load_node_settings_file(const std::string& path);

// The same on text already read; `source` names it in errors.
result<topology::node_settings_file> parse_node_settings(std::string_view text,
                                                         const std::string& source);

}  // namespace kp::config
