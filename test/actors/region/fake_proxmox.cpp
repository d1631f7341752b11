#include "test/actors/region/fake_proxmox.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace kp::test {

namespace {

const std::set<std::string> write_methods = {"clone_vm",
                                             "create_vm",
                                             "convert_to_template",
                                             "update_vm_config",
                                             "resize_disk",
                                             "start_vm",
                                             "stop_vm",
                                             "delete_vm",
                                             "upload",
                                             "download_url",
                                             "delete_volume",
                                             "set_firewall_options",
                                             "add_firewall_rule",
                                             "delete_firewall_rule",
                                             "set_pool_member",
                                             "agent_ping",
                                             "agent_exec"};

kp::error missing_vm(std::uint32_t vmid) {
  return make_error("not_found", "500 Configuration file 'qemu-server/" + std::to_string(vmid) +
                                     ".conf' does not exist");
}

proxmox::drive disk(const std::string& volume, const std::string& size) {
  proxmox::drive d;
  d.volume = volume;
  d.options.push_back({"size", size});
  return d;
}

}  // namespace

fake_proxmox::fake_proxmox(int hosts) {
  for (int i = 1; i <= hosts; ++i) {
    auto host = "pve" + std::to_string(i);
    host_status[host] = "online";
    isos[host];
    vm t;
    t.node = host;
    t.config.name = "k8s-template";
    t.config.is_template = true;
    t.config.cores = 2;
    t.config.sockets = 1;
    t.config.memory_mib = 2048;
    proxmox::net_device nic;
    nic.model = "virtio";
    nic.bridge = "vmbr0";
    t.config.nets[0] = nic;
    t.config.ipconfigs[0] = "ip=dhcp";
    t.config.drives["scsi0"] = disk("local-lvm:base-900" + std::to_string(i) + "-disk-0", "10G");
    touch(t);
    vms[9000 + static_cast<std::uint32_t>(i)] = t;
  }
}

void fake_proxmox::touch(vm& v) {
  v.config.digest = "digest-" + std::to_string(digest_++);
}

int fake_proxmox::writes() const {
  int n = 0;
  for (const auto& [method, count] : calls) {
    if (write_methods.count(method) != 0) n += count;
  }
  return n;
}

int fake_proxmox::reads() const {
  int n = 0;
  for (const auto& [method, count] : calls) {
    if (write_methods.count(method) == 0 && method != "task_status" && method != "cluster_tasks")
      n += count;
  }
  return n;
}

int fake_proxmox::task_reads() const {
  auto count = [&](const char* method) {
    auto it = calls.find(method);
    return it == calls.end() ? 0 : it->second;
  };
  return count("task_status") + count("cluster_tasks");
}

void fake_proxmox::fail_next(const std::string& method, kp::error e, std::uint32_t vmid,
                             int times) {
  failures_[method].push_back({std::move(e), vmid, times});
}

void fake_proxmox::add_vm(std::uint32_t vmid, const std::string& node, const std::string& name,
                          const std::string& description, bool running) {
  vm v;
  v.node = node;
  v.config.name = name;
  v.config.description = description;
  v.config.cores = 2;
  v.config.sockets = 1;
  v.config.memory_mib = 2048;
  v.config.drives["scsi0"] = disk("local-lvm:vm-" + std::to_string(vmid) + "-disk-0", "32G");
  v.status = running ? "running" : "stopped";
  touch(v);
  vms[vmid] = v;
}

std::optional<kp::error> fake_proxmox::enter(const std::string& method, const std::string& node,
                                             std::uint32_t vmid, bool* hang) {
  ++calls[method];
  if (throwing.count(method) != 0) throw std::runtime_error(method + ": a fault in the client");
  *hang = hanging.count(method) != 0;
  if (*hang) return std::nullopt;
  auto& list = failures_[method];
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (it->vmid != 0 && it->vmid != vmid) continue;
    auto e = it->error;
    if (--it->times <= 0) list.erase(it);
    return e;
  }
  auto h = host_status.find(node);
  if (!node.empty() && h != host_status.end() && h->second != "online") {
    return make_error("host_offline",
                      "595 Errors during connection establishment, proxy "
                      "handshake: No route to host");
  }
  return std::nullopt;
}

