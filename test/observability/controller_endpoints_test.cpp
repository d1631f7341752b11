// The controller as a process against unreachable Kubernetes and Proxmox endpoints: it keeps
// running, serves /metrics, /healthz (200) and /readyz (503 naming what is missing), and stops
// within 5 s of SIGTERM or SIGINT. Ports are picked by the binary (METRICS_PORT=0) and read from
// its JSON log lines.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <mutex>
#include <thread>

#include "core/parse_number.hpp"
#include "protocol/transport/http_server.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "test/support/child_process.hpp"

namespace kp::obs {
namespace {

using namespace std::chrono_literals;

constexpr const char* token_secret = "pve-token-SECRET-0a1b2c";
constexpr const char* kube_token = "kube-token-SECRET-3d4e5f";

// A loopback port nothing listens on: bound, then closed.
int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

struct http_reply {
  int status = 0;
  std::string body;
};

// One GET with Connection: close over a plain socket, independent of our own transport.
http_reply http_get(int port, const std::string& path) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return {};
  }
  std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  ::send(fd, request.data(), request.size(), 0);
  std::string response;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) response.append(buffer, n);
  ::close(fd);
  http_reply reply;
  if (response.rfind("HTTP/1.1 ", 0) == 0)
    reply.status = parse_integer<int>(std::string_view(response).substr(9, 3)).value_or(0);
  auto body = response.find("\r\n\r\n");
  if (body != std::string::npos) reply.body = response.substr(body + 4);
  return reply;
}

// The "port" field of the JSON log line whose message is `message`.
int logged_port(const std::string& out, const std::string& message) {
  auto at = out.find("\"message\":\"" + message + "\",\"fields\":{");
  if (at == std::string::npos) return 0;
  auto fields_end = out.find('}', at);
  auto port = out.find("\"port\":\"", at);
  if (port == std::string::npos || port > fields_end) return 0;
  port += 8;
  auto end = out.find('"', port);
  return parse_integer<int>(std::string_view(out).substr(port, end - port)).value_or(0);
}

class ControllerProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kp-endpoints-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "clusters.yaml")
        << "clusters:\n  - url: http://127.0.0.1:" << closed_port()
        << "/api2/json\n    token_id: kubernetes@pve!karpenter\n    token_secret: " << token_secret
        << "\n    region: region-1\n";
    std::ofstream(dir_ / "kubeconfig")
        << "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        << "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
        << "clusters: [{name: k, cluster: {server: \"https://127.0.0.1:" << closed_port()
        << "\"}}]\nusers: [{name: u, user: {token: " << kube_token << "}}]\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<test::child_process> start() {
    return std::make_unique<test::child_process>(
        std::vector<std::string>{test::binary_path("karpenter-proxmox"), "-log-level=debug"},
        std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"},
                                           {"CLOUD_CONFIG", (dir_ / "clusters.yaml").string()},
                                           {"KUBECONFIG", (dir_ / "kubeconfig").string()},
                                           {"METRICS_PORT", "0"},
                                           {"HEALTH_PROBE_PORT", "0"},
                                           {"BIND_ADDRESS", "127.0.0.1"}});
  }

  std::filesystem::path dir_;
};

