#include "actors/region/vmid_allocator.hpp"

#include <utility>

namespace kp::actors::region {

vmid_allocator::vmid_allocator(std::uint32_t first, std::chrono::seconds quarantine,
                               std::uint32_t last)
    : first_(first), last_(last), quarantine_(quarantine) {}

void vmid_allocator::set_existing(std::set<std::uint32_t> ids) {
  existing_ = std::move(ids);
}

void vmid_allocator::mark_taken(std::uint32_t id) {
  existing_.insert(id);
}

void vmid_allocator::set_claimed(std::set<std::uint32_t> ids) {
  claimed_ = std::move(ids);
}

bool vmid_allocator::is_free(std::uint32_t id, clock::time_point now) const {
  if (existing_.count(id) != 0 || reserved_.count(id) != 0 || claimed_.count(id) != 0) {
    return false;
  }
  auto q = quarantined_.find(id);
  return q == quarantined_.end() || q->second <= now;
}

std::optional<std::uint32_t> vmid_allocator::reserve(clock::time_point now) {
  // Expired quarantines are forgotten so the map stays small.
  for (auto it = quarantined_.begin(); it != quarantined_.end();) {
    it = it->second <= now ? quarantined_.erase(it) : std::next(it);
  }
  for (std::uint64_t id = first_; id <= last_; ++id) {
    auto candidate = static_cast<std::uint32_t>(id);
    if (is_free(candidate, now)) {
      reserved_.insert(candidate);
      return candidate;
    }
  }
  return std::nullopt;
}

void vmid_allocator::release(std::uint32_t id, bool created) {
  reserved_.erase(id);
  if (created) existing_.insert(id);
}

void vmid_allocator::deleted(std::uint32_t id, clock::time_point now) {
  existing_.erase(id);
  reserved_.erase(id);
  quarantined_[id] = now + quarantine_;
}

}  // namespace kp::actors::region
