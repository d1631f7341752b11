// Backpressure as credit: at most N requests in flight per receiver, the rest queued in order,
// depth exported as a gauge; driven deterministically on CAF's test coordinator.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>

#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "actors/credit_window.hpp"
#include "caf_test_fixture.hpp"

namespace kp::actors {
namespace {

using work_atom = caf::atom_constant<caf::atom("work")>;
using release_atom = caf::atom_constant<caf::atom("release")>;
using send_atom = caf::atom_constant<caf::atom("send")>;

TEST(CreditWindow, SendsUpToTheLimitThenQueuesInOrder) {
  credit_window w(2);
  std::vector<int> sent;
  for (int i = 0; i < 5; ++i) w.submit([&sent, i] { sent.push_back(i); });
  EXPECT_EQ(sent, (std::vector<int>{0, 1}));
  EXPECT_EQ(w.in_flight(), 2u);
  EXPECT_EQ(w.queued(), 3u);
  EXPECT_EQ(w.depth(), 5u);
  w.complete();
  EXPECT_EQ(sent, (std::vector<int>{0, 1, 2}));
  w.complete();
  w.complete();
  w.complete();
  EXPECT_EQ(sent, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(w.depth(), 1u);
  w.complete();
  EXPECT_EQ(w.depth(), 0u);
}

TEST(CreditWindow, DepthIsExportedPerReceiver) {
  prometheus::Registry registry;
  credit_windows windows(1, "nodeclaim", &registry);
  windows.to("region-a").submit([] {});
  windows.to("region-a").submit([] {});
  windows.to("region-b").submit([] {});
  EXPECT_EQ(windows.total_depth(), 3u);
  std::ostringstream out;
  prometheus::TextSerializer{}.Serialize(out, registry.Collect());
  EXPECT_NE(
      out.str().find(
          "karpenter_proxmox_actor_queue_depth{receiver=\"region-a\",sender=\"nodeclaim\"} 2"),
      std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("receiver=\"region-b\",sender=\"nodeclaim\"} 1"), std::string::npos);
}

// What the receiver saw, read by the test between scheduler steps (single-threaded).
struct observed {
  std::size_t outstanding = 0;
  std::size_t max_outstanding = 0;
  std::vector<int> order;
  std::vector<int> replies;
  std::size_t errors = 0;
};

// Holds every request until told to release them, so the test controls when replies come.
caf::behavior slow_receiver(caf::stateful_actor<std::deque<caf::response_promise>>* self,
                            observed* seen) {
  return {
      [self, seen](work_atom, int id) -> caf::result<int> {
        seen->order.push_back(id);
        seen->max_outstanding = std::max(seen->max_outstanding, ++seen->outstanding);
        auto promise = self->make_response_promise<int>();
        self->state.push_back(promise);
        return promise;
      },
      [self, seen](release_atom, int count) {
        for (int i = 0; i < count && !self->state.empty(); ++i) {
          --seen->outstanding;
          auto promise = self->state.front();
          self->state.pop_front();
          promise.deliver(1);
        }
      },
  };
}

struct sender_state {
  std::unique_ptr<credit_window> window;
};

caf::behavior credit_sender(caf::stateful_actor<sender_state>* self, caf::actor receiver,
                            std::size_t limit, prometheus::Gauge* gauge, observed* seen) {
  self->state.window = std::make_unique<credit_window>(limit, gauge);
  return {
      [self, receiver, seen](send_atom, int id) {
        self->state.window->submit([self, receiver, seen, id] {
          self->request(receiver, std::chrono::seconds(30), work_atom::value, id)
              .then(
                  [self, seen, id](int) {
                    self->state.window->complete();
                    seen->replies.push_back(id);
                  },
                  [self, seen](caf::error&) {
                    self->state.window->complete();
                    ++seen->errors;
                  });
        });
      },
  };
}

class CreditWithActors : public test::caf_test {};

TEST_F(CreditWithActors, AReceiverNeverHasMoreThanTheLimitOutstandingAndAllComplete) {
  observed seen;
  prometheus::Registry registry;
  auto& gauge = prometheus::BuildGauge().Name("depth").Help("h").Register(registry).Add({});
  auto receiver = sys().spawn(slow_receiver, &seen);
  auto sender = sys().spawn(credit_sender, receiver, 3, &gauge, &seen);
  for (int i = 0; i < 10; ++i) caf::anon_send(sender, send_atom::value, i);
  sched().run();
  EXPECT_EQ(seen.outstanding, 3u);
  EXPECT_EQ(gauge.Value(), 10);
  for (int round = 0; round < 10 && seen.replies.size() < 10; ++round) {
    caf::anon_send(receiver, release_atom::value, 2);
    sched().run();
    EXPECT_LE(seen.outstanding, 3u);
  }
  EXPECT_EQ(seen.max_outstanding, 3u);
  EXPECT_EQ(seen.replies.size(), 10u);
  EXPECT_EQ(seen.order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})) << "FIFO";
  EXPECT_EQ(gauge.Value(), 0);
  caf::anon_send_exit(sender, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(receiver, caf::exit_reason::user_shutdown);
}

TEST_F(CreditWithActors, ATimedOutRequestReturnsItsCredit) {
  observed seen;
  auto receiver = sys().spawn(slow_receiver, &seen);
  auto sender = sys().spawn(credit_sender, receiver, 1, nullptr, &seen);
  caf::anon_send(sender, send_atom::value, 1);
  caf::anon_send(sender, send_atom::value, 2);
  sched().run();
  EXPECT_EQ(seen.order, std::vector<int>{1});
  // Virtual time: the 30 s request timeout fires at once, the credit returns, #2 goes out.
  sched().trigger_timeouts();
  sched().run();
  EXPECT_EQ(seen.errors, 1u);
  EXPECT_EQ(seen.order, (std::vector<int>{1, 2}));
  caf::anon_send_exit(sender, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(receiver, caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace kp::actors