TEST_F(ControllerProcess, ServesMetricsHealthAndReadinessWhileEndpointsAreUnreachable) {
  auto p = start();
  ASSERT_TRUE(p->read_until(
      [](const std::string& out) {
        return out.find("serving health probes") != std::string::npos &&
               out.find("proxmox region region-1\",\"reason\":\"not connected (") !=
                   std::string::npos &&
               out.find("kubernetes api\",\"reason\":\"not connected (") != std::string::npos;
      },
      10s))
      << p->out() << p->err();
  int metrics_port = logged_port(p->out(), "serving metrics");
  int health_port = logged_port(p->out(), "serving health probes");
  ASSERT_NE(metrics_port, 0) << p->out();
  ASSERT_NE(health_port, 0) << p->out();

  auto healthz = http_get(health_port, "/healthz");
  EXPECT_EQ(healthz.status, 200);
  EXPECT_EQ(healthz.body, "ok\n");

  auto readyz = http_get(health_port, "/readyz");
  EXPECT_EQ(readyz.status, 503);
  EXPECT_NE(readyz.body.find("kubernetes api: not connected"), std::string::npos) << readyz.body;
  EXPECT_NE(readyz.body.find("proxmox region region-1: not connected"), std::string::npos)
      << readyz.body;

  auto metrics = http_get(metrics_port, "/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("karpenter_build_info{"), std::string::npos) << metrics.body;
  EXPECT_NE(
      metrics.body.find("karpenter_proxmox_readiness{component=\"proxmox region region-1\"} 0"),
      std::string::npos)
      << metrics.body;

  // Still retrying, still running: a second failed probe of each endpoint is logged.
  EXPECT_TRUE(p->read_until(
      [](const std::string& out) {
        return out.find("\"retry_in_ms\":\"2000\"") != std::string::npos;
      },
      10s));

  auto signalled = std::chrono::steady_clock::now();
  p->signal(SIGTERM);
  auto code = p->wait_exit(5s);
  auto took = std::chrono::steady_clock::now() - signalled;
  ASSERT_TRUE(code.has_value()) << "still running 5 s after SIGTERM";
  EXPECT_EQ(*code, 0) << p->err();
  EXPECT_LT(took, 5s);
  EXPECT_NE(p->out().find("\"message\":\"stopped\""), std::string::npos);
  std::cout << "shutdown after SIGTERM took "
            << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms\n";

  for (const auto& text : {p->out(), p->err(), metrics.body, readyz.body}) {
    EXPECT_EQ(text.find(token_secret), std::string::npos);
    EXPECT_EQ(text.find(kube_token), std::string::npos);
  }
  // Every stdout line is one JSON object (stdout is a pipe, not a terminal).
  std::istringstream lines(p->out());
  for (std::string line; std::getline(lines, line);) {
    EXPECT_EQ(line.rfind("{\"time\":\"", 0), 0u) << line;
    EXPECT_EQ(line.back(), '}') << line;
  }
}

// VmHWM (peak resident set) of a process, in KiB; 0 when unreadable.
long peak_rss_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    auto digits = line.find_first_of("0123456789");
    auto end = line.find_first_not_of("0123456789", digits);
    return parse_integer<long>(std::string_view(line).substr(digits, end - digits)).value_or(0);
  }
  return 0;
}

// Sends `head`, then up to `body_bytes` of zeros as fast as the server takes them, and returns
// the status line of whatever the server answered (empty if nothing).
std::string post_flood(int port, const std::string& head, std::size_t body_bytes) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return "";
  }
  ::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
  const std::string chunk(1 << 16, '\0');
  std::string reply;
  char buffer[4096];
  // Like a real client, stop pushing once the server has answered early (a server that reads
  // the whole body never does, and holds it).
  for (std::size_t sent = 0; sent < body_bytes;) {
    auto got = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (got > 0) {
      reply.append(buffer, static_cast<std::size_t>(got));
      break;
    }
    auto n = ::send(fd, chunk.data(), std::min(chunk.size(), body_bytes - sent), MSG_NOSIGNAL);
    if (n <= 0) break;  // the server refused the rest and closed
    sent += static_cast<std::size_t>(n);
  }
  for (ssize_t n;
       reply.find("\r\n") == reply.npos && (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;)
    reply.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);
  return reply.substr(0, reply.find("\r\n"));
}

TEST_F(ControllerProcess, TwoConcurrent200MbPostsToMetricsKeepThePeakRssUnder128MiB) {
  auto p = start();
  ASSERT_TRUE(p->read_until(
      [](const std::string& out) { return out.find("serving health probes") != std::string::npos; },
      10s))
      << p->out() << p->err();
  const int metrics_port = logged_port(p->out(), "serving metrics");
  const int health_port = logged_port(p->out(), "serving health probes");
  ASSERT_NE(metrics_port, 0) << p->out();
  const long before = peak_rss_kib(p->pid());

  constexpr std::size_t mb200 = 200u * 1000 * 1000;
  std::string sized_reply, chunked_reply;
  std::thread sized([&] {
    sized_reply =
        post_flood(metrics_port,
                   "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(mb200) +
                       "\r\n\r\n",
                   mb200);
  });
  std::thread chunked([&] {
    // A chunked body announces no length: it is refused before a byte of it is read.
    chunked_reply = post_flood(metrics_port,
                               "POST /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: "
                               "chunked\r\n\r\nBEBC200\r\n",
                               mb200);
  });
  sized.join();
  chunked.join();
  EXPECT_EQ(sized_reply, "HTTP/1.1 413 Payload Too Large");
  EXPECT_EQ(chunked_reply, "HTTP/1.1 411 Length Required");

  const long after = peak_rss_kib(p->pid());
  std::cout << "peak RSS before " << before / 1024 << " MiB, after the two 200 MB POSTs "
            << after / 1024 << " MiB\n";
  EXPECT_GT(after, 0);
#if defined(__SANITIZE_ADDRESS__)
  // ASan's shadow memory puts the controller above the bound before any POST: what the POSTs
  // must not do is add their bodies to it.
  EXPECT_LT(after - before, 64 * 1024) << "peak RSS " << before << " -> " << after << " KiB";
#else
  EXPECT_LT(after, 128 * 1024) << "peak RSS " << after << " KiB";
#endif

  // Still serving, and only reads are allowed.
  EXPECT_EQ(http_get(metrics_port, "/metrics").status, 200);
  EXPECT_EQ(http_get(health_port, "/healthz").status, 200);
  p->signal(SIGTERM);
  EXPECT_TRUE(p->wait_exit(5s).has_value());
}

