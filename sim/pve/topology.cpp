#include "sim/pve/topology.hpp"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cstdint>
#include <exception>

#include "sim/pve/number_text.hpp"
#include "sim/pve/parameter_checks.hpp"

namespace kp::sim::pve {

namespace {

// One host of the default cluster; the three differ only in name, addresses, MACs and VMIDs.
std::string default_host_yaml(int index) {
  const std::string n = std::to_string(index);
  return "  - name: pve" + n +
         "\n"
         "    sockets: 2\n"
         "    cores: 8\n"
         "    threads: 2\n"
         "    memory: 128Gi\n"
         "    cpu_model: Intel(R) Xeon(R) Gold 6134 CPU @ 3.20GHz\n"
         "    numa:\n"
         "      - {id: 0, cpus: \"0-7,16-23\", memory: 64Gi}\n"
         "      - {id: 1, cpus: \"8-15,24-31\", memory: 64Gi}\n"
         "    storages: [local-lvm, local]\n"
         "    bridges:\n"
         "      - {name: vmbr0, cidr: 192.168.10.1" +
         n + "/24, gateway: 192.168.10.1}\n";
}

std::string default_vms_yaml(int index) {
  const std::string n = std::to_string(index);
  return "  - vmid: 900" + n + "\n    node: pve" + n +
         "\n"
         "    config:\n"
         "      name: k8s-template\n"
         "      template: \"1\"\n"
         "      description: Cloud-init ready Kubernetes node template\n"
         "      ostype: l26\n"
         "      sockets: \"1\"\n"
         "      cores: \"2\"\n"
         "      memory: \"2048\"\n"
         "      cpu: host\n"
         "      scsihw: virtio-scsi-single\n"
         "      scsi0: local-lvm:base-900" +
         n +
         "-disk-0,iothread=1,size=10G\n"
         "      net0: virtio=BC:24:11:00:90:0" +
         n +
         ",bridge=vmbr0,firewall=1\n"
         "      boot: order=scsi0\n"
         "      agent: \"1\"\n"
         "      ipconfig0: ip=dhcp\n"
         "      serial0: socket\n"
         "      vga: serial0\n"
         "      meta: creation-qemu=8.1.5,ctime=1700000000\n"
         "      smbios1: uuid=6c6f6361-6c00-4000-8000-00000000900" +
         n +
         "\n"
         "  - vmid: 990" +
         n + "\n    node: pve" + n +
         "\n"
         "    config:\n"
         "      name: node-capacity\n"
         "      tags: karpenter\n"
         "      description: Karpenter discovery service\n"
         "      ostype: l26\n"
         "      sockets: \"1\"\n"
         "      cores: \"32\"\n"
         "      cpu: host\n"
         "      numa: \"1\"\n"
         "      affinity: 0-7,16-23,8-15,24-31\n"
         "      numa0: cpus=0-15,hostnodes=0,memory=64512\n"
         "      numa1: cpus=16-31,hostnodes=1,memory=64512\n"
         "      memory: \"129024\"\n";
}

std::string build_default_topology() {
  std::string y =
      "# pve-sim default topology (pve-sim --print-default-topology)\n"
      "cluster: {name: pve-sim, version: 8.4.1, region: pve-sim}\n"
      "hosts:\n";
  for (int i = 1; i <= 3; ++i) y += default_host_yaml(i);
  y +=
      "storages:\n"
      "  - {name: local-lvm, type: lvmthin, content: [images, rootdir], shared: false, size: 1Ti}\n"
      "  - {name: local, type: dir, content: [iso, import, vztmpl, snippets, backup], shared: "
      "false, size: 200Gi}\n"
      "vms:\n";
  for (int i = 1; i <= 3; ++i) y += default_vms_yaml(i);
  y += "users:\n"
       "  - {userid: root@pam, password: pve-sim-root}\n"
       "  - userid: kubernetes@pve\n"
       "    tokens:\n"
       "      - {id: karpenter, secret: 5e1f0a7c-0d1e-4c2a-9b3f-6a7d8e9f0a1b}\n"
       "pools:\n"
       "  - {id: kubernetes, comment: Kubernetes nodes}\n"
       "firewall_groups:\n"
       "  - name: kubernetes\n"
       "    comment: Kubernetes node traffic\n"
       "    rules:\n"
       "      - {type: in, action: ACCEPT, proto: tcp, dport: \"10250\", enable: \"1\"}\n"
       "      - {type: in, action: ACCEPT, proto: tcp, dport: \"30000:32767\", enable: \"1\"}\n"
       "# PCI resource mappings (/cluster/mapping/pci); `resource` is what a guest's Node\n"
       "# advertises per device it holds.\n"
       "pci_mappings:\n"
       "  - id: gpu\n"
       "    description: NVIDIA GeForce RTX 3090\n"
       "    resource: nvidia.com/gpu\n"
       "    devices:\n"
       "      - {node: pve2, path: \"0000:01:00.0\", id: \"10de:2204\", subsystem_id: "
       "\"10de:147d\", iommugroup: 14}\n"
       "      - {node: pve3, path: \"0000:01:00.0\", id: \"10de:2204\", subsystem_id: "
       "\"10de:147d\", iommugroup: 14}\n"
       "      - {node: pve3, path: \"0000:41:00.0\", id: \"10de:2204\", subsystem_id: "
       "\"10de:147d\", iommugroup: 40}\n"
       "# Task and guest durations in milliseconds at --time-scale 1 (all are scaled).\n"
       "durations:\n";
  for (const auto& [name, ms] : default_durations()) {
    y += "  " + name + ": " + std::to_string(static_cast<long long>(ms)) + "\n";
  }
  y += "# faults: {...}  # optional, the format of /sim/v1/faults (see docs/pve-sim.md)\n";
  return y;
}

std::string scalar(const YAML::Node& n) {
  return n.IsDefined() && n.IsScalar() ? n.as<std::string>() : "";
}

bool hex_group(std::string_view s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return false;
  for (std::size_t i = at; i < at + n; ++i)
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// A full PCI address: dddd:bb:ss.f (domain of 4+ hex digits; the function may be omitted).
bool valid_pci_address(std::string_view a) {
  auto colon = a.find(':');
  if (colon == std::string_view::npos || colon < 4 || !hex_group(a, 0, colon)) return false;
  auto rest = a.substr(colon + 1);
  if (rest.size() != 5 && rest.size() != 7) return false;
  if (!hex_group(rest, 0, 2) || rest[2] != ':' || !hex_group(rest, 3, 2)) return false;
  return rest.size() == 5 || (rest[5] == '.' && hex_group(rest, 6, 1));
}

bool valid_pci_path(const std::string& path) {
  std::size_t start = 0;
  while (true) {
    auto semi = path.find(';', start);
    if (!valid_pci_address(std::string_view(path).substr(start, semi - start))) return false;
    if (semi == std::string::npos) return true;
    start = semi + 1;
  }
}

bool valid_vendor_device(const std::string& id) {
  return id.size() == 9 && id[4] == ':' && hex_group(id, 0, 4) && hex_group(id, 5, 4);
}

result<pci_mapping_spec> parse_pci_mapping(const YAML::Node& m, const topology& t) {
  pci_mapping_spec ms;
  ms.id = scalar(m["id"]);
  const std::string f = "pci_mappings." + ms.id;
  if (!is_config_id(ms.id))
    return make_error("invalid_topology", "pci_mappings[].id '" + ms.id +
                                              "' is not a configuration ID ([a-z][a-z0-9_-]+)");
  if (t.find_pci_mapping(ms.id)) return make_error("invalid_topology", f + " is listed twice");
  ms.description = scalar(m["description"]);
  if (m["mdev"]) ms.mdev = m["mdev"].as<bool>();
  ms.resource = m["resource"] ? scalar(m["resource"]) : (ms.id == "gpu" ? "nvidia.com/gpu" : "");
  for (const auto& d : m["devices"]) {
    pci_device_spec ds;
    ds.node = scalar(d["node"]);
    ds.path = scalar(d["path"]);
    ds.id = scalar(d["id"]);
    ds.subsystem_id = scalar(d["subsystem_id"]);
    ds.description = scalar(d["description"]);
    if (d["iommugroup"]) ds.iommugroup = d["iommugroup"].as<int>();
    if (!t.find_host(ds.node))
      return make_error("invalid_topology", f + ".devices names unknown host '" + ds.node + "'");
    if (!valid_pci_path(ds.path))
      return make_error("invalid_topology", f + ".devices.path '" + ds.path +
                                                "' is not a PCI address like 0000:01:00.0");
    if (!valid_vendor_device(ds.id))
      return make_error("invalid_topology",
                        f + ".devices.id '" + ds.id + "' is not vendor:device like 10de:2204");
    if (!ds.subsystem_id.empty() && !valid_vendor_device(ds.subsystem_id))
      return make_error("invalid_topology", f + ".devices.subsystem_id '" + ds.subsystem_id +
                                                "' is not vendor:device like 10de:147d");
    ms.devices.push_back(std::move(ds));
  }
  return ms;
}

}  // namespace

std::map<std::string, double> default_durations() {
  return {
      {"qmclone", 1000},
      {"full_clone_per_gib_ms", 500},
      {"qmcreate", 500},
      {"qmtemplate", 300},
      {"qmconfig", 100},
      {"resize", 200},
      {"qmstart", 400},
      {"qmstop", 200},
      {"qmshutdown", 500},
      {"qmdestroy", 300},
      {"imgcopy", 200},
      {"imgdel", 100},
      {"download", 1500},
      {"boot", 1000},
      {"agent", 300},
      {"rrd_lag", 2000},
      {"rrd_expiry", 300000},
      {"lease_renew", 10000},
      {"auth_failure_delay", 3000},
      {"csr_poll", 100},
  };
}

const std::string& default_topology_yaml() {
  static const std::string text = build_default_topology();
  return text;
}

const host_spec* topology::find_host(const std::string& name) const {
  for (const auto& h : hosts)
    if (h.name == name) return &h;
  return nullptr;
}

const storage_spec* topology::find_storage(const std::string& name) const {
  for (const auto& s : storages)
    if (s.name == name) return &s;
  return nullptr;
}

const pci_mapping_spec* topology::find_pci_mapping(const std::string& id) const {
  for (const auto& m : pci_mappings)
    if (m.id == id) return &m;
  return nullptr;
}

result<std::uint64_t> parse_byte_quantity(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0) return make_error("invalid_quantity", "'" + text + "' is not a byte quantity");
  auto value = parse_number<std::uint64_t>(std::string_view(text).substr(0, i));
  if (!value) return make_error("invalid_quantity", "'" + text + "' is too large");
  std::string unit = text.substr(i);
  if (unit.size() == 3 && unit[2] == 'B') unit.pop_back();  // GiB -> Gi
  static const std::map<std::string, std::uint64_t> units = {{"", 1},
                                                             {"Ki", 1ull << 10},
                                                             {"Mi", 1ull << 20},
                                                             {"Gi", 1ull << 30},
                                                             {"Ti", 1ull << 40},
                                                             {"K", 1ull << 10},
                                                             {"M", 1ull << 20},
                                                             {"G", 1ull << 30},
                                                             {"T", 1ull << 40}};
  auto it = units.find(unit);
  if (it == units.end())
    return make_error("invalid_quantity", "'" + text + "' has an unknown unit '" + unit + "'");
  if (*value > UINT64_MAX / it->second)
    return make_error("invalid_quantity", "'" + text + "' is too large");
  return *value * it->second;
}

result<topology> parse_topology(const std::string& yaml_text) {
  topology t;
  t.durations = default_durations();
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const std::exception& e) {
    return make_error("invalid_topology", std::string("topology is not valid YAML: ") + e.what());
  }
  if (!root.IsMap()) return make_error("invalid_topology", "topology must be a YAML mapping");
  auto bytes = [](const YAML::Node& n, const std::string& field) -> result<std::uint64_t> {
    if (!n) return std::uint64_t{0};
    auto r = parse_byte_quantity(scalar(n));
    if (!r) return make_error("invalid_topology", field + ": " + r.error().message);
    return r;
  };
  try {
    if (auto c = root["cluster"]) {
      if (c["name"]) t.cluster_name = scalar(c["name"]);
      if (c["version"]) t.version = scalar(c["version"]);
      if (c["region"]) t.region = scalar(c["region"]);
      if (c["strict_rrd"]) t.strict_rrd = c["strict_rrd"].as<bool>();
    }
    for (const auto& s : root["storages"]) {
      storage_spec st;
      st.name = scalar(s["name"]);
      if (st.name.empty()) return make_error("invalid_topology", "storages[].name is required");
      if (s["type"]) st.type = scalar(s["type"]);
      for (const auto& c : s["content"]) st.content.push_back(scalar(c));
      if (s["shared"]) st.shared = s["shared"].as<bool>();
      auto size = bytes(s["size"], "storages." + st.name + ".size");
      if (!size) return size.error();
      st.size = *size ? *size : (1ull << 40);
      t.storages.push_back(std::move(st));
    }
    for (const auto& h : root["hosts"]) {
      host_spec hs;
      hs.name = scalar(h["name"]);
      if (hs.name.empty()) return make_error("invalid_topology", "hosts[].name is required");
      const std::string f = "hosts." + hs.name;
      if (h["sockets"]) hs.sockets = h["sockets"].as<int>();
      if (h["cores"]) hs.cores = h["cores"].as<int>();
      if (h["threads"]) hs.threads = h["threads"].as<int>();
      if (hs.sockets < 1 || hs.cores < 1 || hs.threads < 1)
        return make_error("invalid_topology", f + ": sockets, cores and threads must be >= 1");
      auto mem = bytes(h["memory"], f + ".memory");
      if (!mem) return mem.error();
      hs.memory = *mem;
      if (hs.memory == 0) return make_error("invalid_topology", f + ".memory is required");
      hs.cpu_model = h["cpu_model"] ? scalar(h["cpu_model"]) : "QEMU Virtual CPU";
      for (const auto& n : h["numa"]) {
        numa_node_spec ns;
        ns.id = n["id"].as<int>();
        ns.cpus = scalar(n["cpus"]);
        auto nm = bytes(n["memory"], f + ".numa.memory");
        if (!nm) return nm.error();
        ns.memory = *nm;
        hs.numa.push_back(ns);
      }
      if (hs.numa.empty()) {
        // One NUMA node holding every CPU and all memory.
        hs.numa.push_back({0, "0-" + std::to_string(hs.logical_cpus() - 1), hs.memory});
      }
      for (const auto& s : h["storages"]) {
        std::string name = scalar(s);
        if (!t.find_storage(name))
          return make_error("invalid_topology",
                            f + ".storages names unknown storage '" + name + "'");
        hs.storages.push_back(name);
      }
      if (!h["storages"])
        for (const auto& s : t.storages) hs.storages.push_back(s.name);
      for (const auto& b : h["bridges"]) {
        hs.bridges.push_back({scalar(b["name"]), scalar(b["cidr"]), scalar(b["gateway"])});
      }
      if (t.find_host(hs.name)) return make_error("invalid_topology", f + " is listed twice");
      t.hosts.push_back(std::move(hs));
    }
    if (t.hosts.empty()) return make_error("invalid_topology", "topology needs at least one host");
    for (const auto& v : root["vms"]) {
      vm_spec vs;
      vs.vmid = v["vmid"].as<int>();
      vs.node = scalar(v["node"]);
      if (!t.find_host(vs.node))
        return make_error("invalid_topology", "vms." + std::to_string(vs.vmid) +
                                                  ".node names unknown host '" + vs.node + "'");
      for (const auto& kv : v["config"]) vs.config[kv.first.as<std::string>()] = scalar(kv.second);
      for (const auto& other : t.vms)
        if (other.vmid == vs.vmid)
          return make_error("invalid_topology",
                            "vmid " + std::to_string(vs.vmid) + " is listed twice");
      t.vms.push_back(std::move(vs));
    }
    for (const auto& u : root["users"]) {
      user_spec us;
      us.userid = scalar(u["userid"]);
      if (us.userid.find('@') == std::string::npos)
        return make_error("invalid_topology",
                          "users[].userid must be user@realm, got '" + us.userid + "'");
      if (u["password"]) us.password = scalar(u["password"]);
      for (const auto& tk : u["tokens"])
        us.tokens.push_back({scalar(tk["id"]), scalar(tk["secret"])});
      t.users.push_back(std::move(us));
    }
    for (const auto& p : root["pools"]) t.pools.push_back({scalar(p["id"]), scalar(p["comment"])});
    for (const auto& g : root["firewall_groups"]) {
      firewall_group_spec gs;
      gs.name = scalar(g["name"]);
      gs.comment = scalar(g["comment"]);
      for (const auto& r : g["rules"]) {
        firewall_rule_spec rs;
        for (const auto& kv : r) rs.fields[kv.first.as<std::string>()] = scalar(kv.second);
        gs.rules.push_back(std::move(rs));
      }
      t.firewall_groups.push_back(std::move(gs));
    }
    for (const auto& m : root["pci_mappings"]) {
      auto mapping = parse_pci_mapping(m, t);
      if (!mapping) return mapping.error();
      t.pci_mappings.push_back(std::move(*mapping));
    }
    for (const auto& d : root["durations"]) {
      t.durations[d.first.as<std::string>()] = d.second.as<double>();
    }
    if (auto f = root["faults"]) {
      YAML::Emitter out;
      out << YAML::DoubleQuoted << YAML::Flow << f;
      t.faults_yaml = out.c_str();
    }
  } catch (const std::exception& e) {
    return make_error("invalid_topology", std::string("topology: ") + e.what());
  }
  return t;
}

}  // namespace kp::sim::pve
