// The batcher on virtual time (test_coordinator): a window opens on the first new UID, closes
// after BATCH_IDLE_DURATION without new UIDs or at BATCH_MAX_DURATION from its opening; a UID
// already in the window does not extend it, a new one does.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include <caf/all.hpp>

#include "actors/provisioning/batcher.hpp"
#include "test/actors/caf_test_fixture.hpp"

namespace kp::actors::provisioning {
namespace {

using namespace std::chrono_literals;

struct recorded {
  std::vector<protocol::batch_closed> batches;
};

protocol::provisioner_actor::behavior_type recording_provisioner(
    protocol::provisioner_actor::pointer, std::shared_ptr<recorded> out) {
  return {
      [](protocol::snapshot_ptr&) {},
      [out](protocol::batch_closed& b) { out->batches.push_back(b); },
      [](protocol::buffer_pods&) {},
  };
}

class BatcherTest : public kp::test::caf_test {
 protected:
  BatcherTest() {
    ctx_.settings.batch_idle_duration = 1s;
    ctx_.settings.batch_max_duration = 10s;
    ctx_.wall_clock_ms = [this] { return now_ms_; };
    auto provisioner = sys().spawn(recording_provisioner, out_);
    batcher_ = spawn_batcher(sys(), ctx_, provisioner);
    sched().run();
  }
  // Pending timers hold the actors; stop them so the system can shut down.
  ~BatcherTest() override {
    caf::anon_send_exit(batcher_, caf::exit_reason::user_shutdown);
    sched().run();
  }

  void pending(std::vector<std::string> uids) {
    caf::anon_send(batcher_, protocol::pods_pending{std::move(uids)});
    sched().run();
  }
  // Moves virtual time (and the injected wall clock) forward, running what falls due.
  void advance(std::chrono::milliseconds d) {
    now_ms_ += d.count();
    sched().advance_time(d);
    sched().run();
  }

  std::shared_ptr<recorded> out_ = std::make_shared<recorded>();
  controller_context ctx_;
  std::int64_t now_ms_ = 1'000'000;
  protocol::batcher_actor batcher_;
};

TEST_F(BatcherTest, ClosesAfterTheIdleDurationWithoutNewPods) {
  pending({"a", "b"});
  advance(999ms);
  EXPECT_TRUE(out_->batches.empty());
  advance(1ms);
  ASSERT_EQ(out_->batches.size(), 1u);
  EXPECT_EQ(out_->batches[0].pods, 2u);
  EXPECT_EQ(out_->batches[0].opened_ms, 1'000'000);
  EXPECT_EQ(out_->batches[0].closed_ms, 1'001'000);
}

TEST_F(BatcherTest, ClosesAtTheMaxDurationWhileNewPodsKeepArriving) {
  pending({"p0"});
  for (int i = 1; i <= 30; ++i) {
    advance(500ms);
    if (!out_->batches.empty()) break;
    pending({"p" + std::to_string(i)});
  }
  ASSERT_EQ(out_->batches.size(), 1u);
  // 0.5 s apart: p0..p19 arrive by 9.5 s; the max timer fires at 10 s.
  EXPECT_EQ(out_->batches[0].closed_ms - out_->batches[0].opened_ms, 10'000);
  EXPECT_EQ(out_->batches[0].pods, 20u);
}

TEST_F(BatcherTest, APodAlreadySeenInTheWindowDoesNotExtendIt) {
  pending({"a"});
  advance(900ms);
  pending({"a"});
  advance(100ms);
  ASSERT_EQ(out_->batches.size(), 1u);
  EXPECT_EQ(out_->batches[0].pods, 1u);
}

TEST_F(BatcherTest, ANewPodRestartsTheIdleTimer) {
  pending({"a"});
  advance(900ms);
  pending({"a", "b"});
  advance(100ms);
  EXPECT_TRUE(out_->batches.empty());
  advance(899ms);
  EXPECT_TRUE(out_->batches.empty());
  advance(1ms);
  ASSERT_EQ(out_->batches.size(), 1u);
  EXPECT_EQ(out_->batches[0].pods, 2u);
}

TEST_F(BatcherTest, APodSeenInAClosedWindowOpensTheNextOne) {
  pending({"a"});
  advance(1s);
  ASSERT_EQ(out_->batches.size(), 1u);
  advance(5s);  // nothing pending: nothing closes
  EXPECT_EQ(out_->batches.size(), 1u);
  pending({"a"});
  advance(1s);
  ASSERT_EQ(out_->batches.size(), 2u);
  EXPECT_EQ(out_->batches[1].pods, 1u);
  EXPECT_GT(out_->batches[1].id, out_->batches[0].id);
}

TEST_F(BatcherTest, AnEmptyReportOpensNoWindow) {
  pending({});
  advance(20s);
  EXPECT_TRUE(out_->batches.empty());
}

}  // namespace
}  // namespace kp::actors::provisioning