proxmox::upid fake_proxmox::start_task(const std::string& node, const std::string& type,
                                       std::uint32_t vmid, std::function<void()> effect) {
  proxmox::upid u;
  u.node = node;
  u.type = type;
  u.id = std::to_string(vmid);
  u.text = "UPID:" + node + ":" + std::to_string(next_task_++) + ":" + type;
  auto outcome = task_outcomes.count(type) ? task_outcomes[type] : task_outcome::ok;
  auto running = task_running_polls.count(type) ? task_running_polls[type] : 0;
  tasks_[u.text] = {u, outcome, std::move(effect), running, std::nullopt};
  task_order_.push_back(u.text);
  if (auto d = task_durations.find(type); d != task_durations.end() && clock) {
    tasks_[u.text].ends_at = clock() + d->second;
  }
  return u;
}

// --- reads ---------------------------------------------------------------------------------------

void fake_proxmox::cluster_resources(
    std::optional<proxmox::resource_type>,
    proxmox::callback<std::vector<proxmox::cluster_resource>> done) {
  bool hang = false;
  if (auto e = enter("cluster_resources", "", 0, &hang)) return done(*e);
  if (hang) return;
  std::vector<proxmox::cluster_resource> out;
  for (const auto& [host, status] : host_status) {
    proxmox::cluster_resource r;
    r.type = "node";
    r.node = host;
    r.id = "node/" + host;
    r.status = status;
    out.push_back(r);
    proxmox::cluster_resource s;
    s.type = "storage";
    s.node = host;
    s.storage = "local";
    s.content = "iso,vztmpl,import";
    s.plugintype = "dir";
    s.maxdisk = 100ull << 30;
    s.status = status == "online" ? "available" : "unknown";
    out.push_back(s);
  }
  for (const auto& [id, v] : vms) {
    proxmox::cluster_resource r;
    r.type = "qemu";
    r.id = "qemu/" + std::to_string(id);
    r.vmid = id;
    r.node = v.node;
    r.name = v.config.name.value_or("");
    r.template_ = v.config.is_template;
    r.pool = v.pool;
    r.lock = v.config.lock.value_or("");
    r.status = host_status[v.node] == "online" ? v.status : "unknown";
    out.push_back(r);
  }
  done(out);
}

void fake_proxmox::node_status(const std::string& node,
                               proxmox::callback<proxmox::node_status> done) {
  bool hang = false;
  if (auto e = enter("node_status", node, 0, &hang)) return done(*e);
  if (hang) return;
  proxmox::node_status s;
  s.cpuinfo.cpus = 16;
  s.cpuinfo.sockets = 1;
  s.cpuinfo.cores = 8;
  s.memory_total = 64ull << 30;
  done(s);
}

void fake_proxmox::node_network(const std::string& node,
                                proxmox::callback<std::vector<proxmox::network_interface>> done) {
  bool hang = false;
  if (auto e = enter("node_network", node, 0, &hang)) return done(*e);
  if (hang) return;
  proxmox::network_interface n;
  n.iface = "vmbr0";
  n.type = "bridge";
  n.cidr = "192.168.10.11/24";
  n.gateway = "192.168.10.1";
  done(std::vector<proxmox::network_interface>{n});
}

void fake_proxmox::pci_mappings(
    proxmox::callback<std::vector<proxmox::pci_resource_mapping>> done) {
  bool hang = false;
  if (auto e = enter("pci_mappings", "", 0, &hang)) return done(*e);
  if (hang) return;
  done(pci_mappings_listed);
}

void fake_proxmox::vm_config(const std::string& node, std::uint32_t vmid,
                             proxmox::callback<proxmox::vm_config> done) {
  bool hang = false;
  if (auto e = enter("vm_config", node, vmid, &hang)) return done(*e);
  if (hang) return;
  auto it = vms.find(vmid);
  if (it == vms.end() || it->second.node != node) return done(missing_vm(vmid));
  done(it->second.config);
}

