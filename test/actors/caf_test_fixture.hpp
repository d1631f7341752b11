#pragma once
// An actor system on CAF's deterministic test coordinator: virtual time, every message run by
// the test thread (sched().run(), advance_time(), trigger_timeouts()).
#include <gtest/gtest.h>

#include <memory>

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
    sched_->run();
    system_.reset();
  }

  caf::actor_system& sys() { return *system_; }
  caf::scheduler::test_coordinator& sched() { return *sched_; }

 private:
  caf::actor_system_config config_;
  std::unique_ptr<caf::actor_system> system_;
  caf::scheduler::test_coordinator* sched_ = nullptr;
};

}  // namespace kp::test
