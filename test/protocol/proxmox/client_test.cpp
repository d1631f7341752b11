// The client against a small in-process Proxmox double on loopback: what goes on the wire
// (auth headers, CSRF, form and multipart bodies, query strings) and how replies come back.
#include "protocol/proxmox/client.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "protocol/transport/http_server.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "test/support/await_completion.hpp"

namespace kp::proxmox {
namespace {

using namespace std::chrono_literals;
constexpr const char* token_id = "kubernetes@pve!karpenter";
constexpr const char* token_secret = "5e1f0a7c-0d1e-4c2a-9b3f-6a7d8e9f0a1b";
constexpr const char* upid_text = "UPID:pve1:00001234:00005678:65000000:qmclone:100:root@pam:";

transport::http_response json_reply(int status, std::string body) {
  transport::http_response r;
  r.status = status;
  r.headers.emplace_back("Content-Type", "application/json;charset=UTF-8");
  r.body = std::move(body);
  return r;
}

// Answers the few paths the tests use and records every request.
class fake_proxmox {
 public:
  explicit fake_proxmox(boost::asio::io_context& io)
      : server_(io, transport::server_options{},
                [this](transport::http_request req, std::shared_ptr<transport::http_exchange> ex) {
                  ex->respond(handle(std::move(req)));
                }) {}

  status start() { return server_.start(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_.port()); }

  std::vector<transport::http_request> requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }
  int logins() const { return logins_.load(); }
  // Makes the current ticket invalid, as a restarted server would.
  void rotate_ticket() {
    std::lock_guard lock(mu_);
    ticket_ = "PVE:root@pam:" + std::to_string(++generation_) + "::sig";
  }

 private:
  transport::http_response handle(transport::http_request req) {
    std::string path(req.path());
    {
      std::lock_guard lock(mu_);
      requests_.push_back(req);
    }
    if (path == "/api2/json/access/ticket" && req.method == "POST") {
      logins_++;
      if (req.body != "username=root%40pam&password=pve%20sim%2Broot") {
        return json_reply(401, R"({"data":null,"message":"authentication failure"})");
      }
      std::lock_guard lock(mu_);
      return json_reply(200, R"({"data":{"username":"root@pam","ticket":")" + ticket_ +
                                 R"(","CSRFPreventionToken":"CSRF-)" + ticket_ + R"("}})");
    }
    if (!authorised(req)) {
      return json_reply(401, R"({"data":null,"message":"authentication failure"})");
    }
    if (path == "/api2/json/version") {
      return json_reply(200, R"({"data":{"version":"8.4.1","release":"8.4","repoid":"abc"}})");
    }
    if (path == "/api2/json/cluster/nextid") {
      if (req.query() == "vmid=150") {
        return json_reply(400, R"({"data":null,"message":"Parameter verification failed.",)"
                               R"("errors":{"vmid":"VM 150 already exists"}})");
      }
      return json_reply(200, R"({"data":"100"})");
    }
    if (path == "/api2/json/nodes/pve1/qemu/9000/clone" ||
        path == "/api2/json/nodes/pve1/qemu/100/config" ||
        path == "/api2/json/nodes/pve1/storage/local/upload" ||
        path == "/api2/json/nodes/pve1/qemu/100") {
      return json_reply(200, std::string(R"({"data":")") + upid_text + R"("})");
    }
    if (path == "/api2/json/nodes/pve1/qemu/101/status/current") {
      return json_reply(
          500,
          R"({"data":null,"message":"Configuration file 'nodes/pve1/qemu-server/101.conf' does not exist"})");
    }
    if (path == "/api2/json/nodes/pve2/status") {
      return json_reply(595, "");
    }
    if (path == "/api2/json/garbage") return json_reply(200, "<html>surprise</html>");
    return json_reply(501, R"({"data":null,"message":"Method not implemented"})");
  }

  bool authorised(const transport::http_request& req) {
    if (req.header("Authorization") ==
        std::string("PVEAPIToken=") + token_id + "=" + token_secret) {
      return true;
    }
    std::lock_guard lock(mu_);
    if (req.header("Cookie") != "PVEAuthCookie=" + ticket_) return false;
    return req.method == "GET" || req.header("CSRFPreventionToken") == "CSRF-" + ticket_;
  }

  transport::http_server server_;
  std::mutex mu_;
  std::vector<transport::http_request> requests_;
  std::atomic<int> logins_{0};
  int generation_ = 1;
  std::string ticket_ = "PVE:root@pam:1::sig";
};

