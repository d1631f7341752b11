// The exception boundary: a handler, an I/O completion or one object of a loop that throws is
// logged, counted in karpenter_proxmox_actor_failures_total{actor} and confined to itself; the
// actor keeps its state and answers the next message, and a failed request gets an error reply
// instead of silence. What escapes every guard stops the actor through CAF's exception handler,
// counted the same way. Virtual time throughout.
#include <gtest/gtest.h>

#include <prometheus/registry.h>

#include <stdexcept>
#include <tuple>
#include <variant>

#include "actors/continuation.hpp"
#include "actors/failure_boundary.hpp"
#include "caf_test_fixture.hpp"

namespace kp::actors {
namespace {

using add_atom = caf::atom_constant<caf::atom("add")>;
using get_atom = caf::atom_constant<caf::atom("get")>;
using pair_atom = caf::atom_constant<caf::atom("pair")>;
using each_atom = caf::atom_constant<caf::atom("each")>;
using unguarded_atom = caf::atom_constant<caf::atom("unguarded")>;

using counter_actor =
    caf::typed_actor<caf::reacts_to<add_atom, int>, caf::replies_to<get_atom>::with<int>,
                     caf::replies_to<pair_atom>::with<bool, std::string>,
                     caf::replies_to<each_atom>::with<std::size_t>, caf::reacts_to<unguarded_atom>,
                     caf::reacts_to<resume_atom, continuation>>;

struct counter_state {
  counter_state() = default;
  int total = 0;
  std::vector<std::string> handled;  // objects of the `each` loop that went through
};

counter_actor::behavior_type counter(counter_actor::stateful_pointer<counter_state> self,
                                     boundary_ptr boundary) {
  install_boundary(self, boundary);
  return guarded_behavior<counter_actor::behavior_type>(
      boundary,
      [self](add_atom, int n) {
        if (n < 0) throw std::invalid_argument("negative amount " + std::to_string(n));
        self->state.total += n;
      },
      [self](get_atom) {
        if (self->state.total == 13) throw std::runtime_error("unlucky total");
        return self->state.total;
      },
      [](pair_atom) { return std::make_tuple(true, std::string("both")); },
      [self, boundary](each_atom) {
        for (std::string name : {"a", "b", "c"}) {
          boundary->contain("object " + name, [&] {
            if (name == "b") throw std::out_of_range("b is broken");
            self->state.handled.push_back(name);
          });
        }
        return self->state.handled.size();
      },
      [self](unguarded_atom) {
        // A response handler left outside the boundary: the last net stops the actor.
        self->request(counter_actor{self}, std::chrono::seconds(1), pair_atom::value)
            .then([](bool, std::string&) { throw std::logic_error("outside every guard"); });
      },
      [boundary](resume_atom, continuation& c) { boundary->run(c); });
}

class FailureBoundary : public test::caf_test {
 protected:
  FailureBoundary() {
    metrics_ = std::make_shared<obs::karpenter_metrics>(registry_);
    boundary_ = make_boundary("counter", metrics_);
    actor_ = sys().spawn(counter, boundary_);
    sched().run();
  }
  ~FailureBoundary() override {
    caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown);
    sched().run();
  }

  double failures_metric() { return metrics_->actor_failures.Add({{"actor", "counter"}}).Value(); }

  // The answer to a request, or the error it was answered with.
  template <class... Rs, class... Ts>
  std::variant<std::tuple<Rs...>, caf::error> ask(Ts... xs) {
    std::variant<std::tuple<Rs...>, caf::error> out = caf::error{};
    bool answered = false;
    sys().spawn([&](caf::event_based_actor* self) {
      self->request(actor_, std::chrono::seconds(5), xs...)
          .then([&](Rs&... rs) { out = std::make_tuple(rs...), answered = true; },
                [&](caf::error& e) { out = e, answered = true; });
    });
    sched().run();
    EXPECT_TRUE(answered);
    return out;
  }

