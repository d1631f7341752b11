#pragma once
// The Go provider's NODE_SETTING_FILE (kpp.md section 7): per region and Proxmox host (or "*"
// for every host of the region), overrides of the host's CPU and NUMA topology and its
// reservations. config/node_settings_file.cpp reads the JSON (or YAML) text into these structs,
// keeping the line of every value; this file validates them and applies them to a topology,
// so core/ never sees yaml-cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/placement/host.hpp"
#include "core/result.hpp"

namespace kp::topology {

// A value as written in the file and where (1-based line, 0 when unknown).
template <class T>
struct located {
  T value{};
  int line = 0;
};

struct numa_node_setting {
  std::string id;  // the key under "nodes": a NUMA node id in decimal
  int line = 0;
  std::optional<located<std::string>> cpus;  // "0-7,16-23"
  // Bytes. The code's key is "memsize"; the Go provider's docs say "memory": both are read.
  std::optional<located<std::int64_t>> memory_bytes;
};

struct host_settings {
  std::string region;
  std::string host;  // a Proxmox node name, or "*"
  int line = 0;
  // Absent or zero: keep what was discovered (the Go provider's "non-zero fields override").
  std::optional<located<std::int64_t>> cores;  // physical cores per socket
  std::optional<located<std::int64_t>> sockets;
  std::optional<located<std::int64_t>> threads;        // per core
  std::optional<located<std::int64_t>> uncore_caches;  // kept for the Go provider's format only
  std::vector<numa_node_setting> numa_nodes;           // empty: keep the discovered NUMA nodes
  std::optional<located<std::string>> reserved_cpus;   // a CPU list ("0,4" or "0-1")
  std::optional<located<std::int64_t>> reserved_memory_bytes;
};

struct node_settings_file {
  std::string origin;  // for errors: "NODE_SETTING_FILE /etc/karpenter/nodes.json"
  std::vector<host_settings> hosts;
};

// Checks every entry on its own: CPU lists parse, NUMA ids are distinct non-negative integers,
// NUMA CPU lists are non-empty and disjoint, counts and sizes are not negative, reserved CPUs
// lie within the entry's NUMA nodes when it lists them, and sockets x cores x threads matches
// the NUMA CPUs when all are given. Errors are "invalid_node_settings" naming the origin, the
// line, region/host and the field: `NODE_SETTING_FILE f.json line 9: region-1/pve1:
// nodes.1.cpus "8-x": invalid CPU id "x" ...`.
status validate_node_settings(const node_settings_file& file);

// The entry for a host: its own, else the region's "*", else none (the Go provider's lookup:
// the two are not merged).
const host_settings* find_host_settings(const node_settings_file& file, std::string_view region,
                                        std::string_view host);

// `discovered` (from a topology VM or predicted from the node status) with the entry's
// non-zero fields applied. NUMA memory left out of the file is the discovered total split
// evenly. Errors as validate_node_settings, plus reserved CPUs outside the resulting topology.
result<placement::host_topology> apply_host_settings(const placement::host_topology& discovered,
                                                     const host_settings& settings,
                                                     std::string_view origin);

// find + apply; `discovered` unchanged when the file has no entry for the host.
result<placement::host_topology> topology_for_host(const node_settings_file& file,
                                                   std::string_view region, std::string_view host,
                                                   const placement::host_topology& discovered);

}  // namespace kp::topology