// Starts one call and waits (on a future, with a deadline) for its single completion.
template <class T, class Start>
result<T> await(Start start) {
  return kp::test_support::await_completion<T>(std::move(start), 10s);
}

template <class Start>
status await_status(Start start) {
  auto done = std::make_shared<std::promise<status>>();
  auto future = done->get_future();
  start([done](status s) { done->set_value(std::move(s)); });
  if (future.wait_for(10s) != std::future_status::ready) return make_error("test_timeout", "");
  return future.get();
}

class ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_ = std::make_unique<fake_proxmox>(io_.context());
    auto started = fake_->start();
    ASSERT_TRUE(started.ok()) << started.error().message;
  }
  void TearDown() override {
    client_.reset();
    io_.stop();
  }
  client& with_token() {
    client_settings s;
    s.url = fake_->url();
    s.credentials = token_credentials{token_id, token_secret};
    client_ = std::make_unique<client>(io_.context(), s);
    return *client_;
  }
  client& with_password(std::string password = "pve sim+root",
                        std::chrono::milliseconds renew_after = std::chrono::minutes(90)) {
    client_settings s;
    s.url = fake_->url() + "/api2/json";
    s.credentials = password_credentials{"root@pam", std::move(password)};
    s.ticket_renew_after = renew_after;
    client_ = std::make_unique<client>(io_.context(), s);
    return *client_;
  }

  transport::io_runtime io_{2};
  std::unique_ptr<fake_proxmox> fake_;
  std::unique_ptr<client> client_;
};

TEST_F(ClientTest, ATokenIsSentInThePveApiTokenHeader) {
  auto& c = with_token();
  auto v = await<version_info>([&](auto cb) { c.version(cb); });
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->version, "8.4.1");
  auto reqs = fake_->requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].target, "/api2/json/version");
  EXPECT_EQ(reqs[0].header("Cookie"), "");
  EXPECT_EQ(c.logins(), 0u);
}

TEST_F(ClientTest, TicketAuthLogsInOnceAndSendsTheCsrfTokenOnWrites) {
  auto& c = with_password();
  std::vector<std::future<result<version_info>>> gets;
  // Concurrent first calls share one login.
  std::vector<std::shared_ptr<std::promise<result<version_info>>>> promises;
  for (int i = 0; i < 5; ++i) {
    auto p = std::make_shared<std::promise<result<version_info>>>();
    gets.push_back(p->get_future());
    c.version([p](result<version_info> r) { p->set_value(std::move(r)); });
  }
  for (auto& g : gets) {
    ASSERT_EQ(g.wait_for(10s), std::future_status::ready);
    EXPECT_TRUE(g.get().ok());
  }
  EXPECT_EQ(fake_->logins(), 1);
  vm_config_update u;
  u.cores = 2;
  u.affinity = std::vector<unsigned>{0, 1, 2, 3};  // root-only: fine with a root ticket
  auto task = await<std::optional<upid>>([&](auto cb) { c.update_vm_config("pve1", 100, u, cb); });
  ASSERT_TRUE(task.ok()) << task.error().message;
  ASSERT_TRUE(task->has_value());
  EXPECT_EQ((*task)->type, "qmclone");
  auto reqs = fake_->requests();
  const auto& post = reqs.back();
  EXPECT_EQ(post.method, "POST");
  EXPECT_EQ(post.header("CSRFPreventionToken"), "CSRF-PVE:root@pam:1::sig");
  EXPECT_EQ(post.header("Content-Type"), "application/x-www-form-urlencoded");
  // Proxmox answers once the task ended, within 5 s: a short config write needs no poll.
  EXPECT_EQ(post.body, "cores=2&affinity=0-3&background_delay=5");
  EXPECT_EQ(c.logins(), 1u);
}