void fake_proxmox::vm_status(const std::string& node, std::uint32_t vmid,
                             proxmox::callback<proxmox::vm_status> done) {
  bool hang = false;
  if (auto e = enter("vm_status", node, vmid, &hang)) return done(*e);
  if (hang) return;
  auto it = vms.find(vmid);
  if (it == vms.end() || it->second.node != node) return done(missing_vm(vmid));
  proxmox::vm_status s;
  s.vmid = vmid;
  s.status = it->second.status;
  s.name = it->second.config.name.value_or("");
  done(s);
}

void fake_proxmox::storages(const std::string& node,
                            proxmox::callback<std::vector<proxmox::storage_info>> done) {
  bool hang = false;
  if (auto e = enter("storages", node, 0, &hang)) return done(*e);
  if (hang) return;
  proxmox::storage_info s;
  s.storage = "local";
  s.type = "dir";
  s.content = "iso,vztmpl,import";
  s.active = s.enabled = true;
  done(std::vector<proxmox::storage_info>{s});
}

void fake_proxmox::storage_content(const std::string& node, const std::string&,
                                   const std::string& content,
                                   proxmox::callback<std::vector<proxmox::storage_content>> done) {
  bool hang = false;
  if (auto e = enter("storage_content", node, 0, &hang)) return done(*e);
  if (hang) return;
  std::vector<proxmox::storage_content> out;
  if (content == "iso") {
    for (const auto& f : isos[node]) {
      proxmox::storage_content c;
      c.volid = f.volid;
      c.content = "iso";
      c.ctime = f.ctime;
      out.push_back(c);
    }
  }
  done(out);
}

void fake_proxmox::firewall_options(const std::string& node, std::uint32_t vmid,
                                    proxmox::callback<proxmox::firewall_options> done) {
  bool hang = false;
  if (auto e = enter("firewall_options", node, vmid, &hang)) return done(*e);
  if (hang) return;
  auto it = vms.find(vmid);
  if (it == vms.end()) return done(missing_vm(vmid));
  done(it->second.firewall);
}

void fake_proxmox::firewall_rules(const std::string& node, std::uint32_t vmid,
                                  proxmox::callback<std::vector<proxmox::firewall_rule>> done) {
  bool hang = false;
  if (auto e = enter("firewall_rules", node, vmid, &hang)) return done(*e);
  if (hang) return;
  auto it = vms.find(vmid);
  if (it == vms.end()) return done(missing_vm(vmid));
  auto rules = it->second.rules;
  for (std::size_t i = 0; i < rules.size(); ++i) rules[i].pos = static_cast<unsigned>(i);
  done(rules);
}

proxmox::task_status fake_proxmox::look_at(task& t) {
  proxmox::task_status s;
  s.upid = t.id.text;
  s.node = t.id.node;
  s.type = t.id.type;
  s.id = t.id.id;
  s.status = "running";
  if (t.running_polls > 0) {
    --t.running_polls;
    return s;
  }
  switch (t.outcome) {
    case task_outcome::never_ends:
      return s;
    case task_outcome::fail:
      s.status = "stopped";
      s.exitstatus = "injected task failure";
      return s;
    case task_outcome::ok:
      break;
  }
  if (t.ends_at && clock() < *t.ends_at) return s;
  if (t.effect) {
    auto effect = std::move(t.effect);
    t.effect = nullptr;
    effect();
  }
  s.status = "stopped";
  s.exitstatus = "OK";
  return s;
}

void fake_proxmox::task_status(const proxmox::upid& id,
                               proxmox::callback<proxmox::task_status> done) {
  bool hang = false;
  if (auto e = enter("task_status", id.node, 0, &hang)) return done(*e);
  if (hang) return;
  auto it = tasks_.find(id.text);
  if (it == tasks_.end()) return done(make_error("not_found", "no such task"));
  done(look_at(it->second));
}

void fake_proxmox::cluster_tasks(proxmox::callback<std::vector<proxmox::task_status>> done) {
  bool hang = false;
  if (auto e = enter("cluster_tasks", "", 0, &hang)) return done(*e);
  if (hang) return;
  if (holding_task_list) {
    held_.push_back([this, done = std::move(done)] { list_tasks(done); });
    return;
  }
  list_tasks(done);
}

