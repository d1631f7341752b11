#pragma once
// The simulated Proxmox cluster as a YAML file describes it: hosts with their CPU and NUMA
// layout, storages, bridges, the VMs that exist at start (templates, the topology VM), users
// and tokens, pools, firewall groups, PCI resource mappings and task durations. docs/pve-sim.md
// documents the format.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace kp::sim::pve {

struct numa_node_spec {
  int id = 0;
  std::string cpus;          // host CPU list, e.g. "0-7,16-23"
  std::uint64_t memory = 0;  // bytes
};

struct bridge_spec {
  std::string name;  // vmbr0
  std::string cidr;  // address of the host on it, e.g. 192.168.10.11/24
  std::string gateway;
};

struct host_spec {
  std::string name;
  int sockets = 1;
  int cores = 1;             // per socket
  int threads = 1;           // per core
  std::uint64_t memory = 0;  // bytes
  std::string cpu_model;
  std::vector<numa_node_spec> numa;
  std::vector<std::string> storages;  // names from topology::storages available on this host
  std::vector<bridge_spec> bridges;
  int logical_cpus() const { return sockets * cores * threads; }
};

struct storage_spec {
  std::string name;
  std::string type = "dir";          // dir, lvmthin, ...
  std::vector<std::string> content;  // images, rootdir, iso, import, snippets, ...
  bool shared = false;
  std::uint64_t size = 0;  // bytes, per host
};

// A VM present at start; `config` holds Proxmox config keys and raw values.
struct vm_spec {
  int vmid = 0;
  std::string node;
  std::map<std::string, std::string> config;
};

struct token_spec {
  std::string id;      // the part after '!'
  std::string secret;  // a lowercase UUID
};

struct user_spec {
  std::string userid;  // user@realm
  std::string password;
  std::vector<token_spec> tokens;
};

struct firewall_rule_spec {
  std::map<std::string, std::string> fields;  // type, action, proto, dport, enable, ...
};

struct firewall_group_spec {
  std::string name;
  std::string comment;
  std::vector<firewall_rule_spec> rules;
};

// One PCI device of a resource mapping on one host: the `map` entry Proxmox keeps for it.
struct pci_device_spec {
  std::string node;
  std::string path;          // 0000:01:00.0 (several joined with ';' for a multi-function set)
  std::string id;            // vendor:device, e.g. 10de:2204
  std::string subsystem_id;  // optional
  int iommugroup = -1;       // optional (-1 = not given)
  std::string description;   // optional
};

// A cluster-wide PCI resource mapping (/cluster/mapping/pci). `resource` is the extended
// resource a guest's Node advertises per device it holds (as a device plugin would); empty =
// none. Mapping "gpu" defaults to nvidia.com/gpu.
struct pci_mapping_spec {
  std::string id;
  std::string description;
  bool mdev = false;
  std::string resource;
  std::vector<pci_device_spec> devices;
};

struct pool_spec {
  std::string id;
  std::string comment;
};

struct topology {
  std::string cluster_name = "pve-sim";
  std::string version = "8.4.1";
  std::string region = "pve-sim";  // region used in providerIDs of guests that join
  // Proxmox lists a VM without RRD data by its identity alone. While `strict_rrd` is off, a new
  // VM still shows its name and template flag during rrd_lag (what the product's region and
  // template actors rely on today); an offline host's VMs are identity-only once its data
  // expires either way.
  bool strict_rrd = false;
  std::vector<host_spec> hosts;
  std::vector<storage_spec> storages;
  std::vector<vm_spec> vms;
  std::vector<user_spec> users;
  std::vector<pool_spec> pools;
  std::vector<firewall_group_spec> firewall_groups;
  std::vector<pci_mapping_spec> pci_mappings;
  // Durations in milliseconds at --time-scale 1, by name (qmclone, qmstart, boot, ...).
  std::map<std::string, double> durations;
  // The `faults` section kept as YAML text; faults.hpp parses it.
  std::string faults_yaml;

  const host_spec* find_host(const std::string& name) const;
  const storage_spec* find_storage(const std::string& name) const;
  const pci_mapping_spec* find_pci_mapping(const std::string& id) const;
};

// The documented defaults: durations every topology starts from.
std::map<std::string, double> default_durations();

// The YAML text of the default topology (what --print-default-topology prints).
const std::string& default_topology_yaml();

// Parses a topology; names the offending field on error.
result<topology> parse_topology(const std::string& yaml_text);

// Parses "128Gi", "64GiB", "512Mi", "1Ti" or plain bytes.
result<std::uint64_t> parse_byte_quantity(const std::string& text);

}  // namespace kp::sim::pve