TEST_F(ClientTest, ARejectedTicketLeadsToOneNewLoginAndTheRequestIsRepeated) {
  auto& c = with_password();
  ASSERT_TRUE((await<version_info>([&](auto cb) { c.version(cb); })).ok());
  fake_->rotate_ticket();
  auto v = await<version_info>([&](auto cb) { c.version(cb); });
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(fake_->logins(), 2);
}

TEST_F(ClientTest, TicketsAreRenewedOnceTheyReachTheRenewalAge) {
  // A renewal age of zero makes every ticket due at once: each call logs in first.
  auto& c = with_password("pve sim+root", 0ms);
  ASSERT_TRUE((await<version_info>([&](auto cb) { c.version(cb); })).ok());
  ASSERT_TRUE((await<version_info>([&](auto cb) { c.version(cb); })).ok());
  EXPECT_EQ(fake_->logins(), 2);
  EXPECT_EQ(c.logins(), 2u);
}

TEST_F(ClientTest, AWrongPasswordIsUnauthorizedWithoutTheSecretInTheMessage) {
  auto& c = with_password("wrong-secret");
  auto v = await<version_info>([&](auto cb) { c.version(cb); });
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().code, "unauthorized");
  EXPECT_EQ(v.error().message.find("wrong-secret"), std::string::npos) << v.error().message;
}

TEST_F(ClientTest, RootOnlyKeysAreRefusedLocallyForTokens) {
  auto& c = with_token();
  vm_config_update u;
  u.affinity = std::vector<unsigned>{0, 1};
  auto r = await<std::optional<upid>>([&](auto cb) { c.update_vm_config("pve1", 100, u, cb); });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "forbidden");
  EXPECT_TRUE(fake_->requests().empty());
}

TEST_F(ClientTest, LocalRefusalsStillCompleteOnAnIoThread) {
  auto& c = with_token();
  vm_config_update nothing;
  auto caller = std::this_thread::get_id();
  auto done = std::make_shared<std::promise<std::thread::id>>();
  auto future = done->get_future();
  c.update_vm_config("pve1", 100, nothing, [done](result<std::optional<upid>> r) {
    EXPECT_FALSE(r.ok());
    done->set_value(std::this_thread::get_id());
  });
  ASSERT_EQ(future.wait_for(10s), std::future_status::ready);
  EXPECT_NE(future.get(), caller);
}

TEST_F(ClientTest, ManyConcurrentCallsFromSeveralThreadsAllCompleteOnce) {
  auto& c = with_token();
  constexpr int threads = 4;
  constexpr int calls = 25;
  std::atomic<int> ok{0};
  std::atomic<int> completions{0};
  std::promise<void> all;
  auto all_done = all.get_future();
  std::vector<std::thread> callers;
  for (int t = 0; t < threads; ++t) {
    callers.emplace_back([&] {
      for (int i = 0; i < calls; ++i) {
        c.version([&](result<version_info> r) {
          if (r.ok()) ++ok;
          if (++completions == threads * calls) all.set_value();
        });
      }
    });
  }
  for (auto& t : callers) t.join();
  ASSERT_EQ(all_done.wait_for(20s), std::future_status::ready);
  EXPECT_EQ(ok.load(), threads * calls);
  EXPECT_EQ(completions.load(), threads * calls);
}