  prometheus::Registry registry_;
  std::shared_ptr<obs::karpenter_metrics> metrics_;
  boundary_ptr boundary_;
  counter_actor actor_;
};

TEST_F(FailureBoundary, AHandlerThatThrowsIsCountedAndTheActorTakesTheNextMessage) {
  caf::anon_send(actor_, add_atom::value, 5);
  caf::anon_send(actor_, add_atom::value, -1);  // throws
  caf::anon_send(actor_, add_atom::value, 2);
  sched().run();
  EXPECT_EQ(boundary_->failures(), 1u);
  EXPECT_EQ(failures_metric(), 1.0);
  auto total = ask<int>(get_atom::value);
  ASSERT_TRUE(std::holds_alternative<std::tuple<int>>(total));
  EXPECT_EQ(std::get<0>(std::get<std::tuple<int>>(total)), 7);  // state kept across the failure
}

TEST_F(FailureBoundary, ARequestWhoseHandlerThrowsIsAnsweredWithAnErrorNotSilence) {
  caf::anon_send(actor_, add_atom::value, 13);
  sched().run();
  auto answer = ask<int>(get_atom::value);
  ASSERT_TRUE(std::holds_alternative<caf::error>(answer));
  EXPECT_EQ(std::get<caf::error>(answer), caf::sec::runtime_error);
  EXPECT_EQ(failures_metric(), 1.0);
  auto pair = ask<bool, std::string>(pair_atom::value);  // multi-value replies pass through
  ASSERT_TRUE((std::holds_alternative<std::tuple<bool, std::string>>(pair)));
  EXPECT_EQ(std::get<1>(std::get<std::tuple<bool, std::string>>(pair)), "both");
}

TEST_F(FailureBoundary, AContinuationThatThrowsIsConfinedToItself) {
  caf::anon_send(actor_, resume_atom::value,
                 continuation{[] { throw std::runtime_error("completion failed"); },
                              "NodeClaim default-abcde"});
  caf::anon_send(actor_, add_atom::value, 4);
  sched().run();
  EXPECT_EQ(failures_metric(), 1.0);
  auto total = ask<int>(get_atom::value);
  ASSERT_TRUE(std::holds_alternative<std::tuple<int>>(total));
  EXPECT_EQ(std::get<0>(std::get<std::tuple<int>>(total)), 4);
}

TEST_F(FailureBoundary, OneObjectOfALoopThatThrowsDoesNotHoldUpTheOthers) {
  auto handled = ask<std::size_t>(each_atom::value);
  ASSERT_TRUE(std::holds_alternative<std::tuple<std::size_t>>(handled));
  EXPECT_EQ(std::get<0>(std::get<std::tuple<std::size_t>>(handled)), 2u);  // a and c
  EXPECT_EQ(failures_metric(), 1.0);
}

TEST_F(FailureBoundary, WhatEscapesEveryGuardIsCountedThenStopsTheActor) {
  bool down = false;
  caf::error reason;
  auto watcher = sys().spawn([&](caf::event_based_actor* self) -> caf::behavior {
    self->monitor(actor_);
    self->set_down_handler([&](caf::down_msg& m) {
      down = true;
      reason = m.reason;
    });
    return {[](get_atom) {}};  // stays alive to receive the down message
  });
  sched().run();
  caf::anon_send(actor_, unguarded_atom::value);
  sched().run();
  EXPECT_TRUE(down);
  EXPECT_EQ(reason, caf::exit_reason::unhandled_exception);
  EXPECT_EQ(failures_metric(), 1.0);
  caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
}

TEST(FailureBoundaryWithoutMetrics, CountsInItselfAndNeverThrows) {
  failure_boundary b("bare", nullptr);
  EXPECT_FALSE(b.contain("x", [] { throw 42; }));  // not even a std::exception
  EXPECT_TRUE(b.contain("y", [] {}));
  continuation empty;  // no work at all: a bad_function_call, confined too
  b.run(empty);
  EXPECT_EQ(b.failures(), 2u);
}

}  // namespace
}  // namespace kp::actors
