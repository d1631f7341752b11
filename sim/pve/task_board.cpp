// Task endpoints: list, status, log, stop. UPIDs are parsed as Proxmox does; an unknown one is
// "no such task".
#include "sim/pve/task_board.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <set>

#include "sim/pve/api_router.hpp"
#include "sim/pve/number_text.hpp"
#include "sim/pve/parameter_checks.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {

bool hex_digits(std::string_view s, std::size_t min, std::size_t max) {
  if (s.size() < min || s.size() > max) return false;
  for (char ch : s)
    if (!std::isxdigit(static_cast<unsigned char>(ch))) return false;
  return true;
}

bool plain_field(std::string_view s, bool may_be_empty) {
  if (s.empty()) return may_be_empty;
  for (char ch : s)
    if (ch == '/' || std::isspace(static_cast<unsigned char>(ch))) return false;
  return true;
}

bool valid_node_name(std::string_view s) {
  if (s.empty() || !std::isalnum(static_cast<unsigned char>(s.front())) ||
      !std::isalnum(static_cast<unsigned char>(s.back())))
    return false;
  for (char ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-') return false;
  return true;
}

// UPID:<node>:<pid 8 hex>:<pstart 8-9 hex>:<starttime 8 hex>:<type>:<id>:<user>:
bool valid_upid(std::string_view upid) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    auto colon = upid.find(':', start);
    parts.push_back(
        upid.substr(start, colon == std::string_view::npos ? upid.npos : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return parts.size() == 9 && parts[0] == "UPID" && valid_node_name(parts[1]) &&
         hex_digits(parts[2], 8, 8) && hex_digits(parts[3], 8, 9) && hex_digits(parts[4], 8, 8) &&
         plain_field(parts[5], false) && plain_field(parts[6], true) &&
         plain_field(parts[7], false) && parts[8].empty();
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

}  // namespace

std::string task_board::start(const std::string& node, const std::string& type,
                              const std::string& id, const api_identity& who,
                              std::chrono::milliseconds duration, std::function<status()> work,
                              std::function<void()> on_abort) {
  auto upid = open(node, type, id, who, std::move(on_abort));
  world_.after(duration, [this, upid, work = std::move(work)]() mutable { finish(upid, work); });
  return upid;
}

task_board::waited task_board::start_and_wait(const std::string& node, const std::string& type,
                                              const std::string& id, const api_identity& who,
                                              std::chrono::milliseconds duration,
                                              std::chrono::milliseconds delay,
                                              std::function<status()> work,
                                              std::function<void()> on_abort) {
  if (duration > delay)
    return {start(node, type, id, who, duration, std::move(work), std::move(on_abort)), ""};
  auto upid = open(node, type, id, who, std::move(on_abort));
  finish(upid, work);
  const auto& t = tasks_.at(upid);
  return {"", t.exitstatus == "OK" ? "" : t.exitstatus};
}

std::string task_board::open(const std::string& node, const std::string& type,
                             const std::string& id, const api_identity& who,
                             std::function<void()> on_abort) {
  task_state t;
  t.node = node;
  t.type = type;
  t.id = id;
  t.user = who.user;
  t.tokenid = who.tokenid;
  t.pid = world_.take_pid();
  t.pstart = static_cast<std::uint32_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(sim_clock::now() - world_.boot_time())
              .count() /
          10 +
      123456);
  t.starttime = world_.now_epoch();
  t.upid = "UPID:" + node + ":" + upper_hex8(t.pid) + ":" + upper_hex8(t.pstart) + ":" +
           upper_hex8(t.starttime) + ":" + type + ":" + id + ":" + who.full() + ":";
  t.log.push_back("task started by " + who.full());
  t.on_abort = std::move(on_abort);
  const std::string upid = t.upid;
  tasks_[upid] = std::move(t);
  order_.push_back(upid);
  return upid;
}

void task_board::finish(const std::string& upid, std::function<status()>& work) {
  auto it = tasks_.find(upid);
  if (it == tasks_.end() || !it->second.running) return;
  std::string error;
  // A worker that dies ends its task with the error, as a Perl die in a fork_worker does.
  try {
    if (auto injected = world_.faults().task_failure(it->second.type)) {
      error = *injected;
      if (auto abort = std::move(it->second.on_abort)) abort();
    } else if (auto st = work(); !st) {
      error = st.error().message.empty() ? "task failed" : st.error().message;
    }
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unknown error";
  }
  auto& task = tasks_[upid];
  task.running = false;
  task.endtime = world_.now_epoch();
  if (error.empty()) {
    task.exitstatus = "OK";
    task.log.push_back("TASK OK");
  } else {
    task.exitstatus = error;
    task.log.push_back("TASK ERROR: " + error);
  }
}

const task_state* task_board::find(const std::string& upid) const {
  auto it = tasks_.find(upid);
  return it == tasks_.end() ? nullptr : &it->second;
}

void task_board::add_routes(api_router& router) {
  router.add("GET", "/cluster/tasks", [this](api_call& c) { return cluster_list(c); });
  router.add("GET", "/nodes/{node}/tasks", [this](api_call& c) { return list(c); });
  router.add("GET", "/nodes/{node}/tasks/{upid}/status",
             [this](api_call& c) { return status_of(c); });
  router.add("GET", "/nodes/{node}/tasks/{upid}/log", [this](api_call& c) { return log_of(c); });
  router.add("DELETE", "/nodes/{node}/tasks/{upid}", [this](api_call& c) { return stop(c); });
}

result<task_state*> task_board::task_of(api_call& c) {
  const auto& upid = c.path["upid"];
  if (!valid_upid(upid))
    return make_error("param:upid", "unable to parse worker upid '" + upid + "'");
  auto it = tasks_.find(upid);
  if (it == tasks_.end() || it->second.node != c.path["node"])
    return make_error("param:upid", "no such task");
  return &it->second;
}

api_reply task_board::list(api_call& c) {
  const auto& node = c.path["node"];
  auto vmid = c.params.get("vmid");
  auto type = c.params.get("typefilter");
  std::string source = c.params.get_or("source", "archive");
  bool errors_only = c.params.get_bool("errors").value_or(false);
  auto limit = check_integer("limit", c.params.get_or("limit", "50"), 0);
  if (!limit) return reply_from(limit.error());
  auto start = check_integer("start", c.params.get_or("start", "0"), 0);
  if (!start) return reply_from(start.error());
  json::array all;
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const auto& t = tasks_[*it];
    if (t.node != node) continue;
    if (vmid && t.id != *vmid) continue;
    if (type && t.type != *type) continue;
    if (source == "active" && !t.running) continue;
    if (source == "archive" && t.running) continue;
    if (errors_only && (t.running || t.exitstatus == "OK")) continue;
    all.push_back(task_json(t, false));
  }
  json::array page;
  for (std::size_t i = static_cast<std::size_t>(*start);
       i < all.size() && page.size() < static_cast<std::size_t>(*limit); ++i)
    page.push_back(all[i]);
  auto r = api_reply::ok(page);
  r.total = static_cast<std::int64_t>(all.size());
  return r;
}

