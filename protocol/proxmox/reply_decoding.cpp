#include "protocol/proxmox/reply_decoding.hpp"

#include <boost/json.hpp>

#include <charconv>
#include <cmath>
#include <optional>

namespace kp::proxmox {

namespace json = boost::json;

namespace {

kp::error invalid(const std::string& what) {
  return make_error("invalid_reply", what);
}

std::string text(const json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return {};
  if (v->is_string()) return std::string(v->as_string());
  if (v->is_int64()) return std::to_string(v->as_int64());
  if (v->is_uint64()) return std::to_string(v->as_uint64());
  if (v->is_bool()) return v->as_bool() ? "1" : "0";
  return json::serialize(*v);
}

std::optional<double> number(const json::value* v) {
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return static_cast<double>(v->as_int64());
  if (v->is_uint64()) return static_cast<double>(v->as_uint64());
  if (v->is_double()) return v->as_double();
  if (v->is_bool()) return v->as_bool() ? 1.0 : 0.0;
  if (v->is_string()) {
    std::string_view s = v->as_string();
    double d = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec == std::errc() && ptr == s.data() + s.size()) return d;
  }
  return std::nullopt;
}

double real(const json::object& o, std::string_view key) {
  auto d = number(o.if_contains(key));
  return d && std::isfinite(*d) ? *d : 0.0;
}

// 2^64 and 2^32 are exact doubles: anything below converts, anything else reads as absent (0).
std::uint64_t u64(const json::object& o, std::string_view key) {
  double d = real(o, key);
  return d > 0 && d < 18446744073709551616.0 ? static_cast<std::uint64_t>(d) : 0;
}

std::uint32_t u32(const json::object& o, std::string_view key) {
  double d = real(o, key);
  return d > 0 && d < 4294967296.0 ? static_cast<std::uint32_t>(d) : 0;
}

bool flag(const json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  if (v == nullptr) return false;
  if (v->is_string()) {
    std::string_view s = v->as_string();
    return s == "1" || s == "true" || s == "on" || s == "yes";
  }
  return real(o, key) != 0.0;
}

std::optional<bool> maybe_flag(const json::object& o, std::string_view key) {
  if (!o.contains(key)) return std::nullopt;
  return flag(o, key);
}

result<const json::object*> object_of(const json::value& v, const char* what) {
  if (!v.is_object()) return invalid(std::string(what) + " is not a JSON object");
  return &v.as_object();
}

// Decodes every element of an array with `one`, failing on the first bad element.
template <class T, class F>
result<std::vector<T>> each(const json::value& data, const char* what, F one) {
  if (!data.is_array()) return invalid(std::string(what) + " is not a JSON array");
  std::vector<T> out;
  out.reserve(data.as_array().size());
  for (const auto& item : data.as_array()) {
    if (!item.is_object())
      return invalid(std::string(what) + " has an entry that is not an object");
    auto decoded = one(item.as_object());
    if (!decoded) return decoded.error();
    out.push_back(std::move(*decoded));
  }
  return out;
}

}  // namespace

result<version_info> decode_version(const json::value& data) {
  auto o = object_of(data, "version");
  if (!o) return o.error();
  version_info v{text(**o, "version"), text(**o, "release"), text(**o, "repoid")};
  if (v.version.empty()) return invalid("version has no \"version\"");
  return v;
}

result<std::vector<cluster_resource>> decode_cluster_resources(const json::value& data) {
  return each<cluster_resource>(data, "cluster resources", [](const json::object& o) {
    cluster_resource r;
    r.id = text(o, "id");
    r.type = text(o, "type");
    r.node = text(o, "node");
    r.status = text(o, "status");
    r.name = text(o, "name");
    r.vmid = u32(o, "vmid");
    r.template_ = flag(o, "template");
    r.tags = text(o, "tags");
    r.pool = text(o, "pool");
    r.lock = text(o, "lock");
    r.storage = text(o, "storage");
    r.content = text(o, "content");
    r.plugintype = text(o, "plugintype");
    r.shared = flag(o, "shared");
    r.cpu = real(o, "cpu");
    r.maxcpu = real(o, "maxcpu");
    r.mem = u64(o, "mem");
    r.maxmem = u64(o, "maxmem");
    r.disk = u64(o, "disk");
    r.maxdisk = u64(o, "maxdisk");
    r.uptime = u64(o, "uptime");
    if (r.id.empty() || r.type.empty()) {
      return result<cluster_resource>(invalid("a cluster resource has no id or type"));
    }
    if ((r.type == "qemu" || r.type == "lxc") && r.vmid == 0) {
      return result<cluster_resource>(invalid("VM resource " + r.id + " has no vmid"));
    }
    return result<cluster_resource>(std::move(r));
  });
}

