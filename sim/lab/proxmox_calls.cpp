#include "sim/lab/proxmox_calls.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>

#include "sim/lab/lab_world.hpp"

namespace kp::lab {

namespace json = boost::json;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string short_name(const std::string& key) {
  auto slash = key.rfind('/');
  auto name = key.substr(slash + 1);
  if (name == "rules" || name == "options") return "firewall " + name;
  return name;
}

std::string fixed(double v, int digits = 2) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

std::string classify_proxmox_request(const std::string& method, const std::string& raw_path) {
  std::string path = raw_path.rfind("/api2/json", 0) == 0 ? raw_path.substr(10) : raw_path;
  const bool qemu_vm = path.rfind("/nodes/{node}/qemu/{vmid}", 0) == 0;
  if (method == "POST" && ends_with(path, "/qemu/{vmid}/clone")) return "creation";
  if ((method == "POST" || method == "PUT") && qemu_vm && ends_with(path, "/config"))
    return "creation";
  if (method == "PUT" && ends_with(path, "/resize")) return "creation";
  if (method == "POST" && ends_with(path, "/storage/{storage}/upload")) return "creation";
  if ((method == "PUT" || method == "POST") && qemu_vm &&
      path.find("/firewall/") != std::string::npos)
    return "creation";
  if (method == "POST" && ends_with(path, "/status/start")) return "creation";
  if (method == "GET" && path.rfind("/nodes/{node}/tasks/{upid}", 0) == 0) return "task_polls";
  if (method == "DELETE" && path.rfind("/nodes/{node}/storage/", 0) == 0) return "after_start";
  if (method == "DELETE" || (method == "POST" && (ends_with(path, "/status/stop") ||
                                                  ends_with(path, "/status/shutdown"))))
    return "deletion";
  if (method == "GET") return "inventory";
  return "other";
}

std::string proxmox_calls::summary() const {
  std::string s = fixed(creation_per_vm()) + " creation requests per VM";
  if (vms_created > 0 && !creation_by_path.empty()) {
    s += " (";
    bool first = true;
    for (const auto& [key, n] : creation_by_path) {
      s += (first ? "" : ", ") + short_name(key) + " " +
           fixed(static_cast<double>(n) / static_cast<double>(vms_created));
      first = false;
    }
    s += ")";
  }
  s += "; " + std::to_string(vms_created) + " VMs created; also " + std::to_string(task_polls) +
       " task polls, " + std::to_string(inventory) + " inventory reads, " +
       std::to_string(after_start) + " ISO detach/delete requests, " + std::to_string(deletion) +
       " deletion requests, " + std::to_string(errors) + " error answers; " +
       std::to_string(total) + " in all";
  return s;
}

result<proxmox_calls> read_proxmox_calls(lab_world& world) {
  auto r = world.pve().call("GET", "/sim/v1/stats");
  if (!r) return r.error();
  if (!r->ok())
    return make_error("proxmox", "GET /sim/v1/stats: HTTP " + std::to_string(r->status));
  auto v = r->json();
  if (!v.is_object() || !v.as_object().contains("requests"))
    return make_error("protocol", "/sim/v1/stats has no requests");
  auto own = world.own_pve_requests();
  proxmox_calls c;
  for (const auto& row : v.at("requests").as_array()) {
    const auto& o = row.as_object();
    std::string method(o.at("method").as_string());
    std::string path(o.at("path").as_string());
    long count = static_cast<long>(o.at("count").to_number<double>());
    std::string plain = path.rfind("/api2/json", 0) == 0 ? path.substr(10) : path;
    if (auto it = own.find(method + " " + plain); it != own.end()) count -= it->second;
    if (count <= 0) continue;
    long ok_count = 0;
    if (auto* st = o.if_contains("statuses"); st && st->is_object()) {
      for (const auto& [code, n] : st->as_object()) {
        long k = static_cast<long>(n.to_number<double>());
        if (code.size() == 3 && code[0] == '2') ok_count += k;
        if (code.size() == 3 && code[0] >= '4') c.errors += k;
      }
    }
    c.total += count;
    c.by_request[method + " " + plain] += count;
    auto cls = classify_proxmox_request(method, path);
    if (cls == "creation") {
      c.creation += count;
      c.creation_by_path[method + " " + plain] += count;
      if (method == "POST" && ends_with(plain, "/clone")) c.clone_requests_accepted += ok_count;
    } else if (cls == "task_polls") {
      c.task_polls += count;
    } else if (cls == "deletion") {
      c.deletion += count;
    } else if (cls == "after_start") {
      c.after_start += count;
    } else {
      c.inventory += count;
    }
  }
  // A config call after the VM started (detaching the ISO once the node initialized) is not part
  // of its creation; the stats cannot tell them apart, the task list can.
  std::vector<task_entry> tasks;
  if (auto nodes = world.pve_api("GET", "/nodes", "/nodes"); nodes && nodes->ok()) {
    auto nv = nodes->json();
    if (nv.is_object() && nv.at("data").is_array()) {
      for (const auto& n : nv.at("data").as_array()) {
        std::string node(n.at("node").as_string());
        auto t = world.pve_api("GET", "/nodes/" + node + "/tasks?limit=1000000&source=all",
                               "/nodes/{node}/tasks");
        if (!t || !t->ok()) continue;
        auto tv = t->json();
        if (!tv.is_object() || !tv.at("data").is_array()) continue;
        for (const auto& task : tv.at("data").as_array()) {
          const auto& o = task.as_object();
          task_entry e{static_cast<long>(o.at("pid").to_number<double>()),
                       std::string(o.at("type").as_string()), std::string(o.at("id").as_string())};
          // A VM exists for every clone task that succeeded or still runs (no status yet); a
          // clone the API accepted whose task failed (a VMID taken meanwhile) made none.
          bool failed = false;
          if (auto* st = o.if_contains("status"); st != nullptr && st->is_string())
            failed = st->as_string() != "OK";
          if (e.type == "qmclone" && !failed) ++c.vms_created;
          tasks.push_back(std::move(e));
        }
      }
    }
  }
  long late = std::min(config_tasks_after_start(tasks), c.creation);
  const std::string config_key = "POST /nodes/{node}/qemu/{vmid}/config";
  if (late > 0 && c.creation_by_path.count(config_key) != 0) {
    late = std::min(late, c.creation_by_path[config_key]);
    c.creation_by_path[config_key] -= late;
    c.creation -= late;
    c.after_start += late;
  }
  return c;
}

long config_tasks_after_start(const std::vector<task_entry>& tasks) {
  std::map<std::string, long> first_start;
  for (const auto& t : tasks)
    if (t.type == "qmstart" && (first_start.count(t.id) == 0 || t.pid < first_start[t.id]))
      first_start[t.id] = t.pid;
  long late = 0;
  for (const auto& t : tasks)
    if (t.type == "qmconfig" && first_start.count(t.id) != 0 && t.pid > first_start[t.id]) ++late;
  return late;
}

}  // namespace kp::lab
