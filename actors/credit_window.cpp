#include "actors/credit_window.hpp"

#include <cassert>
#include <utility>

#include <prometheus/gauge.h>
#include <prometheus/registry.h>

namespace kp::actors {

credit_window::credit_window(std::size_t limit, prometheus::Gauge* depth_gauge)
    : limit_(limit == 0 ? 1 : limit), gauge_(depth_gauge) {
  publish();
}

void credit_window::submit(std::function<void()> send) {
  if (in_flight_ < limit_) {
    ++in_flight_;
    publish();
    send();
    return;
  }
  queue_.push_back(std::move(send));
  publish();
}

void credit_window::complete() {
  assert(in_flight_ > 0 && "complete() without an outstanding request");
  if (in_flight_ == 0) return;
  --in_flight_;
  if (!queue_.empty()) {
    auto next = std::move(queue_.front());
    queue_.pop_front();
    ++in_flight_;
    publish();
    next();
    return;
  }
  publish();
}

void credit_window::publish() {
  if (gauge_ != nullptr) gauge_->Set(static_cast<double>(depth()));
}

credit_windows::credit_windows(std::size_t limit_per_receiver, std::string sender,
                               prometheus::Registry* registry)
    : limit_(limit_per_receiver), sender_(std::move(sender)) {
  if (registry != nullptr) {
    family_ = &prometheus::BuildGauge()
                   .Name("karpenter_proxmox_actor_queue_depth")
                   .Help(
                       "Requests a sender has in flight to a receiver plus those it queues "
                       "for lack of credit.")
                   .Register(*registry);
  }
}

credit_window& credit_windows::to(const std::string& receiver) {
  auto it = windows_.find(receiver);
  if (it != windows_.end()) return *it->second;
  prometheus::Gauge* gauge =
      family_ != nullptr ? &family_->Add({{"sender", sender_}, {"receiver", receiver}}) : nullptr;
  auto [inserted, _] = windows_.emplace(receiver, std::make_unique<credit_window>(limit_, gauge));
  return *inserted->second;
}

std::size_t credit_windows::total_depth() const {
  std::size_t total = 0;
  for (const auto& [_, w] : windows_) total += w->depth();
  return total;
}

}  // namespace kp::actors