result<node_status> decode_node_status(const json::value& data) {
  auto o = object_of(data, "node status");
  if (!o) return o.error();
  const json::object& s = **o;
  node_status n;
  n.cpu = real(s, "cpu");
  n.uptime = u64(s, "uptime");
  n.pveversion = text(s, "pveversion");
  if (auto* ci = s.if_contains("cpuinfo"); ci != nullptr && ci->is_object()) {
    const auto& c = ci->as_object();
    n.cpuinfo = cpu_info{text(c, "model"), u32(c, "cpus"), u32(c, "sockets"), u32(c, "cores")};
  }
  if (auto* m = s.if_contains("memory"); m != nullptr && m->is_object()) {
    const auto& mem = m->as_object();
    n.memory_total = u64(mem, "total");
    n.memory_used = u64(mem, "used");
    n.memory_free = u64(mem, "free");
  }
  if (auto* l = s.if_contains("loadavg"); l != nullptr && l->is_array()) {
    for (const auto& item : l->as_array()) {
      n.loadavg.push_back(item.is_string() ? std::string(item.as_string()) : json::serialize(item));
    }
  }
  return n;
}

result<std::vector<network_interface>> decode_network(const json::value& data) {
  return each<network_interface>(data, "node network", [](const json::object& o) {
    network_interface n;
    n.iface = text(o, "iface");
    n.type = text(o, "type");
    n.active = flag(o, "active");
    n.cidr = text(o, "cidr");
    n.address = text(o, "address");
    n.gateway = text(o, "gateway");
    n.bridge_ports = text(o, "bridge_ports");
    return result<network_interface>(std::move(n));
  });
}

result<std::vector<pci_resource_mapping>> decode_pci_mappings(const json::value& data) {
  return each<pci_resource_mapping>(data, "PCI mappings", [](const json::object& o) {
    pci_resource_mapping m;
    m.id = text(o, "id");
    m.mdev = flag(o, "mdev");
    if (const auto* map = o.if_contains("map"); map != nullptr && map->is_array()) {
      for (const auto& entry : map->as_array())
        if (entry.is_string()) m.map.emplace_back(entry.as_string());
    }
    return result<pci_resource_mapping>(std::move(m));
  });
}

result<std::uint32_t> decode_vmid(const json::value& data) {
  auto d = number(&data);
  if (!d || *d < 1 || *d > 999999999 || std::floor(*d) != *d) {
    return invalid("expected a VMID, got " + json::serialize(data).substr(0, 100));
  }
  return static_cast<std::uint32_t>(*d);
}

result<upid> decode_upid(const json::value& data) {
  if (!data.is_string())
    return invalid("expected a task UPID, got " + json::serialize(data).substr(0, 100));
  auto u = parse_upid(data.as_string());
  if (!u) return invalid(u.error().message);
  return u;
}

result<std::map<std::string, std::string>> decode_text_object(const json::value& data) {
  auto o = object_of(data, "reply");
  if (!o) return o.error();
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : **o) out[std::string(key)] = text(**o, key);
  return out;
}

result<vm_status> decode_vm_status(const json::value& data) {
  auto o = object_of(data, "VM status");
  if (!o) return o.error();
  const json::object& s = **o;
  vm_status v;
  v.vmid = u32(s, "vmid");
  v.status = text(s, "status");
  v.qmpstatus = text(s, "qmpstatus");
  v.name = text(s, "name");
  v.lock = text(s, "lock");
  v.tags = text(s, "tags");
  v.template_ = flag(s, "template");
  v.agent = flag(s, "agent");
  v.cpus = u32(s, "cpus");
  v.maxmem = u64(s, "maxmem");
  v.mem = u64(s, "mem");
  v.uptime = u64(s, "uptime");
  v.pid = u32(s, "pid");
  if (v.status.empty()) return invalid("VM status has no \"status\"");
  return v;
}

result<std::vector<storage_info>> decode_storages(const json::value& data) {
  return each<storage_info>(data, "storage list", [](const json::object& o) {
    storage_info s;
    s.storage = text(o, "storage");
    s.type = text(o, "type");
    s.content = text(o, "content");
    s.active = flag(o, "active");
    s.enabled = flag(o, "enabled");
    s.shared = flag(o, "shared");
    s.total = u64(o, "total");
    s.used = u64(o, "used");
    s.avail = u64(o, "avail");
    if (s.storage.empty()) return result<storage_info>(invalid("a storage has no name"));
    return result<storage_info>(std::move(s));
  });
}

result<std::vector<storage_content>> decode_storage_content(const json::value& data) {
  return each<storage_content>(data, "storage content", [](const json::object& o) {
    storage_content c;
    c.volid = text(o, "volid");
    c.content = text(o, "content");
    c.format = text(o, "format");
    c.size = u64(o, "size");
    c.vmid = u32(o, "vmid");
    c.ctime = u64(o, "ctime");
    if (c.volid.empty()) return result<storage_content>(invalid("a volume has no volid"));
    return result<storage_content>(std::move(c));
  });
}

