#pragma once
// VMID allocation that is safe against races and restarts: never hands out an id that exists
// (every VM and template the inventory saw), that is reserved by an operation in flight, or that
// was deleted within the quarantine (the Go provider's 5-minute cache), or that an existing
// NodeClaim's providerID names (even when its VM vanished: the id could be confused with it),
// starting at PROXMOX_VMID. A clone that still hits an existing id (another controller took it)
// marks the id taken and asks again. Pure; time is passed in.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

namespace kp::actors::region {

class vmid_allocator {
 public:
  using clock = std::chrono::steady_clock;

  explicit vmid_allocator(std::uint32_t first = 20000,
                          std::chrono::seconds quarantine = std::chrono::minutes(5),
                          std::uint32_t last = 999'999'999);

  // The ids the last inventory listed (replaces the previous list; reservations stay).
  void set_existing(std::set<std::uint32_t> ids);
  void mark_taken(std::uint32_t id);  // seen by a clone's "already exists"
  // The VMIDs NodeClaims name (replaces the previous set).
  void set_claimed(std::set<std::uint32_t> ids);
  // The lowest free id, reserved until release(); nothing when the range is exhausted.
  std::optional<std::uint32_t> reserve(clock::time_point now);
  // The operation ended; `created` keeps it as existing, otherwise it is free again.
  void release(std::uint32_t id, bool created);
  // A VM was deleted: not reused before now + quarantine.
  void deleted(std::uint32_t id, clock::time_point now);

  bool is_free(std::uint32_t id, clock::time_point now) const;
  std::size_t reserved() const { return reserved_.size(); }

 private:
  std::uint32_t first_;
  std::uint32_t last_;
  std::chrono::seconds quarantine_;
  std::set<std::uint32_t> existing_;
  std::set<std::uint32_t> reserved_;
  std::set<std::uint32_t> claimed_;
  std::map<std::uint32_t, clock::time_point> quarantined_;  // id -> free again at
};

}  // namespace kp::actors::region