void fake_proxmox::release_held() {
  auto held = std::move(held_);
  held_.clear();
  for (auto& answer : held) answer();
}

void fake_proxmox::list_tasks(const proxmox::callback<std::vector<proxmox::task_status>>& done) {
  // Newest first; per host every running task and its 25 most recent finished ones.
  std::vector<proxmox::task_status> out;
  std::map<std::string, int> finished;
  for (auto it = task_order_.rbegin(); it != task_order_.rend(); ++it) {
    auto& t = tasks_.at(*it);
    if (unlisted_task_types.count(t.id.type) != 0) continue;
    auto s = look_at(t);
    if (!s.running() && ++finished[s.node] > 25) continue;
    out.push_back(std::move(s));
  }
  done(std::move(out));
}

// --- writes --------------------------------------------------------------------------------------

void fake_proxmox::clone_vm(const proxmox::clone_request& r,
                            proxmox::callback<proxmox::upid> done) {
  bool hang = false;
  if (auto e = enter("clone_vm", r.node, r.new_vmid, &hang)) return done(*e);
  if (hang) return;
  auto src = vms.find(r.source_vmid);
  if (src == vms.end()) return done(missing_vm(r.source_vmid));
  if (vms.count(r.new_vmid) != 0) {
    return done(make_error("conflict", "500 VM " + std::to_string(r.new_vmid) + " already exists"));
  }
  // The VM exists (locked) at once, like Proxmox; its disks when the task ends.
  vm v;
  v.node = r.target.empty() ? r.node : r.target;
  v.config = src->second.config;
  v.config.is_template = false;
  v.config.name = r.name;
  v.config.description = r.description;
  v.config.lock = "clone";
  for (auto& [index, nic] : v.config.nets) nic.mac = "BC:24:11:00:00:" + std::to_string(index);
  v.pool = r.pool;
  touch(v);
  vms[r.new_vmid] = v;
  auto id = r.new_vmid;
  done(start_task(r.node, "qmclone", id, [this, id] {
    auto it = vms.find(id);
    if (it != vms.end()) it->second.config.lock.reset();
  }));
}

void fake_proxmox::create_vm(const proxmox::create_vm_request& r,
                             proxmox::callback<proxmox::upid> done) {
  bool hang = false;
  if (auto e = enter("create_vm", r.node, r.vmid, &hang)) return done(*e);
  if (hang) return;
  if (vms.count(r.vmid) != 0) {
    return done(make_error("conflict", "500 VM " + std::to_string(r.vmid) + " already exists"));
  }
  vm v;
  v.node = r.node;
  for (const auto& [key, value] : r.config) {
    v.config.raw[key] = value;
    if (key == "name") v.config.name = value;
    if (key == "description") v.config.description = value;
  }
  touch(v);
  vms[r.vmid] = v;
  done(start_task(r.node, "qmcreate", r.vmid, nullptr));
}

void fake_proxmox::convert_to_template(const std::string& node, std::uint32_t vmid,
                                       proxmox::callback<proxmox::upid> done) {
  bool hang = false;
  if (auto e = enter("convert_to_template", node, vmid, &hang)) return done(*e);
  if (hang) return;
  if (vms.count(vmid) == 0) return done(missing_vm(vmid));
  done(start_task(node, "qmtemplate", vmid, [this, vmid] {
    if (vms.count(vmid)) vms[vmid].config.is_template = true;
  }));
}

