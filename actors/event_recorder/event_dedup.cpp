#include "actors/event_recorder/event_dedup.hpp"

#include <algorithm>
#include <cstdio>

namespace kp::actors::event_recorder {

std::string object_key_of(const protocol::event_record& e) {
  if (!e.uid.empty()) return e.uid;
  return e.kind + "/" + e.namespace_ + "/" + e.name;
}

std::string dedup_key_of(const protocol::event_record& e) {
  // \x1f (unit separator) cannot appear in a UID, type or reason, so the parts never blur.
  return object_key_of(e) + '\x1f' + e.type + '\x1f' + e.reason + '\x1f' + e.message;
}

std::string event_namespace_of(const protocol::event_record& e) {
  return e.namespace_.empty() ? "default" : e.namespace_;
}

recent_event* recent_events::repeat_of(const std::string& key, std::int64_t now_ms) {
  auto* e = cache_.touch(key);
  if (e == nullptr) return nullptr;
  if (now_ms - e->last_seen_ms > window_.count()) {
    cache_.erase(key);
    return nullptr;
  }
  return e;
}

bool object_rate_limiter::allow(const std::string& object, std::int64_t now_ms) {
  auto* b = buckets_.touch(object);
  if (b == nullptr) b = &buckets_.put(object, bucket{burst_, now_ms});
  if (refill_every_.count() > 0 && now_ms > b->updated_ms) {
    const double refill =
        static_cast<double>(now_ms - b->updated_ms) / static_cast<double>(refill_every_.count());
    b->tokens = std::min(burst_, b->tokens + refill);
  }
  b->updated_ms = std::max(b->updated_ms, now_ms);
  if (b->tokens < 1.0) return false;
  b->tokens -= 1.0;
  return true;
}

std::string event_name_for(const std::string& object_name, std::int64_t now_ms,
                           std::uint64_t sequence) {
  const auto nanos = static_cast<unsigned long long>(now_ms) * 1000000ULL + (sequence % 1000000ULL);
  char hex[24];
  std::snprintf(hex, sizeof hex, "%llx", nanos);
  // Names are DNS subdomains of at most 253 characters; long object names are cut.
  std::string base = object_name.substr(0, 253 - 1 - 16);
  if (base.empty()) base = "object";
  return base + "." + hex;
}

}  // namespace kp::actors::event_recorder
