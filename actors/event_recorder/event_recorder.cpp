// The recorder actor. Each create or patch completes on an io thread and comes back as a
// `resume` message; at most one write per Event is in flight, and repeats arriving meanwhile
// are folded into one follow-up patch, so the count on the server only ever grows.
#include "actors/event_recorder/event_recorder.hpp"

#include <boost/json.hpp>
#include <caf/all.hpp>

#include "actors/continuation.hpp"
#include "actors/event_recorder/event_dedup.hpp"
#include "actors/failure_boundary.hpp"
#include "observability/logging.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/model_translation.hpp"

namespace kp::actors::event_recorder {
namespace {

using namespace kp::protocol;
using impl_actor = event_recorder_actor::extend<caf::reacts_to<resume_atom, continuation>>;

constexpr std::size_t max_message_bytes = 1024;

struct recorder_state {
  std::shared_ptr<kube::client> kube;
  event_recorder_options opt;
  std::unique_ptr<recent_events> recent;
  std::unique_ptr<object_rate_limiter> limiter;
  std::uint64_t sequence = 0;
  std::uint64_t dropped = 0;
  obs::logger log{"events"};
};

using self_ptr = impl_actor::stateful_pointer<recorder_state>;

template <class T>
std::function<void(result<T>)> resume(self_ptr self, std::function<void(result<T>)> f) {
  return resume_in<result<T>>(impl_actor{self}, std::move(f));
}

void send_patch(self_ptr self, const std::string& key);

void after_write(self_ptr self, const std::string& key) {
  auto* e = self->state.recent->find(key);
  if (e == nullptr) return;
  e->in_flight = false;
  if (e->dirty) {
    e->dirty = false;
    send_patch(self, key);
  }
}

void send_patch(self_ptr self, const std::string& key) {
  auto& st = self->state;
  auto* e = st.recent->find(key);
  if (e == nullptr) return;
  e->in_flight = true;
  boost::json::object body;
  body["count"] = e->count;
  body["lastTimestamp"] = kube::format_rfc3339(e->last_seen_ms);
  st.kube->patch<kube::event>(
      {e->namespace_, e->name}, kube::patch_type::merge, boost::json::serialize(body),
      resume<kube::event>(self, [self, key](result<kube::event> r) {
        auto& st = self->state;
        if (!r) {
          auto* e = st.recent->find(key);
          st.log.warn("event update failed", {{"event", e ? e->namespace_ + "/" + e->name : ""},
                                              {"code", r.error().code},
                                              {"error", r.error().message}});
          // Gone (Events expire on the server) or broken: the next repeat starts a new Event.
          st.recent->forget(key);
          return;
        }
        after_write(self, key);
      }));
}

void send_create(self_ptr self, const std::string& key, const event_record& rec) {
  auto& st = self->state;
  auto* e = st.recent->find(key);
  if (e == nullptr) return;
  kube::event ev;
  ev.metadata.name = e->name;
  ev.metadata.namespace_ = e->namespace_;
  ev.involved_object.kind = rec.kind;
  ev.involved_object.api_version = rec.api_version;
  ev.involved_object.namespace_ = rec.namespace_;
  ev.involved_object.name = rec.name;
  ev.involved_object.uid = rec.uid;
  ev.reason = rec.reason;
  ev.message = rec.message.size() > max_message_bytes ? rec.message.substr(0, max_message_bytes)
                                                      : rec.message;
  ev.type = rec.type.empty() ? "Normal" : rec.type;
  ev.count = e->count;
  ev.first_timestamp = kube::format_rfc3339(e->first_seen_ms);
  ev.last_timestamp = kube::format_rfc3339(e->last_seen_ms);
  ev.source.component = st.opt.reporting_component;
  ev.reporting_component = st.opt.reporting_component;
  e->in_flight = true;
  st.kube->create<kube::event>(ev, resume<kube::event>(self, [self, key](result<kube::event> r) {
                                 auto& st = self->state;
                                 if (!r) {
                                   st.log.warn(
                                       "event create failed",
                                       {{"code", r.error().code}, {"error", r.error().message}});
                                   st.recent->forget(key);
                                   return;
                                 }
                                 after_write(self, key);
                               }));
}

void record(self_ptr self, const event_record& rec) {
  auto& st = self->state;
  const auto now = st.opt.wall_clock_ms();
  if (!st.limiter->allow(object_key_of(rec), now)) {
    // Debug only: a flood of Events is exactly when a log line per Event would hurt.
    if (st.dropped++ % 100 == 0) {
      st.log.info("events dropped by the per-object rate limit",
                  {{"object", rec.kind + " " + rec.namespace_ + "/" + rec.name},
                   {"reason", rec.reason},
                   {"dropped_total", std::to_string(st.dropped)}});
    }
    return;
  }
  const auto key = dedup_key_of(rec);
  if (auto* e = st.recent->repeat_of(key, now)) {
    ++e->count;
    e->last_seen_ms = now;
    if (e->in_flight) {
      e->dirty = true;
    } else {
      send_patch(self, key);
    }
    return;
  }
  recent_event e;
  e.name = event_name_for(rec.name, now, st.sequence++);
  e.namespace_ = event_namespace_of(rec);
  e.first_seen_ms = now;
  e.last_seen_ms = now;
  st.recent->remember(key, e);
  send_create(self, key, rec);
}

impl_actor::behavior_type recorder_behavior(self_ptr self, std::shared_ptr<kube::client> kube,
                                            event_recorder_options opt) {
  auto& st = self->state;
  st.kube = std::move(kube);
  if (!opt.wall_clock_ms) {
    opt.wall_clock_ms = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
  st.recent = std::make_unique<recent_events>(opt.max_remembered, opt.dedup_window);
  st.limiter =
      std::make_unique<object_rate_limiter>(opt.max_remembered, opt.burst, opt.refill_every);
  auto boundary = make_boundary("event_recorder", opt.metrics);
  install_boundary(self, boundary);
  st.opt = std::move(opt);
  return guarded_behavior<impl_actor::behavior_type>(
      boundary, [self](event_record& rec) { record(self, rec); },
      [boundary](resume_atom, continuation& c) { boundary->run(c); });
}

}  // namespace

protocol::event_recorder_actor spawn_event_recorder(caf::actor_system& system,
                                                    std::shared_ptr<kube::client> kube,
                                                    std::string reporting_component) {
  event_recorder_options o;
  o.reporting_component = std::move(reporting_component);
  return spawn_event_recorder(system, std::move(kube), std::move(o));
}

protocol::event_recorder_actor spawn_event_recorder(caf::actor_system& system,
                                                    std::shared_ptr<kube::client> kube,
                                                    event_recorder_options options) {
  return system.spawn(recorder_behavior, std::move(kube), std::move(options));
}

}  // namespace kp::actors::event_recorder
