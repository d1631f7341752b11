// Task waits on the actor clock. Each wait has its own schedule: a first look after the typical
// duration learnt for its task type and host (task_timing.hpp), then from initial_interval
// growing by the multiplier. Looks share GET /cluster/tasks reads in rounds: the first wait that
// falls due opens a round, every wait falling due within cfg.task_list_gather joins it, and then
// one read goes out; a wait that falls due while that read is in flight rides on it when its
// task existed before the read went out (else it opens the next round). The answer finishes
// every pending wait whose task it lists as finished, due or not; a due wait whose task the list
// leaves out (past Proxmox's 25 finished per host, or not yet propagated) reads its own
// /nodes/{node}/tasks/{upid}/status. So a burst of launches costs about one read per poll round
// however its waits are spread within the round.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "actors/region/region_state.hpp"
#include "protocol/proxmox/api_error.hpp"

namespace kp::actors::region {

using namespace kp::protocol;

struct task_wait {
  proxmox::upid task;
  proxmox::task_wait_options options;
  caf::actor_clock::time_point started;
  std::optional<std::chrono::milliseconds> last_running;  // since `started`, for task_timing
  caf::actor_clock::time_point deadline;
  std::chrono::milliseconds interval;
  std::function<void(status)> done;
  // Runs a step of this wait in the scope of the launch that started it (nothing when a fault
  // ended that launch meanwhile).
  std::function<void(std::function<void()>)> in_scope;
  std::optional<kp::error> last_error;
  // How many list reads had gone out when the wait began: only a later one can list its task.
  std::uint64_t reads_before = 0;
  bool finished = false;
};

namespace {

using wait_ptr = std::shared_ptr<task_wait>;

void on_due(self_ptr self, const wait_ptr& w);

std::chrono::milliseconds since_start(self_ptr self, const task_wait& w) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(self->clock().now() - w.started);
}

void finish(self_ptr self, const wait_ptr& w, status s) {
  if (w->finished) return;
  w->finished = true;
  auto& pending = self->state.task_waits;
  if (auto it = pending.find(w->task.text); it != pending.end() && it->second.lock() == w)
    pending.erase(it);
  w->done(std::move(s));
}

kp::error timed_out(const task_wait& w) {
  std::string why = "task " + w.task.type + " still running when the deadline of " +
                    std::to_string(w.options.timeout.count()) + " ms passed";
  if (w.last_error) {
    why += " (last poll: " + w.last_error->code + ": " + w.last_error->message + ")";
  }
  return make_error("timeout", why);
}

// The next look at the task, or the timeout when its deadline passed.
void schedule_next(self_ptr self, const wait_ptr& w) {
  auto now = self->clock().now();
  if (now >= w->deadline) return finish(self, w, timed_out(*w));
  auto wait = std::min(w->interval,
                       std::chrono::duration_cast<std::chrono::milliseconds>(w->deadline - now));
  auto next = std::chrono::milliseconds(
      static_cast<std::int64_t>(static_cast<double>(w->interval.count()) * w->options.multiplier));
  w->interval = std::clamp(next, std::chrono::milliseconds(1),
                           std::max(w->options.max_interval, std::chrono::milliseconds(1)));
  after(self, wait, [self, w] { on_due(self, w); });
}

// What one look (a status read or the cluster list) saw of the task.
void on_status(self_ptr self, const wait_ptr& w, const proxmox::task_status& s, bool due) {
  if (w->finished) return;
  if (s.succeeded()) {
    self->state.timing.observe(w->task.type, w->task.node, w->last_running, since_start(self, *w));
    return finish(self, w, {});
  }
  if (!s.running()) {
    return finish(
        self, w,
        make_error("task_failed",
                   "task " + s.type + (s.id.empty() ? "" : " " + s.id) + " on " + s.node +
                       " failed: " + (s.exitstatus.empty() ? "unknown status" : s.exitstatus)));
  }
  w->last_error.reset();
  w->last_running = since_start(self, *w);
  if (due) schedule_next(self, w);
}

void poll_own_status(self_ptr self, const wait_ptr& w) {
  self->state.api->task_status(
      w->task, bounce<proxmox::task_status>(self, [self, w](result<proxmox::task_status> r) {
        if (w->finished) return;
        if (r) return on_status(self, w, *r, true);
        if (!proxmox::is_transient(r.error())) return finish(self, w, r.error());
        w->last_error = r.error();
        schedule_next(self, w);
      }));
}

// Proxmox lists a finished task with what its log's last line says; an entry without it says
// nothing the wait can use.
bool answers(const proxmox::task_status& s) {
  return s.running() || !s.exitstatus.empty();
}

// Proxmox will not serve the list to us (no permission, no such endpoint): not worth asking
// again. Anything else (a 5xx, a timeout) costs only that round its answers.
bool refused_for_good(const kp::error& e) {
  return e.code == "forbidden" || e.code == "not_found" || e.code == "not_implemented" ||
         e.code == "bad_request" || e.code == "invalid_parameter";
}

void read_cluster_tasks(self_ptr self);

// A round starts: waits falling due within the gather window join it, then its read goes out.
void open_round(self_ptr self) {
  auto& st = self->state;
  if (st.cfg.task_list_gather.count() <= 0) return read_cluster_tasks(self);
  st.task_list_gathering = true;
  // The read serves every wait of the region: no single launch's fault may drop it.
  launch_scope region_wide(st, {});
  after(self, st.cfg.task_list_gather, [self] {
    self->state.task_list_gathering = false;
    read_cluster_tasks(self);
  });
}

// Runs a wait's step on its own: a fault in one (outside any launch) leaves the others.
void step(self_ptr self, const wait_ptr& w, const std::function<void()>& f) {
  auto& st = self->state;
  if (st.boundary) {
    st.boundary->contain("task " + w->task.text, [&] { w->in_scope(f); });
  } else {
    w->in_scope(f);
  }
}

void on_cluster_tasks(self_ptr self, std::uint64_t read,
                      result<std::vector<proxmox::task_status>> r) {
  auto& st = self->state;
  st.task_list_in_flight = false;
  std::map<std::string, const proxmox::task_status*> listed;
  if (r) {
    for (const auto& s : *r)
      if (answers(s)) listed.emplace(s.upid, &s);
  } else if (refused_for_good(r.error())) {
    st.log.warn("GET /cluster/tasks failed (" + r.error().code + ": " + r.error().message +
                "): every task wait of region " + st.cfg.region +
                " polls its own task from now on");
    st.task_list_usable = false;
  }
  // The due waits whose task existed when the read went out are this read's; the others wait
  // for the next round.
  std::vector<wait_ptr> served;
  std::vector<wait_ptr> later;
  for (auto& w : st.due_task_waits) {
    if (w->finished) continue;
    (w->reads_before < read ? served : later).push_back(std::move(w));
  }
  st.due_task_waits = std::move(later);
  // Every pending wait whose task ended is answered now, due or not.
  std::vector<std::pair<wait_ptr, const proxmox::task_status*>> ended;
  for (auto it = st.task_waits.begin(); it != st.task_waits.end();) {
    auto w = it->second.lock();
    if (!w || w->finished) {
      it = st.task_waits.erase(it);
      continue;
    }
    if (auto hit = listed.find(it->first); hit != listed.end() && !hit->second->running())
      ended.emplace_back(w, hit->second);
    ++it;
  }
  for (auto& [w, s] : ended) {
    step(self, w, [&, w = w, s = s] { on_status(self, w, *s, false); });
  }
  // A served wait the list shows running looks again later; one it leaves out reads its own.
  for (auto& w : served) {
    if (w->finished) continue;
    auto hit = listed.find(w->task.text);
    step(self, w, [&, w] {
      if (hit == listed.end()) return poll_own_status(self, w);
      on_status(self, w, *hit->second, true);
    });
  }
  // Waits left for the next round start it (unless one of the steps did).
  std::erase_if(st.due_task_waits, [](const wait_ptr& w) { return w->finished; });
  if (!st.due_task_waits.empty() && !st.task_list_in_flight && !st.task_list_gathering)
    open_round(self);
}

void read_cluster_tasks(self_ptr self) {
  auto& st = self->state;
  if (!st.task_list_usable) {
    auto due = std::move(st.due_task_waits);
    st.due_task_waits.clear();
    for (auto& w : due) step(self, w, [&] { poll_own_status(self, w); });
    return;
  }
  st.task_list_in_flight = true;
  const auto read = ++st.task_list_reads;
  // The read serves every wait of the region: no single launch's fault may drop its answer.
  launch_scope region_wide(st, {});
  st.api->cluster_tasks(bounce<std::vector<proxmox::task_status>>(
      self, [self, read](result<std::vector<proxmox::task_status>> r) {
        on_cluster_tasks(self, read, std::move(r));
      }));
}

void on_due(self_ptr self, const wait_ptr& w) {
  if (w->finished) return;
  auto& st = self->state;
  if (!st.cfg.cluster_task_list || !st.task_list_usable) return poll_own_status(self, w);
  st.due_task_waits.push_back(w);
  // A read in flight or a round gathering takes it along.
  if (!st.task_list_in_flight && !st.task_list_gathering) open_round(self);
}

}  // namespace