result<firewall_options> decode_firewall_options(const json::value& data) {
  auto raw = decode_text_object(data);
  if (!raw) return raw.error();
  const json::object& o = data.as_object();
  firewall_options f;
  f.enable = maybe_flag(o, "enable");
  f.dhcp = maybe_flag(o, "dhcp");
  f.ipfilter = maybe_flag(o, "ipfilter");
  f.macfilter = maybe_flag(o, "macfilter");
  f.policy_in = text(o, "policy_in");
  f.policy_out = text(o, "policy_out");
  f.raw = std::move(*raw);
  return f;
}

result<std::vector<firewall_rule>> decode_firewall_rules(const json::value& data) {
  return each<firewall_rule>(data, "firewall rules", [](const json::object& o) {
    firewall_rule r;
    if (o.contains("pos")) r.pos = u32(o, "pos");
    r.type = text(o, "type");
    r.action = text(o, "action");
    r.iface = text(o, "iface");
    r.enable = maybe_flag(o, "enable");
    r.comment = text(o, "comment");
    r.macro = text(o, "macro");
    r.proto = text(o, "proto");
    r.dport = text(o, "dport");
    r.sport = text(o, "sport");
    r.source = text(o, "source");
    r.dest = text(o, "dest");
    return result<firewall_rule>(std::move(r));
  });
}

result<std::vector<firewall_group>> decode_firewall_groups(const json::value& data) {
  return each<firewall_group>(data, "firewall groups", [](const json::object& o) {
    firewall_group g{text(o, "group"), text(o, "comment")};
    if (g.group.empty()) return result<firewall_group>(invalid("a firewall group has no name"));
    return result<firewall_group>(std::move(g));
  });
}

result<std::vector<pool_info>> decode_pools(const json::value& data) {
  return each<pool_info>(data, "pools", [](const json::object& o) {
    pool_info p{text(o, "poolid"), text(o, "comment"), {}};
    if (p.poolid.empty()) return result<pool_info>(invalid("a pool has no poolid"));
    return result<pool_info>(std::move(p));
  });
}

result<pool_info> decode_pool(const json::value& data) {
  auto o = object_of(data, "pool");
  if (!o) return o.error();
  pool_info p;
  p.poolid = text(**o, "poolid");
  p.comment = text(**o, "comment");
  if (auto* m = (*o)->if_contains("members"); m != nullptr) {
    if (!m->is_array()) return invalid("pool members is not an array");
    for (const auto& member : m->as_array()) {
      if (member.is_object()) p.members.push_back(text(member.as_object(), "id"));
    }
  }
  return p;
}

result<int> decode_exec_pid(const json::value& data) {
  auto o = object_of(data, "agent exec reply");
  if (!o) return o.error();
  auto pid = number((*o)->if_contains("pid"));
  if (!pid || *pid < 0 || *pid > 2147483647.0) return invalid("agent exec reply has no pid");
  return static_cast<int>(*pid);
}

result<agent_exec_status> decode_exec_status(const json::value& data) {
  auto o = object_of(data, "agent exec status");
  if (!o) return o.error();
  const json::object& s = **o;
  agent_exec_status e;
  e.exited = flag(s, "exited");
  if (auto code = number(s.if_contains("exitcode"))) e.exitcode = static_cast<int>(*code);
  if (auto sig = number(s.if_contains("signal"))) e.signal = static_cast<int>(*sig);
  e.out_data = text(s, "out-data");
  e.err_data = text(s, "err-data");
  e.out_truncated = flag(s, "out-truncated");
  e.err_truncated = flag(s, "err-truncated");
  return e;
}

result<task_status> decode_task_status(const json::value& data) {
  auto o = object_of(data, "task status");
  if (!o) return o.error();
  const json::object& s = **o;
  task_status t;
  t.upid = text(s, "upid");
  t.node = text(s, "node");
  t.type = text(s, "type");
  t.id = text(s, "id");
  t.user = text(s, "user");
  if (auto tokenid = text(s, "tokenid"); !tokenid.empty()) t.user += "!" + tokenid;
  t.status = text(s, "status");
  t.exitstatus = text(s, "exitstatus");
  if (t.status != "running" && t.status != "stopped") {
    return invalid("task status is '" + t.status.substr(0, 50) + "', expected running or stopped");
  }
  return t;
}

result<std::vector<task_status>> decode_cluster_tasks(const json::value& data) {
  if (!data.is_array()) return invalid("cluster task list is not a JSON array");
  std::vector<task_status> out;
  out.reserve(data.as_array().size());
  for (const auto& item : data.as_array()) {
    if (!item.is_object()) return invalid("cluster task list has an entry that is not an object");
    const json::object& o = item.as_object();
    task_status t;
    t.upid = text(o, "upid");
    if (t.upid.empty()) continue;
    t.node = text(o, "node");
    t.type = text(o, "type");
    t.id = text(o, "id");
    t.user = text(o, "user");
    if (auto tokenid = text(o, "tokenid"); !tokenid.empty()) t.user += "!" + tokenid;
    // Finished tasks carry their end time and, as `status`, what the task log's last line says.
    const bool ended = number(o.if_contains("endtime")).value_or(0) > 0;
    t.status = ended ? "stopped" : "running";
    if (ended) t.exitstatus = text(o, "status");
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace kp::proxmox
