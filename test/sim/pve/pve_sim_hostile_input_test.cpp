// Hostile input against pve-sim: malformed parameters are 400s with Proxmox's per-parameter
// messages, what a handler or a task throws ends the request or the task with an error, and the
// server's limits (body size, connections, header time) hold.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <stdexcept>

#include "pve_sim_test_client.hpp"
#include "sim/pve/access_control.hpp"
#include "sim/pve/api_router.hpp"
#include "sim/pve/request_stats.hpp"
#include "sim/pve/task_board.hpp"
#include "sim/pve/world_model.hpp"

using namespace kp::sim::pve;
using namespace kp::sim::pve::testing;
namespace json = boost::json;
namespace net = boost::asio;
using net::ip::tcp;

namespace {

const char* bad_vmid = "invalid format - value does not look like a valid VM ID\n";

class PveSimHostileInput : public ::testing::Test {
 protected:
  sim_fixture sim;
};

// A world without a server, for driving a task or the router directly on an io_context.
struct bare_world {
  bare_world() {
    data_dir = std::filesystem::temp_directory_path() /
               ("pve-sim-bare-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    simulator_options o;
    o.topo = *parse_topology(default_topology_yaml());
    o.data_dir = data_dir;
    o.time_scale = 0.01;
    world = std::make_unique<world_model>(io, std::move(o));
  }
  ~bare_world() {
    world.reset();
    std::error_code ec;
    std::filesystem::remove_all(data_dir, ec);
  }
  static inline int counter = 0;
  net::io_context io;
  std::filesystem::path data_dir;
  std::unique_ptr<world_model> world;
};

// pve-sim over plain HTTP with the given limits, for raw-socket tests.
struct plain_sim {
  explicit plain_sim(server_limits limits) {
    data_dir = std::filesystem::temp_directory_path() /
               ("pve-sim-plain-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    server_settings s;
    s.plain = true;
    s.limits = limits;
    s.simulation.topo = *parse_topology(default_topology_yaml());
    s.simulation.data_dir = data_dir;
    s.simulation.time_scale = 0.05;
    auto started = pve_sim_server::start(runtime.context(), std::move(s));
    if (!started) throw std::runtime_error(started.error().message);
    server = std::move(started.value());
  }
  ~plain_sim() {
    server.reset();
    std::error_code ec;
    std::filesystem::remove_all(data_dir, ec);
  }
  static inline int counter = 0;
  kp::transport::io_runtime runtime{1};
  std::filesystem::path data_dir;
  std::unique_ptr<pve_sim_server> server;
};

// A blocking loopback socket whose reads give up after `deadline`.
struct raw_connection {
  raw_connection(std::uint16_t port, std::chrono::seconds deadline = std::chrono::seconds(10)) {
    socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    timeval tv{static_cast<time_t>(deadline.count()), 0};
    setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  void send(const std::string& text) { net::write(socket, net::buffer(text)); }
  // Everything until the server closes the connection (or the deadline passes).
  std::string read_all() {
    std::string out;
    char buf[4096];
    for (;;) {
      ssize_t n = ::recv(socket.native_handle(), buf, sizeof buf, 0);
      if (n <= 0) return out;
      out.append(buf, static_cast<std::size_t>(n));
    }
  }
  net::io_context io;
  tcp::socket socket{io};
};

}  // namespace

TEST_F(PveSimHostileInput, AnElevenDigitVmidIsA400NamingTheParameterNeverA500) {
  auto path = sim.api("GET", "/nodes/pve1/qemu/12345678901/config");
  EXPECT_EQ(path.status, 400) << path.body;
  EXPECT_EQ(path.reason, "Parameter verification failed.");
  EXPECT_TRUE(path.data().is_null());
  EXPECT_EQ(path.json.at("errors").at("vmid").as_string(), bad_vmid);

  auto clone = sim.api("POST", "/nodes/pve1/qemu/9001/clone", {{"newid", "12345678901"}});
  EXPECT_EQ(clone.status, 400);
  EXPECT_EQ(clone.json.at("errors").at("newid").as_string(), bad_vmid);
  auto create = sim.api("POST", "/nodes/pve1/qemu", {{"vmid", "99"}});
  EXPECT_EQ(create.status, 400);
  EXPECT_EQ(create.json.at("errors").at("vmid").as_string(), bad_vmid);
  auto nextid = sim.api("GET", "/cluster/nextid", {{"vmid", "99999999999999999999999"}});
  EXPECT_EQ(nextid.status, 400);
  EXPECT_EQ(nextid.json.at("errors").at("vmid").as_string(), bad_vmid);
  auto word = sim.api("GET", "/nodes/pve1/qemu/abc/status/current");
  EXPECT_EQ(word.status, 400);
  EXPECT_EQ(word.json.at("errors").at("vmid").as_string(),
            "type check ('integer') failed - got 'abc'");
}

TEST_F(PveSimHostileInput, MalformedNumbersInQueriesAndConfigsAre400s) {
  auto limit = sim.api("GET", "/nodes/pve1/tasks", {{"limit", "lots"}});
  EXPECT_EQ(limit.status, 400);
  EXPECT_EQ(limit.json.at("errors").at("limit").as_string(),
            "type check ('integer') failed - got 'lots'");
  auto start = sim.api("GET", "/nodes/pve1/tasks", {{"start", "-1"}});
  EXPECT_EQ(start.status, 400);
  EXPECT_EQ(start.json.at("errors").at("start").as_string(),
            "value must have a minimum value of 0");

  ASSERT_EQ(sim.run_task("POST", "/nodes/pve1/qemu/9001/clone", {{"newid", "801"}}), "OK");
  auto cores = sim.api("PUT", "/nodes/pve1/qemu/801/config", {{"cores", "99999999999999999999"}});
  EXPECT_EQ(cores.status, 200) << "a huge integer is an integer to JSONSchema";
  auto zero = sim.api("PUT", "/nodes/pve1/qemu/801/config", {{"cores", "0"}});
  EXPECT_EQ(zero.status, 400);
  EXPECT_EQ(zero.json.at("errors").at("cores").as_string(), "value must have a minimum value of 1");
  auto numa = sim.api("PUT", "/nodes/pve1/qemu/801/config", {{"numa0", "cpus=0-1,memory=abc"}});
  EXPECT_EQ(numa.status, 400);
  EXPECT_EQ(numa.json.at("errors").at("numa0").as_string(),
            "invalid format - format error\nnuma0.memory: type check ('number') failed - got "
            "'abc'\n");
  auto disk = sim.api("PUT", "/nodes/pve1/qemu/801/resize", {{"disk", "scsi0"}, {"size", "."}});
  EXPECT_EQ(disk.status, 400);
  // The VM's status still reads normally after all of that.
  EXPECT_EQ(sim.api("GET", "/nodes/pve1/qemu/801/status/current").status, 200);
}

TEST(PveSimHostileTopology, AStartWhoseNumaMemoryIsNotANumberEndsItsTaskWithAnError) {
  // The API refuses such a value; a topology can still hold one (a config edited by hand).
  std::string yaml = default_topology_yaml();
  yaml.replace(
      yaml.find("vms:\n"), 5,
      "vms:\n  - vmid: 500\n    node: pve1\n    config: {name: bad-numa, memory: \"2048\", "
      "numa: \"1\", numa0: \"cpus=0-1,memory=abc\"}\n");
  sim_fixture sim(0.05, yaml);
  auto r = sim.api("POST", "/nodes/pve1/qemu/500/status/start");
  ASSERT_EQ(r.status, 200) << r.body;
  auto done = sim.wait_task(std::string(r.data().as_string()));
  ASSERT_FALSE(done.empty()) << "the start task never stopped";
  EXPECT_EQ(done.at("exitstatus").as_string(),
            "unable to parse value of 'numa0' - numa0.memory: type check ('number') failed - got "
            "'abc'");
  EXPECT_EQ(sim.api("GET", "/nodes/pve1/qemu/500/status/current").data().at("status").as_string(),
            "stopped");
  // The host accounting survives the bad value too.
  EXPECT_EQ(sim.sim("GET", "/sim/v1/hosts").status, 200);
}

TEST(PveSimTaskBoard, ATaskWhoseWorkThrowsStopsWithTheExceptionAsItsExitStatus) {
  bare_world w;
  task_board tasks(*w.world);
  api_identity who{"root@pam", ""};
  auto upid = tasks.start("pve1", "qmstart", "100", who, std::chrono::milliseconds(0),
                          []() -> kp::status { throw std::runtime_error("numa0: bad memory"); });
  ASSERT_TRUE(tasks.find(upid)->running);
  w.io.run();
  const auto* t = tasks.find(upid);
  EXPECT_FALSE(t->running);
  EXPECT_EQ(t->exitstatus, "numa0: bad memory");
  EXPECT_EQ(t->log.back(), "TASK ERROR: numa0: bad memory");
}

TEST(PveSimRouter, AHandlerThatThrowsIsAnswered500WithItsMessage) {
  bare_world w;
  access_control access(*w.world);
  request_stats stats;
  api_router router(*w.world, access, stats);
  router.add(
      "GET", "/boom", [](api_call&) -> api_reply { throw std::runtime_error("kaboom"); }, true);
  kp::transport::http_request req;
  req.method = "GET";
  req.target = "/api2/json/boom";
  std::optional<kp::transport::http_response> answer;
  router.handle(req, [&](kp::transport::http_response r) { answer = std::move(r); });
  w.io.run();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->status, 500);
  EXPECT_EQ(answer->reason, "kaboom");
  EXPECT_EQ(json::parse(answer->body).at("data"), json::value(nullptr));
}

TEST(PveSimLimits, ABodyOverTheLimitIsRefusedWith413) {
  server_limits limits;
  limits.max_body_bytes = 1024;
  plain_sim sim(limits);
  raw_connection c(sim.server->port());
  std::string body(4096, 'a');
  c.send(
      "POST /api2/json/access/ticket HTTP/1.1\r\nHost: x\r\nContent-Type: "
      "application/x-www-form-urlencoded\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
  auto reply = c.read_all();
  EXPECT_EQ(reply.rfind("HTTP/1.1 413", 0), 0u) << reply.substr(0, 200);
}

TEST(PveSimLimits, AConnectionWhoseHeaderDoesNotArriveInTimeIsClosed) {
  server_limits limits;
  limits.header_timeout = std::chrono::milliseconds(200);
  plain_sim sim(limits);
  raw_connection c(sim.server->port());
  auto t0 = std::chrono::steady_clock::now();
  c.send("GET /api2/json/version HTTP/1.1\r\nHost: x\r\n");  // never finished
  EXPECT_EQ(c.read_all(), "");
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(took, std::chrono::milliseconds(150));
  EXPECT_LT(took, std::chrono::seconds(9))
      << "closed by the header timeout, not the test's deadline";
}

TEST(PveSimLimits, BeyondTheConnectionCapANewClientWaitsUntilAnOpenOneCloses) {
  server_limits limits;
  limits.max_connections = 1;
  limits.header_timeout = std::chrono::milliseconds(400);
  plain_sim sim(limits);
  raw_connection idle(sim.server->port());  // holds the only slot until its header times out
  auto t0 = std::chrono::steady_clock::now();
  raw_connection next(sim.server->port());
  next.send("GET /api2/json/access/domains HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  auto reply = next.read_all();
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply.substr(0, 200);
  EXPECT_GE(took, std::chrono::milliseconds(300)) << "answered before the idle one was closed";
  EXPECT_EQ(idle.read_all(), "");
}