void wait_task(self_ptr self, const proxmox::upid& task, proxmox::task_wait_options wait,
               std::function<void(status)> done) {
  auto w = std::make_shared<task_wait>();
  w->task = task;
  w->options = wait;
  w->started = self->clock().now();
  w->deadline = w->started + wait.timeout;
  w->interval = std::max(wait.initial_interval, std::chrono::milliseconds(1));
  w->done = std::move(done);
  w->reads_before = self->state.task_list_reads;
  w->in_scope = within_launch(self, std::function<void(std::function<void()>)>(
                                        [](const std::function<void()>& step) { step(); }));
  // The deadline holds even when a look never comes back (a list read that hangs): past it by
  // a poll interval and a gather window, the wait ends unless a look ended it.
  after(self, wait.timeout + wait.max_interval + self->state.cfg.task_list_gather, [self, w] {
    if (!w->finished) finish(self, w, timed_out(*w));
  });
  // Only the shared list looks a wait up by its UPID.
  if (self->state.cfg.cluster_task_list) self->state.task_waits[task.text] = w;
  // The first look when a task of this kind usually ends there (at once while none ended yet).
  auto first = std::min(self->state.timing.first_poll(task.type, task.node), wait.timeout);
  if (first.count() <= 0) return on_due(self, w);
  after(self, first, [self, w] { on_due(self, w); });
}

void wait_optional_task(self_ptr self, result<std::optional<proxmox::upid>> task,
                        proxmox::task_wait_options wait, std::function<void(status)> done) {
  if (!task) return done(task.error());
  if (!*task) return done({});
  wait_task(self, **task, wait, std::move(done));
}

void wait_started_task(self_ptr self, result<proxmox::upid> task, proxmox::task_wait_options wait,
                       std::function<void(status)> done) {
  if (!task) return done(task.error());
  wait_task(self, *task, wait, std::move(done));
}

}  // namespace kp::actors::region
