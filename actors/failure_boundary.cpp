#include "actors/failure_boundary.hpp"

#include "protocol/transport/failure_report.hpp"

namespace kp::actors {

failure_boundary::failure_boundary(std::string actor,
                                   const std::shared_ptr<obs::karpenter_metrics>& metrics)
    : actor_(std::move(actor)), log_("actor." + actor_) {
  if (metrics) counter_ = &metrics->actor_failures.Add({{"actor", actor_}});
}

void failure_boundary::run(continuation& c) const noexcept {
  contain(c.subject.empty() ? std::string_view("an I/O completion") : std::string_view(c.subject),
          c.run);
}

void failure_boundary::report(std::string_view subject,
                              const std::exception_ptr& failure) const noexcept {
  failures_.fetch_add(1);
  try {
    if (counter_) counter_->Increment();
    log_.error("a handler threw; the failure is confined to what it was handling",
               {{"actor", actor_},
                {"subject", std::string(subject)},
                {"error", transport::describe(failure)}});
  } catch (...) {
    // Logging itself failed (out of memory): the count above is all that can be kept.
  }
}

}  // namespace kp::actors