void fake_proxmox::update_vm_config(const std::string& node, std::uint32_t vmid,
                                    const proxmox::vm_config_update& u,
                                    proxmox::callback<std::optional<proxmox::upid>> done) {
  bool hang = false;
  if (auto e = enter("update_vm_config", node, vmid, &hang)) return done(*e);
  if (hang) return;
  auto it = vms.find(vmid);
  if (it == vms.end()) return done(missing_vm(vmid));
  auto& c = it->second.config;
  if (c.lock) return done(make_error("locked", "500 VM is locked (" + *c.lock + ")"));
  if (u.digest && *u.digest != c.digest) {
    return done(make_error("server_error",
                           "500 detected modified configuration - file changed by another user? "
                           "Try again."));
  }
  if (u.cores) c.cores = u.cores;
  if (u.sockets) c.sockets = u.sockets;
  if (u.memory_mib) c.memory_mib = u.memory_mib;
  if (u.tags) c.tags = *u.tags;
  if (u.smbios) c.smbios = u.smbios;
  if (u.onboot) c.onboot = u.onboot;
  if (u.sshkeys) c.sshkeys = u.sshkeys;
  if (u.affinity) c.affinity = u.affinity;
  if (u.numa) c.numa = u.numa;
  for (const auto& [i, n] : u.nets) c.nets[i] = n;
  for (const auto& [i, t] : u.ipconfigs) c.ipconfigs[i] = t;
  for (const auto& [k, d] : u.drives) c.drives[k] = d;
  for (const auto& [k, v] : u.raw) {
    c.raw[k] = v;
    if (k == "name") c.name = v;
    if (k == "description") c.description = v;
  }
  for (const auto& k : u.remove) c.drives.erase(k);
  touch(it->second);
  done(std::optional<proxmox::upid>(start_task(node, "qmconfig", vmid, nullptr)));
}

void fake_proxmox::resize_disk(const std::string& node, std::uint32_t vmid, const std::string& name,
                               const std::string& size,
                               proxmox::callback<std::optional<proxmox::upid>> done) {
  bool hang = false;
  if (auto e = enter("resize_disk", node, vmid, &hang)) return done(*e);
  if (hang) return;
  auto it = vms.find(vmid);
  if (it == vms.end()) return done(missing_vm(vmid));
  it->second.config.drives[name] = disk(it->second.config.drives[name].volume, size);
  touch(it->second);
  done(std::optional<proxmox::upid>(start_task(node, "resize", vmid, nullptr)));
}

void fake_proxmox::start_vm(const std::string& node, std::uint32_t vmid,
                            proxmox::callback<proxmox::upid> done) {
  bool hang = false;
  if (auto e = enter("start_vm", node, vmid, &hang)) return done(*e);
  if (hang) return;
  if (vms.count(vmid) == 0) return done(missing_vm(vmid));
  done(start_task(node, "qmstart", vmid, [this, vmid] {
    if (vms.count(vmid)) vms[vmid].status = "running";
  }));
}

void fake_proxmox::stop_vm(const std::string& node, std::uint32_t vmid,
                           proxmox::callback<proxmox::upid> done) {
  bool hang = false;
  if (auto e = enter("stop_vm", node, vmid, &hang)) return done(*e);
  if (hang) return;
  if (vms.count(vmid) == 0) return done(missing_vm(vmid));
  done(start_task(node, "qmstop", vmid, [this, vmid] {
    if (vms.count(vmid)) vms[vmid].status = "stopped";
  }));
}

void fake_proxmox::delete_vm(const std::string& node, std::uint32_t vmid, bool,
                             proxmox::callback<proxmox::upid> done) {
  bool hang = false;
  if (auto e = enter("delete_vm", node, vmid, &hang)) return done(*e);
  if (hang) return;
  auto it = vms.find(vmid);
  if (it == vms.end()) return done(missing_vm(vmid));
  if (it->second.status == "running") {
    return done(make_error("conflict", "500 VM " + std::to_string(vmid) + " is running"));
  }
  done(start_task(node, "qmdestroy", vmid, [this, vmid] { vms.erase(vmid); }));
}

void fake_proxmox::upload(const proxmox::iso_upload& up, proxmox::callback<proxmox::upid> done) {
  bool hang = false;
  if (auto e = enter("upload", up.node, 0, &hang)) return done(*e);
  if (hang) return;
  auto volid = up.storage + ":iso/" + up.filename;
  auto& files = isos[up.node];
  files.erase(std::remove_if(files.begin(), files.end(),
                             [&](const iso_file& f) { return f.volid == volid; }),
              files.end());
  files.push_back({volid, now_unix});
  iso_bytes[volid] = up.data;
  done(start_task(up.node, "imgcopy", 0, nullptr));
}