// What each node broadcasts to the cluster (pve-common RESTEnvironment::active_workers at every
// worker start and end, pve-cluster broadcast_tasklist): its running tasks, then its most recent
// finished ones up to 25 in all (fewer while more run), newest first, the oldest dropped until
// the node's list serialises under 32 KiB. A token's tasks name the user and the tokenid apart.
api_reply task_board::cluster_list(api_call&) {
  constexpr std::size_t max_finished = 25;
  constexpr std::size_t max_bytes = 32 * 1024;
  std::map<std::string, std::vector<const task_state*>> running, finished;
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const auto& t = tasks_.at(*it);
    (t.running ? running : finished)[t.node].push_back(&t);
  }
  for (auto& [node, list] : finished) {
    std::stable_sort(list.begin(), list.end(), [](const task_state* a, const task_state* b) {
      return a->starttime > b->starttime;
    });
  }
  std::set<std::string> nodes;
  for (const auto& [node, list] : running) nodes.insert(node);
  for (const auto& [node, list] : finished) nodes.insert(node);
  json::array out;
  for (const auto& node : nodes) {
    json::array list;
    for (const auto* t : running[node]) {
      json::object o{{"upid", t->upid}, {"node", t->node},           {"pid", t->pid},
                     {"type", t->type}, {"starttime", t->starttime}, {"id", t->id},
                     {"user", t->user}};
      if (!t->tokenid.empty()) o["tokenid"] = t->tokenid;
      list.push_back(std::move(o));
    }
    const auto& done = finished[node];
    const std::size_t room = max_finished > list.size() ? max_finished - list.size() : 0;
    for (std::size_t i = 0; i < done.size() && i < room; ++i) {
      const auto* t = done[i];
      json::object o{
          {"upid", t->upid},       {"node", t->node},         {"type", t->type},
          {"id", t->id},           {"user", t->user},         {"starttime", t->starttime},
          {"endtime", t->endtime}, {"status", t->exitstatus}, {"saved", "1"}};
      if (!t->tokenid.empty()) o["tokenid"] = t->tokenid;
      list.push_back(std::move(o));
    }
    while (!list.empty() && json::serialize(list).size() >= max_bytes) list.pop_back();
    for (auto& o : list) out.push_back(std::move(o));
  }
  return api_reply::ok(out);
}

api_reply task_board::status_of(api_call& c) {
  auto t = task_of(c);
  if (!t) return reply_from(t.error());
  return api_reply::ok(task_json(**t, true));
}

api_reply task_board::log_of(api_call& c) {
  auto t = task_of(c);
  if (!t) return reply_from(t.error());
  auto start = check_integer("start", c.params.get_or("start", "0"), 0);
  if (!start) return reply_from(start.error());
  auto limit = check_integer("limit", c.params.get_or("limit", "50"), 0);
  if (!limit) return reply_from(limit.error());
  json::array out;
  const auto& log = (*t)->log;
  for (std::size_t i = static_cast<std::size_t>(*start);
       i < log.size() && out.size() < static_cast<std::size_t>(*limit); ++i)
    out.push_back(json::object{{"n", i + 1}, {"t", log[i]}});
  auto r = api_reply::ok(out);
  r.total = static_cast<std::int64_t>(log.size());
  return r;
}

api_reply task_board::stop(api_call& c) {
  auto t = task_of(c);
  if (!t) return reply_from(t.error());
  auto& task = **t;
  if (task.running) {
    task.running = false;
    task.endtime = world_.now_epoch();
    if (auto abort = std::move(task.on_abort)) abort();
    task.log.push_back("received interrupt");
    task.log.push_back("TASK ERROR: interrupted by signal");
    task.exitstatus = "interrupted by signal";
  }
  return api_reply::ok(nullptr);
}

}  // namespace kp::sim::pve