// Kubernetes and Proxmox stand-ins on loopback: /version and /api2/json/version answer 200, or
// 401 for Proxmox while `refuse_proxmox` is set.
class fake_apis {
 public:
  fake_apis()
      : server_(
            io_.context(), {},
            [this](transport::http_request request,
                   std::shared_ptr<transport::http_exchange> exchange) {
              transport::http_response response;
              std::lock_guard lock(mutex_);
              if (request.path() == "/api2/json/version") {
                proxmox_authorization_ = std::string(request.header("Authorization"));
                response.status = refuse_proxmox_ ? 401 : 200;
                response.body = R"({"data":{"version":"8.2.4","release":"8.2"}})";
              } else if (request.path() == "/api/v1/namespaces/kube-system") {
                response.body =
                    R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"kube-system",)"
                    R"("uid":"6f1d1b1e-0000-4000-8000-000000000001"},"status":{"phase":"Active"}})";
              } else if (request.path() == "/version") {
                response.body = R"({"major":"1","minor":"30","gitVersion":"v1.30.0"})";
              } else {
                response.status = 404;
              }
              exchange->respond(std::move(response));
            }) {
    EXPECT_TRUE(server_.start().ok());
  }
  ~fake_apis() { server_.stop(); }
  int port() const { return server_.port(); }
  void refuse_proxmox(bool refuse) {
    std::lock_guard lock(mutex_);
    refuse_proxmox_ = refuse;
  }
  std::string proxmox_authorization() {
    std::lock_guard lock(mutex_);
    return proxmox_authorization_;
  }

 private:
  transport::io_runtime io_{1};
  transport::http_server server_;
  std::mutex mutex_;
  bool refuse_proxmox_ = false;
  std::string proxmox_authorization_;
};

TEST_F(ControllerProcess, ReadyzTurns200OnceKubernetesAndProxmoxAnswer) {
  fake_apis apis;
  apis.refuse_proxmox(true);
  std::ofstream(dir_ / "clusters.yaml", std::ios::trunc)
      << "clusters:\n  - url: http://127.0.0.1:" << apis.port()
      << "\n    token_id: kubernetes@pve!karpenter\n    token_secret: " << token_secret
      << "\n    region: region-1\n";
  std::ofstream(dir_ / "kubeconfig", std::ios::trunc)
      << "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
      << "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      << "clusters: [{name: k, cluster: {server: \"http://127.0.0.1:" << apis.port()
      << "\"}}]\nusers: [{name: u, user: {token: " << kube_token << "}}]\n";
  auto p = start();
  ASSERT_TRUE(p->read_until(
      [](const std::string& out) {
        return out.find(
                   "\"message\":\"component not ready\",\"fields\":{\"component\":"
                   "\"proxmox region region-1\",\"reason\":\"credentials refused (HTTP 401)\"") !=
                   std::string::npos &&
               out.find(
                   "\"message\":\"component ready\",\"fields\":{\"component\":\"kubernetes "
                   "api\"}") != std::string::npos;
      },
      10s))
      << p->out();
  int health_port = logged_port(p->out(), "serving health probes");
  auto refused = http_get(health_port, "/readyz");
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(refused.body, "proxmox region region-1: credentials refused (HTTP 401)\n");
  EXPECT_EQ(apis.proxmox_authorization(),
            std::string("PVEAPIToken=kubernetes@pve!karpenter=") + token_secret);

  apis.refuse_proxmox(false);  // the next retry (1 s backoff) connects
  ASSERT_TRUE(p->read_until(
      [](const std::string& out) {
        return out.find(
                   "\"message\":\"component ready\",\"fields\":{\"component\":\"proxmox region "
                   "region-1\"}") != std::string::npos;
      },
      10s))
      << p->out();
  auto ready = http_get(health_port, "/readyz");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(ready.body, "ok\n");
  p->signal(SIGTERM);
  EXPECT_EQ(p->wait_exit(5s).value_or(-1), 0);
  EXPECT_EQ(p->out().find(token_secret), std::string::npos);
}

TEST_F(ControllerProcess, SigintAlsoStopsItCleanly) {
  auto p = start();
  ASSERT_TRUE(p->read_until(
      [](const std::string& out) { return out.find("controller running") != std::string::npos; },
      10s))
      << p->out() << p->err();
  p->signal(SIGINT);
  auto code = p->wait_exit(5s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 0) << p->err();
}

}  // namespace
}  // namespace kp::obs