void fake_proxmox::download_url(const proxmox::download_url_request& r,
                                proxmox::callback<proxmox::upid> done) {
  bool hang = false;
  if (auto e = enter("download_url", r.node, 0, &hang)) return done(*e);
  if (hang) return;
  done(start_task(r.node, "download", 0, nullptr));
}

void fake_proxmox::delete_volume(const std::string& node, const std::string&,
                                 const std::string& volid,
                                 proxmox::callback<std::optional<proxmox::upid>> done) {
  bool hang = false;
  if (auto e = enter("delete_volume", node, 0, &hang)) return done(*e);
  if (hang) return;
  auto& files = isos[node];
  files.erase(std::remove_if(files.begin(), files.end(),
                             [&](const iso_file& f) { return f.volid == volid; }),
              files.end());
  done(std::optional<proxmox::upid>{});
}

void fake_proxmox::set_firewall_options(const std::string& node, std::uint32_t vmid,
                                        const proxmox::firewall_options& o,
                                        proxmox::done_callback done) {
  bool hang = false;
  if (auto e = enter("set_firewall_options", node, vmid, &hang)) return done(*e);
  if (hang) return;
  if (vms.count(vmid) == 0) return done(missing_vm(vmid));
  if (o.enable) vms[vmid].firewall.enable = o.enable;
  done({});
}

void fake_proxmox::add_firewall_rule(const std::string& node, std::uint32_t vmid,
                                     const proxmox::firewall_rule& rule,
                                     proxmox::done_callback done) {
  bool hang = false;
  if (auto e = enter("add_firewall_rule", node, vmid, &hang)) return done(*e);
  if (hang) return;
  if (vms.count(vmid) == 0) return done(missing_vm(vmid));
  auto& rules = vms[vmid].rules;
  auto pos = std::min<std::size_t>(rule.pos.value_or(0), rules.size());
  rules.insert(rules.begin() + static_cast<std::ptrdiff_t>(pos), rule);
  done({});
}

void fake_proxmox::delete_firewall_rule(const std::string& node, std::uint32_t vmid, unsigned pos,
                                        proxmox::done_callback done) {
  bool hang = false;
  if (auto e = enter("delete_firewall_rule", node, vmid, &hang)) return done(*e);
  if (hang) return;
  if (vms.count(vmid) == 0) return done(missing_vm(vmid));
  auto& rules = vms[vmid].rules;
  if (pos < rules.size()) rules.erase(rules.begin() + pos);
  done({});
}

void fake_proxmox::set_pool_member(const std::string& poolid, std::uint32_t vmid, bool member,
                                   proxmox::done_callback done) {
  bool hang = false;
  if (auto e = enter("set_pool_member", "", vmid, &hang)) return done(*e);
  if (hang) return;
  if (vms.count(vmid) == 0) return done(missing_vm(vmid));
  vms[vmid].pool = member ? poolid : "";
  done({});
}

void fake_proxmox::agent_ping(const std::string& node, std::uint32_t vmid,
                              proxmox::done_callback done) {
  bool hang = false;
  if (auto e = enter("agent_ping", node, vmid, &hang)) return done(*e);
  if (hang) return;
  done({});
}

void fake_proxmox::agent_exec(const std::string& node, std::uint32_t vmid,
                              const std::vector<std::string>&, const std::string&,
                              proxmox::callback<int> done) {
  bool hang = false;
  if (auto e = enter("agent_exec", node, vmid, &hang)) return done(*e);
  if (hang) return;
  done(7);
}

void fake_proxmox::agent_exec_status(const std::string& node, std::uint32_t vmid, int,
                                     proxmox::callback<proxmox::agent_exec_status> done) {
  bool hang = false;
  if (auto e = enter("agent_exec_status", node, vmid, &hang)) return done(*e);
  if (hang) return;
  proxmox::agent_exec_status s;
  s.exited = true;
  s.exitcode = 0;
  done(s);
}

}  // namespace kp::test
