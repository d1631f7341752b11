#pragma once
// The recorder's decisions, apart from CAF and I/O: whether an Event about an object may be
// sent now (a token bucket per object, so one flapping object cannot flood the API server) and
// whether it repeats one sent recently (then its count goes up instead of a new Event).
#include <chrono>
#include <cstdint>
#include <string>

#include "actors/event_recorder/lru_cache.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::actors::event_recorder {

// Which object an Event is about: its UID, or kind/namespace/name when the sender had no UID.
std::string object_key_of(const protocol::event_record& e);
// What makes two Events the same: object, type, reason and message.
std::string dedup_key_of(const protocol::event_record& e);
// Where the Event lives: the object's namespace, "default" for cluster-scoped objects.
std::string event_namespace_of(const protocol::event_record& e);

// One Event the recorder has written (or is writing) and may count repeats into.
struct recent_event {
  std::string name;
  std::string namespace_;
  std::int64_t count = 1;
  std::int64_t first_seen_ms = 0;
  std::int64_t last_seen_ms = 0;
  bool in_flight = false;  // a create or patch is on its way
  bool dirty = false;      // repeats arrived meanwhile: patch once it completes
};

// Recent Events by dedup key, at most `capacity`, each counting repeats for `window` after its
// last occurrence.
class recent_events {
 public:
  recent_events(std::size_t capacity, std::chrono::milliseconds window)
      : cache_(capacity), window_(window) {}
  // The Event a repeat at `now_ms` should count into; nullptr when none is recent enough.
  recent_event* repeat_of(const std::string& key, std::int64_t now_ms);
  recent_event& remember(const std::string& key, recent_event e) { return cache_.put(key, e); }
  recent_event* find(const std::string& key) { return cache_.peek(key); }
  void forget(const std::string& key) { cache_.erase(key); }
  std::size_t size() const { return cache_.size(); }

 private:
  lru_cache<recent_event> cache_;
  std::chrono::milliseconds window_;
};

// One token bucket per object: `burst` Events at once, then one every `refill_every`.
class object_rate_limiter {
 public:
  object_rate_limiter(std::size_t capacity, double burst, std::chrono::milliseconds refill_every)
      : buckets_(capacity), burst_(burst), refill_every_(refill_every) {}
  // Takes a token for `object` at `now_ms`; false when its bucket is empty.
  bool allow(const std::string& object, std::int64_t now_ms);

 private:
  struct bucket {
    double tokens = 0;
    std::int64_t updated_ms = 0;
  };
  lru_cache<bucket> buckets_;
  double burst_;
  std::chrono::milliseconds refill_every_;
};

// A unique Event name as client-go makes them: "<object name>.<hex of a nanosecond clock>";
// `sequence` keeps two Events of the same millisecond apart.
std::string event_name_for(const std::string& object_name, std::int64_t now_ms,
                           std::uint64_t sequence);

}  // namespace kp::actors::event_recorder
