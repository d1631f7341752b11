#pragma once
// Typed values of the Proxmox VE replies the product reads, and the parameters of the calls it
// makes. Plain structs without JSON: the client decodes into them, callers never see JSON.
// Numbers that Proxmox sometimes sends as strings (memory, nextid) are already converted.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kp::proxmox {

struct version_info {
  std::string version;  // "8.4.1"
  std::string release;  // "8.4"
  std::string repoid;
};

enum class resource_type { vm, node, storage };

// One entry of GET /cluster/resources; which fields are set depends on `type`.
struct cluster_resource {
  std::string id;    // qemu/101, node/pve1, storage/pve1/local-lvm
  std::string type;  // qemu, lxc, node, storage
  std::string node;
  std::string status;  // running, stopped, unknown, online, offline, available
  std::string name;
  std::uint32_t vmid = 0;
  bool template_ = false;
  std::string tags;  // raw, ';'-separated
  std::string pool;
  std::string lock;
  std::string storage;
  std::string content;     // storage: "images,rootdir"
  std::string plugintype;  // storage: lvmthin, lvm, zfspool, dir, nfs, rbd, ...
  bool shared = false;
  double cpu = 0;  // load 0..1 (times maxcpu for CPUs in use)
  double maxcpu = 0;
  std::uint64_t mem = 0;  // bytes
  std::uint64_t maxmem = 0;
  std::uint64_t disk = 0;
  std::uint64_t maxdisk = 0;
  std::uint64_t uptime = 0;
};

struct cpu_info {
  std::string model;
  unsigned cpus = 0;  // logical CPUs
  unsigned sockets = 0;
  unsigned cores = 0;  // physical cores summed over all sockets
};

struct node_status {
  double cpu = 0;  // 0..1
  cpu_info cpuinfo;
  std::uint64_t memory_total = 0;  // bytes
  std::uint64_t memory_used = 0;
  std::uint64_t memory_free = 0;
  std::uint64_t uptime = 0;
  std::string pveversion;
  std::vector<std::string> loadavg;
};

// One PCI resource mapping as GET /cluster/mapping/pci lists it: each `map` entry is one device
// on one host ("node=pve2,path=0000:01:00.0,id=10de:2204,...").
struct pci_resource_mapping {
  std::string id;
  bool mdev = false;
  std::vector<std::string> map;
};

struct network_interface {
  std::string iface;  // vmbr0, eno1
  std::string type;   // bridge, eth, bond, ...
  bool active = false;
  std::string cidr;
  std::string address;
  std::string gateway;
  std::string bridge_ports;
};

struct clone_request {
  std::string node;  // where the source lives
  std::uint32_t source_vmid = 0;
  std::uint32_t new_vmid = 0;
  std::string name;
  std::string description;
  bool full = true;     // a linked clone (false) needs a template as the source
  std::string target;   // another node; "" keeps the source's node
  std::string storage;  // full clones only
  std::string pool;
};

// POST /nodes/{node}/qemu: a new VM, typically importing a downloaded image, then maybe
// converted to a template.
struct create_vm_request {
  std::string node;
  std::uint32_t vmid = 0;
  // Every config key (name, memory, scsi0 with import-from, net0, ...), in order.
  std::vector<std::pair<std::string, std::string>> config;
};

struct download_url_request {
  std::string node;
  std::string storage;
  std::string content = "import";  // import, iso, vztmpl
  std::string filename;
  std::string url;
  std::string checksum;            // optional
  std::string checksum_algorithm;  // sha256, ...
  bool verify_certificates = true;
};

struct vm_status {
  std::uint32_t vmid = 0;
  std::string status;     // running, stopped
  std::string qmpstatus;  // running, paused, ...
  std::string name;
  std::string lock;
  std::string tags;
  bool template_ = false;
  bool agent = false;
  unsigned cpus = 0;
  std::uint64_t maxmem = 0;  // bytes
  std::uint64_t mem = 0;
  std::uint64_t uptime = 0;
  std::uint32_t pid = 0;
};

struct storage_info {
  std::string storage;
  std::string type;     // dir, lvmthin, nfs, ...
  std::string content;  // "iso,import,vztmpl"
  bool active = false;
  bool enabled = false;
  bool shared = false;
  std::uint64_t total = 0;
  std::uint64_t used = 0;
  std::uint64_t avail = 0;
};

struct storage_content {
  std::string volid;  // local:iso/seed.iso
  std::string content;
  std::string format;
  std::uint64_t size = 0;
  std::uint32_t vmid = 0;
  std::uint64_t ctime = 0;
};

struct iso_upload {
  std::string node;
  std::string storage;
  std::string filename;  // must end in .iso or .img
  std::string data;
  std::string content = "iso";
  std::string checksum;  // optional, e.g. sha256 hex
  std::string checksum_algorithm;
};

struct firewall_options {
  std::optional<bool> enable;
  std::optional<bool> dhcp;
  std::optional<bool> ipfilter;
  std::optional<bool> macfilter;
  std::string policy_in;  // ACCEPT, DROP, REJECT
  std::string policy_out;
  std::map<std::string, std::string> raw;  // every field as text
};

struct firewall_rule {
  std::optional<unsigned> pos;
  std::string type;    // in, out, group
  std::string action;  // ACCEPT, DROP, REJECT or the group name
  std::string iface;   // net0
  std::optional<bool> enable;
  std::string comment;
  std::string macro;
  std::string proto;
  std::string dport;
  std::string sport;
  std::string source;
  std::string dest;
};

struct firewall_group {
  std::string group;
  std::string comment;
};

struct pool_info {
  std::string poolid;
  std::string comment;
  std::vector<std::string> members;  // ids such as qemu/101 (GET /pools/{poolid} only)
};

struct agent_exec_status {
  bool exited = false;
  std::optional<int> exitcode;
  std::optional<int> signal;
  std::string out_data;
  std::string err_data;
  bool out_truncated = false;
  bool err_truncated = false;
};

struct task_status {
  std::string upid;
  std::string node;
  std::string type;
  std::string id;
  std::string user;
  std::string status;      // running, stopped
  std::string exitstatus;  // OK, WARNINGS: N, or the error text; "" while running

  bool running() const { return status == "running"; }
  // Proxmox counts "OK" and "WARNINGS: N" as success.
  bool succeeded() const {
    return status == "stopped" && (exitstatus == "OK" || exitstatus.rfind("WARNINGS:", 0) == 0);
  }
};

}  // namespace kp::proxmox
