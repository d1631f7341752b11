// The probe actor on virtual time: the transport's io_context is polled on the test thread
// between scheduler runs (the test coordinator's queue is not thread-safe), and backoff delays
// are checked to the millisecond with advance_time().
#include <gtest/gtest.h>

#include <atomic>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "actors/endpoint_probe.hpp"
#include "actors/readiness.hpp"
#include "caf_test_fixture.hpp"
#include "protocol/transport/http_server.hpp"

namespace kp::actors {
namespace {

using namespace std::chrono_literals;

class EndpointProbe : public test::caf_test {
 protected:
  EndpointProbe()
      : guard_(boost::asio::make_work_guard(io_)),
        server_(io_, {},
                [this](transport::http_request request,
                       std::shared_ptr<transport::http_exchange> exchange) {
                  ++requests_;
                  last_authorization_ = std::string(request.header("Authorization"));
                  transport::http_response response;
                  response.status = answer_;
                  response.body = "{}";
                  exchange->respond(std::move(response));
                }) {
    EXPECT_TRUE(server_.start().ok());
    client_ = std::make_shared<transport::http_client>(io_, transport::client_options{});
  }
  ~EndpointProbe() override {
    client_->close();
    server_.stop();
    guard_.reset();
    io_.poll();
  }

  // Runs actors and the io_context until `done` holds (bounded by a deadline).
  bool drive_until(const std::function<bool()>& done) {
    auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      sched().run();
      if (!done() && !sched().has_job()) io_.run_one_for(20ms);
    }
    sched().run();
    return true;
  }

  protocol::endpoint_probe_actor spawn_probe() {
    probe_target target{"proxmox region r1",
                        "http://127.0.0.1:" + std::to_string(server_.port()) + "/api2/json",
                        "/version",
                        {{"Authorization", "PVEAPIToken=a@pve!t=secret-value"}},
                        false};
    probe_timing timing;
    timing.initial_backoff = 1s;
    timing.max_backoff = 4s;
    timing.recheck_interval = 30s;
    return spawn_endpoint_probe(sys(), client_, target, timing);
  }

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
  transport::http_server server_;
  std::shared_ptr<transport::http_client> client_;
  int requests_ = 0;  // touched only on the test thread (io_ runs here)
  int answer_ = 401;
  std::string last_authorization_;
};

TEST_F(EndpointProbe, RetriesWithDoublingBackoffUntilConnectedThenRechecksSlowly) {
  auto health = std::make_shared<obs::health_state>();
  auto readiness = spawn_readiness(sys(), health);
  auto probe = spawn_probe();

  ASSERT_TRUE(
      drive_until([&] { return health->readiness().body.find("HTTP 401") != std::string::npos; }));
  EXPECT_EQ(requests_, 1);
  EXPECT_EQ(last_authorization_, "PVEAPIToken=a@pve!t=secret-value");
  EXPECT_EQ(health->readiness().body, "proxmox region r1: credentials refused (HTTP 401)");

  // First retry after exactly 1 s of virtual time, the second after 2 s more.
  sched().advance_time(999ms);
  sched().run();
  EXPECT_EQ(requests_, 1);
  sched().advance_time(1ms);
  ASSERT_TRUE(drive_until([&] { return requests_ == 2; }));
  ASSERT_TRUE(drive_until([&] { return !sched().has_job() && sched().has_pending_timeout(); }));
  sched().advance_time(1999ms);
  sched().run();
  EXPECT_EQ(requests_, 2);
  answer_ = 200;
  sched().advance_time(1ms);
  ASSERT_TRUE(drive_until([&] { return health->readiness().ok; }));
  EXPECT_EQ(requests_, 3);

  // Connected: the next check comes after the 30 s recheck interval, not the backoff.
  sched().advance_time(29s);
  sched().run();
  EXPECT_EQ(requests_, 3);
  sched().advance_time(1s);
  ASSERT_TRUE(drive_until([&] { return requests_ == 4; }));
  // Let the reply land and the probe re-arm its timer before tearing the server down.
  ASSERT_TRUE(drive_until([&] { return !sched().has_job() && sched().has_pending_timeout(); }));

  caf::anon_send_exit(probe, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(readiness, caf::exit_reason::user_shutdown);
  sched().run();
  sys().registry().erase(protocol::readiness_atom::value);
}

}  // namespace
}  // namespace kp::actors
