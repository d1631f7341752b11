#pragma once
// An actor system on CAF's deterministic test coordinator: virtual time, every message run by
// the test thread (sched().run(), advance_time(), trigger_timeouts()).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

namespace kp::test {

class caf_test : public ::testing::Test {
 protected:
  caf_test() {
    config_.set("scheduler.policy", caf::atom("testing"));
    system_ = std::make_unique<caf::actor_system>(config_);
    sched_ = &dynamic_cast<caf::scheduler::test_coordinator&>(system_->scheduler());
  }
  ~caf_test() override {
    for (auto& a : kept_) caf::anon_send_exit(a, caf::exit_reason::kill);
    sched_->run();
    system_.reset();
  }

  caf::actor_system& sys() { return *system_; }
  caf::scheduler::test_coordinator& sched() { return *sched_; }

  // Keeps a handle so that the actor is stopped at the end and the system can shut down.
  template <class Handle>
  Handle keep(Handle h) {
    kept_.push_back(caf::actor_cast<caf::actor>(h));
    return h;
  }
  // Moves virtual time forward by `t` and runs every message that became due.
  void advance(caf::timespan t) {
    sched_->advance_time(t);
    sched_->run();
  }

 private:
  caf::actor_system_config config_;
  std::unique_ptr<caf::actor_system> system_;
  caf::scheduler::test_coordinator* sched_ = nullptr;
  std::vector<caf::actor> kept_;
};

}  // namespace kp::test
