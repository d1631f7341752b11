// Task endpoints: list, status, log, stop. UPIDs are parsed as Proxmox does; an unknown one is
// "no such task".
#include <regex>

#include "sim/pve/pve_world.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {
bool valid_upid(const std::string& upid) {
  static const std::regex pattern(
      "^UPID:([a-zA-Z0-9]([a-zA-Z0-9\\-]*[a-zA-Z0-9])?):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):"
      "([0-9A-Fa-f]{8}):([^:\\s/]+):([^:\\s/]*):([^:\\s/]+):$");
  return std::regex_match(upid, pattern);
}

json::object task_json(const task_state& t, bool with_status) {
  json::object o{{"upid", t.upid},           {"node", t.node}, {"pid", t.pid}, {"pstart", t.pstart},
                 {"starttime", t.starttime}, {"type", t.type}, {"id", t.id},   {"user", t.user}};
  if (!t.tokenid.empty()) o["tokenid"] = t.tokenid;
  if (with_status) {
    o["status"] = t.running ? "running" : "stopped";
    if (!t.running) o["exitstatus"] = t.exitstatus;
  } else if (!t.running) {
    o["status"] = t.exitstatus;
    o["endtime"] = t.endtime;
  }
  return o;
}

result<const task_state*> find_task(pve_world& w, api_call& c) {
  const auto& upid = c.path["upid"];
  if (!valid_upid(upid))
    return make_error("param:upid", "unable to parse worker upid '" + upid + "'");
  auto it = w.tasks.find(upid);
  if (it == w.tasks.end() || it->second.node != c.path["node"])
    return make_error("param:upid", "no such task");
  return &it->second;
}
}  // namespace

api_reply pve_world::get_tasks(api_call& c) {
  const auto& node = c.path["node"];
  auto vmid = c.params.get("vmid");
  auto type = c.params.get("typefilter");
  std::string source = c.params.get_or("source", "archive");
  bool errors_only = c.params.get_bool("errors").value_or(false);
  int limit = 50, start = 0;
  try {
    limit = std::stoi(c.params.get_or("limit", "50"));
    start = std::stoi(c.params.get_or("start", "0"));
  } catch (...) {
  }
  json::array all;
  for (auto it = task_order.rbegin(); it != task_order.rend(); ++it) {
    const auto& t = tasks[*it];
    if (t.node != node) continue;
    if (vmid && t.id != *vmid) continue;
    if (type && t.type != *type) continue;
    if (source == "active" && !t.running) continue;
    if (source == "archive" && t.running) continue;
    if (errors_only && (t.running || t.exitstatus == "OK")) continue;
    all.push_back(task_json(t, false));
  }
  json::array page;
  for (std::size_t i = static_cast<std::size_t>(start);
       i < all.size() && page.size() < static_cast<std::size_t>(limit); ++i)
    page.push_back(all[i]);
  auto r = api_reply::ok(page);
  r.total = static_cast<std::int64_t>(all.size());
  return r;
}

api_reply pve_world::get_task_status(api_call& c) {
  auto t = find_task(*this, c);
  if (!t) return reply_from(t.error());
  return api_reply::ok(task_json(**t, true));
}

api_reply pve_world::get_task_log(api_call& c) {
  auto t = find_task(*this, c);
  if (!t) return reply_from(t.error());
  int start = 0, limit = 50;
  try {
    start = std::stoi(c.params.get_or("start", "0"));
    limit = std::stoi(c.params.get_or("limit", "50"));
  } catch (...) {
  }
  json::array out;
  const auto& log = (*t)->log;
  for (int i = start; i < static_cast<int>(log.size()) && static_cast<int>(out.size()) < limit; ++i)
    out.push_back(json::object{{"n", i + 1}, {"t", log[static_cast<std::size_t>(i)]}});
  auto r = api_reply::ok(out);
  r.total = static_cast<std::int64_t>(log.size());
  return r;
}

api_reply pve_world::delete_task(api_call& c) {
  auto t = find_task(*this, c);
  if (!t) return reply_from(t.error());
  auto& task = tasks[(*t)->upid];
  if (task.running) {
    task.running = false;
    task.endtime = now_epoch();
    task.exitstatus = "unexpected status";
    if (auto abort = std::move(task.on_abort)) abort();
    task.log.push_back("received interrupt");
    task.log.push_back("TASK ERROR: interrupted by signal");
    task.exitstatus = "interrupted by signal";
  }
  return api_reply::ok(nullptr);
}

}  // namespace kp::sim::pve
