#pragma once
// Backpressure as credit: CAF mailboxes are unbounded, so a sender keeps at most `limit`
// requests outstanding per receiver and queues the rest until a reply (or error) returns a
// credit. Depth = in flight + queued is exported as a gauge.
//
// Use inside an actor's state (single-threaded, like the rest of the state):
//   state.window.submit([=] {
//     self->request(receiver, timeout, msg...).then(
//         [=](reply& r) { self->state.window.complete(); ... },
//         [=](caf::error& e) { self->state.window.complete(); ... });
//   });
// Every submitted send must lead to exactly one complete(), on success and on error alike.
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace prometheus {
class Gauge;
class Registry;
template <class T>
class Family;
}  // namespace prometheus

namespace kp::actors {

class credit_window {
 public:
  explicit credit_window(std::size_t limit, prometheus::Gauge* depth_gauge = nullptr);

  // Sends now when a credit is free, otherwise queues `send` (FIFO).
  void submit(std::function<void()> send);
  // A reply or error arrived: returns the credit and starts the oldest queued send, if any.
  void complete();

  std::size_t limit() const { return limit_; }
  std::size_t in_flight() const { return in_flight_; }
  std::size_t queued() const { return queue_.size(); }
  std::size_t depth() const { return in_flight_ + queue_.size(); }

 private:
  void publish();

  std::size_t limit_;
  std::size_t in_flight_ = 0;
  std::deque<std::function<void()>> queue_;
  prometheus::Gauge* gauge_;
};

// One window per receiver (e.g. per Proxmox region), each with its own gauge labelled
// {sender, receiver} in the family karpenter_proxmox_actor_queue_depth.
class credit_windows {
 public:
  credit_windows(std::size_t limit_per_receiver, std::string sender,
                 prometheus::Registry* registry = nullptr);

  credit_window& to(const std::string& receiver);
  std::size_t total_depth() const;

 private:
  std::size_t limit_;
  std::string sender_;
  prometheus::Family<prometheus::Gauge>* family_ = nullptr;
  std::map<std::string, std::unique_ptr<credit_window>> windows_;
};

}  // namespace kp::actors
