// The supervisor spawns its children, restarts one that stops with backoff, and stops them all on
// shutdown; the readiness actor publishes reports to the /readyz state. Virtual time throughout.
#include <gtest/gtest.h>

#include <prometheus/counter.h>
#include <prometheus/registry.h>

#include "actors/readiness.hpp"
#include "actors/supervisor.hpp"
#include "caf_test_fixture.hpp"

namespace kp::actors {
namespace {

using crash_atom = caf::atom_constant<caf::atom("crash")>;

struct child_counters {
  int spawned = 0;
  int stopped = 0;
};

caf::behavior counted_child(caf::event_based_actor* self, child_counters* counters) {
  ++counters->spawned;
  self->attach_functor([counters] { ++counters->stopped; });
  return {
      [self](crash_atom) { self->quit(caf::sec::runtime_error); },
  };
}

class Supervisor : public test::caf_test {
 protected:
  std::vector<std::string> children_of(const protocol::supervisor_actor& supervisor) {
    std::vector<std::string> names;
    sys().spawn([&](caf::event_based_actor* self) {
      self->request(supervisor, std::chrono::seconds(5), protocol::children_atom::value)
          .then([&](std::vector<std::string>& result) { names = result; });
    });
    sched().run();
    return names;
  }
};

TEST_F(Supervisor, SpawnsEveryChild) {
  child_counters a, b;
  std::vector<caf::actor> handles;
  auto supervisor = spawn_supervisor(
      sys(), {{"a", [&](caf::actor_system& s) { return s.spawn(counted_child, &a); }},
              {"b", [&](caf::actor_system& s) { return s.spawn(counted_child, &b); }}});
  sched().run();
  EXPECT_EQ(a.spawned, 1);
  EXPECT_EQ(b.spawned, 1);
  EXPECT_EQ(children_of(supervisor), (std::vector<std::string>{"a", "b"}));
  caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  sched().run();  // the children stop now, while the counters they update still exist
}

TEST_F(Supervisor, RestartsAStoppedChildAfterItsBackoffDelay) {
  child_counters c;
  caf::actor current;
  prometheus::Registry registry;
  auto metrics = std::make_shared<obs::karpenter_metrics>(registry);
  auto supervisor =
      spawn_supervisor(sys(),
                       {{"c",
                         [&](caf::actor_system& s) {
                           current = s.spawn(counted_child, &c);
                           return current;
                         }}},
                       restart_policy{std::chrono::seconds(1), std::chrono::seconds(8)}, metrics);
  auto restarts = [&] { return metrics->actor_restarts.Add({{"actor", "c"}}).Value(); };
  sched().run();
  caf::anon_send(current, crash_atom::value);
  sched().run();
  EXPECT_EQ(c.stopped, 1);
  EXPECT_TRUE(children_of(supervisor).empty());
  sched().advance_time(std::chrono::milliseconds(999));
  sched().run();
  EXPECT_EQ(c.spawned, 1) << "not before the 1 s delay";
  sched().advance_time(std::chrono::milliseconds(1));
  sched().run();
  EXPECT_EQ(c.spawned, 2);
  EXPECT_EQ(restarts(), 1) << "karpenter_proxmox_actor_restarts_total{actor=\"c\"}";
  EXPECT_EQ(children_of(supervisor), std::vector<std::string>{"c"});
  // A second crash waits twice as long.
  caf::anon_send(current, crash_atom::value);
  sched().run();
  sched().advance_time(std::chrono::milliseconds(1999));
  sched().run();
  EXPECT_EQ(c.spawned, 2);
  sched().advance_time(std::chrono::milliseconds(1));
  sched().run();
  EXPECT_EQ(c.spawned, 3);
  EXPECT_EQ(restarts(), 2);
  caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  sched().run();  // the children stop now, while the counters they update still exist
}

TEST_F(Supervisor, AChildThatRanLongerThanTheLongestDelayRestartsAfterTheShortestAgain) {
  child_counters c;
  caf::actor current;
  auto supervisor =
      spawn_supervisor(sys(),
                       {{"c",
                         [&](caf::actor_system& s) {
                           current = s.spawn(counted_child, &c);
                           return current;
                         }}},
                       restart_policy{std::chrono::seconds(1), std::chrono::seconds(8)});
  sched().run();
  caf::anon_send(current, crash_atom::value);
  sched().run();
  sched().advance_time(std::chrono::seconds(1));
  sched().run();
  ASSERT_EQ(c.spawned, 2);
  sched().advance_time(std::chrono::seconds(9));  // healthy for longer than max_delay
  caf::anon_send(current, crash_atom::value);
  sched().run();
  sched().advance_time(std::chrono::seconds(1));
  sched().run();
  EXPECT_EQ(c.spawned, 3) << "back to the 1 s delay, not 2 s";
  caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  sched().run();  // the children stop now, while the counters they update still exist
}

TEST_F(Supervisor, ShutdownStopsEveryChildAndRestartsNone) {
  child_counters a, b;
  auto supervisor = spawn_supervisor(
      sys(), {{"a", [&](caf::actor_system& s) { return s.spawn(counted_child, &a); }},
              {"b", [&](caf::actor_system& s) { return s.spawn(counted_child, &b); }}});
  sched().run();
  EXPECT_EQ(sys().registry().running(), 3u);
  caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  sched().run();
  sched().trigger_timeouts();  // a restart timer, had one been armed, would fire here
  sched().run();
  EXPECT_EQ(sys().registry().running(), 0u) << "supervisor and children stopped";
  EXPECT_EQ(a.stopped, 1);
  EXPECT_EQ(b.stopped, 1);
  EXPECT_EQ(a.spawned, 1);
  EXPECT_EQ(b.spawned, 1);
}

class Readiness : public test::caf_test {};

TEST_F(Readiness, ReportsReachTheHealthStateAndTheQueryAnswersLikeReadyz) {
  auto health = std::make_shared<obs::health_state>();
  auto readiness = spawn_readiness(sys(), health);
  report_readiness(sys(), {"kubernetes api", false, "not connected"});
  report_readiness(sys(), {"proxmox region r1", true, ""});
  sched().run();
  EXPECT_EQ(health->readiness().body, "kubernetes api: not connected");
  bool ready = true;
  std::string body;
  sys().spawn([&](caf::event_based_actor* self) {
    self->request(readiness, std::chrono::seconds(5), protocol::readiness_atom::value)
        .then([&](bool r, std::string& b) {
          ready = r;
          body = b;
        });
  });
  sched().run();
  EXPECT_FALSE(ready);
  EXPECT_EQ(body, "kubernetes api: not connected");
  report_readiness(sys(), {"kubernetes api", true, ""});
  sched().run();
  EXPECT_TRUE(health->readiness().ok);
  caf::anon_send_exit(readiness, caf::exit_reason::user_shutdown);
  sys().registry().erase(protocol::readiness_atom::value);
}

}  // namespace
}  // namespace kp::actors