TEST_F(ClientTest, CloneSendsItsParametersAsAFormAndReturnsTheParsedUpid) {
  auto& c = with_token();
  clone_request r;
  r.node = "pve1";
  r.source_vmid = 9000;
  r.new_vmid = 100;
  r.name = "worker-1";
  r.description = "karpenter-proxmox: cluster=c, nodeclaim=worker-1, nodepool=p";
  r.full = true;
  r.storage = "local-lvm";
  r.pool = "k8s";
  auto u = await<upid>([&](auto cb) { c.clone_vm(r, cb); });
  ASSERT_TRUE(u.ok()) << u.error().message;
  EXPECT_EQ(u->text, upid_text);
  auto body = fake_->requests().back().body;
  EXPECT_EQ(
      body,
      "newid=100&name=worker-1&description=karpenter-proxmox%3A%20cluster%3Dc%2C%20nodeclaim%3D"
      "worker-1%2C%20nodepool%3Dp&full=1&storage=local-lvm&pool=k8s");
}

TEST_F(ClientTest, DeleteParametersTravelInTheQueryString) {
  auto& c = with_token();
  auto u = await<upid>([&](auto cb) { c.delete_vm("pve1", 100, true, cb); });
  ASSERT_TRUE(u.ok()) << u.error().message;
  auto req = fake_->requests().back();
  EXPECT_EQ(req.method, "DELETE");
  EXPECT_EQ(req.target, "/api2/json/nodes/pve1/qemu/100?purge=1&destroy-unreferenced-disks=1");
  EXPECT_TRUE(req.body.empty());
}

TEST_F(ClientTest, UploadsAreMultipartWithContentBeforeTheFile) {
  auto& c = with_token();
  iso_upload up;
  up.node = "pve1";
  up.storage = "local";
  up.filename = "user-data-100.iso";
  up.data = std::string("\0ISO\r\n--", 8);
  auto u = await<upid>([&](auto cb) { c.upload(up, cb); });
  ASSERT_TRUE(u.ok()) << u.error().message;
  auto req = fake_->requests().back();
  EXPECT_EQ(std::string(req.header("Content-Type")).rfind("multipart/form-data; boundary=", 0), 0u);
  auto content = req.body.find("name=\"content\"\r\n\r\niso\r\n");
  auto file = req.body.find("name=\"filename\"; filename=\"user-data-100.iso\"");
  ASSERT_NE(content, std::string::npos);
  ASSERT_NE(file, std::string::npos);
  EXPECT_LT(content, file);
  EXPECT_NE(req.body.find(up.data), std::string::npos);
}

TEST_F(ClientTest, ProxmoxErrorsArriveAsTypedErrorsNamingTheCall) {
  auto& c = with_token();
  auto taken = await<std::uint32_t>([&](auto cb) { c.next_vmid(150, cb); });
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.error().code, "conflict");
  EXPECT_NE(taken.error().message.find("GET /cluster/nextid"), std::string::npos);
  auto free_id = await<std::uint32_t>([&](auto cb) { c.next_vmid(std::nullopt, cb); });
  ASSERT_TRUE(free_id.ok());
  EXPECT_EQ(*free_id, 100u);
  auto missing = await<vm_status>([&](auto cb) { c.vm_status("pve1", 101, cb); });
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, "not_found");
  auto offline = await<node_status>([&](auto cb) { c.node_status("pve2", cb); });
  ASSERT_FALSE(offline.ok());
  EXPECT_EQ(offline.error().code, "host_offline");
  auto garbage = await<std::string>([&](auto cb) { c.call("GET", "/garbage", {}, cb); });
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.error().code, "invalid_reply");
}

TEST_F(ClientTest, AnUnreachableServerIsATransportError) {
  client_settings s;
  s.url = "http://127.0.0.1:1";
  s.credentials = token_credentials{token_id, token_secret};
  s.transport.connect_timeout = 2s;
  client c(io_.context(), s);
  auto v = await<version_info>([&](auto cb) { c.version(cb); });
  ASSERT_FALSE(v.ok());
  EXPECT_TRUE(v.error().code == "transport" || v.error().code == "timeout") << v.error().code;
}

}  // namespace
}  // namespace kp::proxmox
