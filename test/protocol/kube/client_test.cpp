// The REST client against an in-process scripted HTTP server on loopback: URLs, headers and
// bodies it sends, how it maps Status answers to typed errors (409 conflict, 429 blocked by a
// PDB), token re-reading on 401, pagination, and the list-then-watch loop (chunk splitting,
// resume from the last resourceVersion, re-list on 410).
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>

#include "protocol/kube/client.hpp"
#include "protocol/kube/coordination_v1.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/informer.hpp"
#include "protocol/kube/karpenter_v1.hpp"
#include "protocol/transport/http_server.hpp"
#include "protocol/transport/io_runtime.hpp"

namespace kp::kube {
namespace {

using namespace std::chrono_literals;
namespace bj = boost::json;

template <class T>
T wait(std::future<T>& f) {
  if (f.wait_for(10s) != std::future_status::ready) {
    ADD_FAILURE() << "timed out";
    std::abort();
  }
  return f.get();
}

// A scripted API server: each test installs a handler; requests are recorded.
class ScriptedServer : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<transport::http_server>(
        io_.context(), transport::server_options{},
        [this](transport::http_request req, std::shared_ptr<transport::http_exchange> ex) {
          std::function<void(const transport::http_request&,
                             std::shared_ptr<transport::http_exchange>)>
              h;
          {
            std::lock_guard lock(mutex_);
            requests_.push_back(req);
            h = handler_;
          }
          h(req, std::move(ex));
        });
    ASSERT_TRUE(server_->start().ok());
    client_config cfg;
    cfg.server = "http://127.0.0.1:" + std::to_string(server_->port());
    cfg.token = "admin-token";
    auto c = client::create(io_.context(), cfg);
    ASSERT_TRUE(c.ok()) << c.error().message;
    client_ = *c;
  }
  void TearDown() override {
    client_.reset();
    server_->stop();
  }

  void handle(
      std::function<void(const transport::http_request&, std::shared_ptr<transport::http_exchange>)>
          h) {
    std::lock_guard lock(mutex_);
    handler_ = std::move(h);
  }
  std::vector<transport::http_request> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  static transport::http_response json(int status, std::string body) {
    transport::http_response r;
    r.status = status;
    r.headers.emplace_back("Content-Type", "application/json");
    r.body = std::move(body);
    return r;
  }
  static std::string status_body(int code, const std::string& reason, const std::string& message,
                                 const std::string& causes = "[]") {
    return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")" +
           message + R"(","reason":")" + reason + R"(","details":{"causes":)" + causes +
           R"(},"code":)" + std::to_string(code) + "}";
  }

  transport::io_runtime io_{1};
  std::unique_ptr<transport::http_server> server_;
  std::shared_ptr<client> client_;
  std::mutex mutex_;
  std::function<void(const transport::http_request&, std::shared_ptr<transport::http_exchange>)>
      handler_;
  std::vector<transport::http_request> requests_;
};

TEST_F(ScriptedServer, getSendsTheTokenAndDecodesTheObject) {
  handle([](const transport::http_request&, std::shared_ptr<transport::http_exchange> ex) {
    ex->respond(json(
        200,
        R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p1","namespace":"ns1","resourceVersion":"5"}})"));
  });
  std::promise<result<pod>> done;
  auto f = done.get_future();
  client_->get<pod>({"ns1", "p1"}, [&](result<pod> r) { done.set_value(std::move(r)); });
  auto p = wait(f);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->metadata.resource_version, "5");
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "GET");
  EXPECT_EQ(reqs[0].target, "/api/v1/namespaces/ns1/pods/p1");
  EXPECT_EQ(reqs[0].header("Authorization"), "Bearer admin-token");
  EXPECT_EQ(reqs[0].header("Accept"), "application/json");
}

TEST_F(ScriptedServer, notFoundIsATypedErrorWithTheStatusMessage) {
  handle([](const transport::http_request&, std::shared_ptr<transport::http_exchange> ex) {
    ex->respond(json(404, status_body(404, "NotFound", "nodes \\\"w9\\\" not found")));
  });
  std::promise<result<node>> done;
  auto f = done.get_future();
  client_->get<node>({"", "w9"}, [&](result<node> r) { done.set_value(std::move(r)); });
  auto n = wait(f);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().code, "not_found");
  EXPECT_EQ(n.error().message, "HTTP 404 NotFound: nodes \"w9\" not found");
  EXPECT_EQ(requests()[0].target, "/api/v1/nodes/w9");
}

TEST_F(ScriptedServer, listAllFollowsContinueTokensWithSelectors) {
  handle([](const transport::http_request& req, std::shared_ptr<transport::http_exchange> ex) {
    std::string q(req.query());
    if (q.find("continue=") == std::string::npos) {
      ex->respond(json(
          200,
          R"({"metadata":{"resourceVersion":"10","continue":"page2"},"items":[{"metadata":{"name":"a"}}]})"));
    } else if (q.find("continue=page2") != std::string::npos) {
      ex->respond(json(
          200,
          R"({"metadata":{"resourceVersion":"10","continue":"page3"},"items":[{"metadata":{"name":"b"}}]})"));
    } else {
      ex->respond(json(
          200, R"({"metadata":{"resourceVersion":"10"},"items":[{"metadata":{"name":"c"}}]})"));
    }
  });
  list_options o;
  o.label_selector = "app in (web,api),!canary";
  o.field_selector = "spec.nodeName=w1,status.phase!=Succeeded";
  o.limit = 1;
  std::promise<result<object_list<pod>>> done;
  auto f = done.get_future();
  client_->list_all<pod>("", o, [&](result<object_list<pod>> r) { done.set_value(std::move(r)); });
  auto l = wait(f);
  ASSERT_TRUE(l.ok()) << l.error().message;
  ASSERT_EQ(l->items.size(), 3u);
  EXPECT_EQ(l->items[2].metadata.name, "c");
  EXPECT_EQ(l->resource_version, "10");
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].target,
            "/api/v1/"
            "pods?labelSelector=app%20in%20%28web%2Capi%29%2C%21canary&fieldSelector=spec.nodeName%"
            "3Dw1%2C"
            "status.phase%21%3DSucceeded&limit=1");
  EXPECT_NE(reqs[2].target.find("continue=page3"), std::string::npos);
}

TEST_F(ScriptedServer, anExpiredContinueTokenRestartsTheListWithoutPaging) {
  handle([](const transport::http_request& req, std::shared_ptr<transport::http_exchange> ex) {
    std::string q(req.query());
    if (q.find("continue=") != std::string::npos) {
      ex->respond(json(410, status_body(410, "Expired", "continue token expired")));
    } else if (q.find("limit=") != std::string::npos) {
      ex->respond(json(
          200,
          R"({"metadata":{"resourceVersion":"3","continue":"t"},"items":[{"metadata":{"name":"a"}}]})"));
    } else {
      ex->respond(json(
          200,
          R"({"metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]})"));
    }
  });
  std::promise<result<object_list<node>>> done;
  auto f = done.get_future();
  client_->list_all<node>("", {},
                          [&](result<object_list<node>> r) { done.set_value(std::move(r)); });
  auto l = wait(f);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->items.size(), 2u);
  EXPECT_EQ(requests().size(), 3u);
}

TEST_F(ScriptedServer, aStaleUpdateIsAConflictAndUpdateWithRetryTriesAgain) {
  std::atomic<int> puts{0};
  handle([&](const transport::http_request& req, std::shared_ptr<transport::http_exchange> ex) {
    if (req.method == "GET") {
      const std::string rv = puts.load() == 0 ? "1" : "2";
      return ex->respond(
          json(200, R"({"metadata":{"name":"l","namespace":"kube-system","resourceVersion":")" +
                        rv + R"("},"spec":{"holderIdentity":"a"}})"));
    }
    auto body = bj::parse(req.body);
    if (puts.fetch_add(1) == 0) {
      return ex->respond(json(
          409,
          status_body(
              409, "Conflict",
              "Operation cannot be fulfilled on leases \\\"l\\\": the object has been modified")));
    }
    EXPECT_EQ(body.at("metadata").at("resourceVersion"), "2");
    ex->respond(json(200, req.body));
  });
  lease l;
  l.metadata.name = "l";
  l.metadata.namespace_ = "kube-system";
  l.metadata.resource_version = "1";
  std::promise<result<lease>> first;
  auto f1 = first.get_future();
  client_->update<lease>(l, [&](result<lease> r) { first.set_value(std::move(r)); });
  auto r1 = wait(f1);
  ASSERT_FALSE(r1.ok());
  EXPECT_EQ(r1.error().code, "conflict");

  puts = 0;
  std::promise<result<lease>> second;
  auto f2 = second.get_future();
  client_->update_with_retry<lease>(
      {"kube-system", "l"},
      [](lease& x) {
        x.spec.holder_identity = "b";
        return true;
      },
      [&](result<lease> r) { second.set_value(std::move(r)); });
  auto r2 = wait(f2);
  ASSERT_TRUE(r2.ok()) << r2.error().message;
  EXPECT_EQ(r2->spec.holder_identity, "b");
  EXPECT_EQ(puts.load(), 2);
  auto reqs = requests();
  EXPECT_EQ(reqs.back().method, "PUT");
  EXPECT_EQ(reqs.back().target,
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/"
            "l?fieldManager=karpenter-proxmox");
}

TEST_F(ScriptedServer, anEvictionRefusedByABudgetIsBlockedByPdb) {
  handle([](const transport::http_request&, std::shared_ptr<transport::http_exchange> ex) {
    ex->respond(json(
        429,
        status_body(
            429, "TooManyRequests",
            "Cannot evict pod as it would violate the pod's disruption budget.",
            R"([{"reason":"DisruptionBudget","message":"The disruption budget web-pdb needs 2 healthy pods and has 2 currently"}])")));
  });
  std::promise<status> done;
  auto f = done.get_future();
  delete_options o;
  o.grace_period_seconds = 30;
  client_->evict({"default", "web-1"}, o, [&](status s) { done.set_value(std::move(s)); });
  auto s = wait(f);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "blocked_by_pdb");
  EXPECT_NE(s.error().message.find("web-pdb"), std::string::npos);
  auto req = requests()[0];
  EXPECT_EQ(req.target, "/api/v1/namespaces/default/pods/web-1/eviction");
  auto body = bj::parse(req.body);
  EXPECT_EQ(body.at("kind"), "Eviction");
  EXPECT_EQ(body.at("apiVersion"), "policy/v1");
  EXPECT_EQ(body.at("metadata").at("name"), "web-1");
  EXPECT_EQ(body.at("deleteOptions").at("gracePeriodSeconds"), 30);
}

TEST_F(ScriptedServer, deleteSendsPreconditionsAndPropagation) {
  handle([](const transport::http_request&, std::shared_ptr<transport::http_exchange> ex) {
    ex->respond(json(200, R"({"kind":"Status","apiVersion":"v1","status":"Success"})"));
  });
  delete_options o;
  o.precondition_uid = "uid-1";
  o.precondition_resource_version = "7";
  o.propagation_policy = "Foreground";
  std::promise<status> done;
  auto f = done.get_future();
  client_->remove<node_claim>({"", "default-x1"}, o,
                              [&](status s) { done.set_value(std::move(s)); });
  EXPECT_TRUE(wait(f).ok());
  auto req = requests()[0];
  EXPECT_EQ(req.method, "DELETE");
  EXPECT_EQ(req.target, "/apis/karpenter.sh/v1/nodeclaims/default-x1");
  auto body = bj::parse(req.body);
  EXPECT_EQ(body.at("preconditions").at("uid"), "uid-1");
  EXPECT_EQ(body.at("preconditions").at("resourceVersion"), "7");
  EXPECT_EQ(body.at("propagationPolicy"), "Foreground");
}

TEST_F(ScriptedServer, patchesCarryTheirContentTypesAndStatusGoesToTheSubresource) {
  handle([](const transport::http_request& req, std::shared_ptr<transport::http_exchange> ex) {
    if (req.header("Content-Type") == "application/strategic-merge-patch+json" &&
        req.target.find("nodeclaims") != std::string::npos) {
      return ex->respond(
          json(415, status_body(415, "UnsupportedMediaType",
                                "the body of the request was in an unknown format")));
    }
    ex->respond(json(200, R"({"metadata":{"name":"w1"}})"));
  });
  std::vector<std::pair<patch_type, std::string>> cases = {
      {patch_type::merge, "application/merge-patch+json"},
      {patch_type::strategic, "application/strategic-merge-patch+json"},
      {patch_type::json, "application/json-patch+json"},
      {patch_type::apply, "application/apply-patch+yaml"}};
  for (const auto& [type, content_type] : cases) {
    std::promise<result<node>> done;
    auto f = done.get_future();
    client_->patch<node>({"", "w1"}, type, R"({"spec":{"unschedulable":true}})",
                         [&](result<node> r) { done.set_value(std::move(r)); });
    EXPECT_TRUE(wait(f).ok());
    EXPECT_EQ(requests().back().header("Content-Type"), content_type);
  }
  EXPECT_EQ(requests().back().target,
            "/api/v1/nodes/w1?fieldManager=karpenter-proxmox&force=false");
  std::promise<result<node_claim>> refused;
  auto fr = refused.get_future();
  client_->patch<node_claim>({"", "c1"}, patch_type::strategic, "{}",
                             [&](result<node_claim> r) { refused.set_value(std::move(r)); });
  auto r = wait(fr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "unsupported_media_type");
  node_claim c;
  c.metadata.name = "c1";
  c.status.provider_id = "proxmox://r1/100";
  std::promise<result<node_claim>> st;
  auto fs = st.get_future();
  client_->update_status<node_claim>(c,
                                     [&](result<node_claim> r2) { st.set_value(std::move(r2)); });
  (void)wait(fs);
  EXPECT_EQ(requests().back().method, "PUT");
  EXPECT_EQ(requests().back().target,
            "/apis/karpenter.sh/v1/nodeclaims/c1/status?fieldManager=karpenter-proxmox");
}

TEST_F(ScriptedServer, aRotatedTokenFileIsSentOnTheNextRequest) {
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "kp-token-XXXXXX").string();
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  const fs::path token = fs::path(tmpl) / "token";
  std::ofstream(token) << "tok-1\n";
  client_config cfg = client_->config();
  cfg.token.clear();
  cfg.token_file = token.string();
  auto c = client::create(io_.context(), cfg);
  ASSERT_TRUE(c.ok());
  handle([](const transport::http_request&, std::shared_ptr<transport::http_exchange> ex) {
    ex->respond(json(200, R"({"metadata":{"name":"default"}})"));
  });
  auto get_once = [&] {
    std::promise<result<namespace_object>> done;
    auto f = done.get_future();
    (*c)->get<namespace_object>({"", "default"},
                                [&](result<namespace_object> r) { done.set_value(std::move(r)); });
    EXPECT_TRUE(wait(f).ok());
    return std::string(requests().back().header("Authorization"));
  };
  EXPECT_EQ(get_once(), "Bearer tok-1");
  std::ofstream(fs::path(tmpl) / "next") << "tok-2-rotated\n";
  fs::rename(fs::path(tmpl) / "next", token);
  EXPECT_EQ(get_once(), "Bearer tok-2-rotated");
  fs::remove_all(tmpl);
}

TEST_F(ScriptedServer, theInformerResumesFromTheLastVersionAndRelistsWhenExpired) {
  // Shared by value with the handler and the callbacks: both run on the io thread, and a request
  // already on the wire when the informer stops still reaches the handler after this body ends.
  struct observed {
    std::mutex m;
    std::condition_variable cv;
    int lists = 0;
    int watches = 0;
    std::vector<std::vector<std::string>> replaces;
    std::vector<std::string> events;
    // Dropping an exchange ends its stream, and the informer would then watch again and again.
    std::vector<std::shared_ptr<transport::http_exchange>> open_watches;
  };
  auto seen = std::make_shared<observed>();
  handle([seen](const transport::http_request& req, std::shared_ptr<transport::http_exchange> ex) {
    const std::string q(req.query());
    std::unique_lock lock(seen->m);
    if (q.find("watch=true") == std::string::npos) {
      if (seen->lists++ == 0) {
        return ex->respond(json(
            200,
            R"({"metadata":{"resourceVersion":"10"},"items":[{"metadata":{"name":"a","resourceVersion":"9"}}]})"));
      }
      return ex->respond(json(
          200,
          R"({"metadata":{"resourceVersion":"20"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}},{"metadata":{"name":"c"}}]})"));
    }
    const int n = seen->watches++;
    seen->cv.notify_all();
    ex->start_stream(200, {{"Content-Type", "application/json"}});
    if (n == 0) {
      // One event split across chunks, then a bookmark, then the server ends the stream.
      ex->write(R"({"type":"ADDED","object":{"metadata":{"name":"b","resour)");
      ex->write(
          R"(ceVersion":"11"}}})"
          "\n"
          R"({"type":"BOOKMARK","object":{"kind":"Node","apiVersion":"v1","metadata":{"resourceVersion":"15"}}})"
          "\n");
      ex->finish();
    } else if (n == 1) {
      ex->write(
          R"x({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 15 (18)","reason":"Expired","code":410}})x"
          "\n");
      ex->finish();
    } else {
      seen->open_watches.push_back(std::move(ex));  // stays open until the server stops
    }
  });
  informer_callbacks<node> cb;
  cb.on_replace = [seen](std::vector<std::shared_ptr<const node>> items, const std::string&) {
    std::vector<std::string> names;
    for (auto& i : items) names.push_back(i->metadata.name);
    std::lock_guard lock(seen->m);
    seen->replaces.push_back(names);
    seen->cv.notify_all();
  };
  cb.on_event = [seen](std::string_view type, node n) {
    std::lock_guard lock(seen->m);
    seen->events.push_back(std::string(type) + " " + n.metadata.name);
    seen->cv.notify_all();
  };
  reflector_options ro;
  ro.initial_backoff = 10ms;
  auto h = start_informer<node>(*client_, "", ro, cb);
  bool reached = false;
  {
    std::unique_lock lock(seen->m);
    reached = seen->cv.wait_for(lock, 10s,
                                [&] { return seen->replaces.size() >= 2 && seen->watches >= 3; });
  }
  h->stop();  // on every path, so nothing keeps running once the assertions below return
  {
    std::lock_guard lock(seen->m);
    ASSERT_TRUE(reached) << "within 10 s the informer should have listed twice and watched three "
                            "times; it listed "
                         << seen->replaces.size() << " and watched " << seen->watches << " times";
    EXPECT_EQ(seen->replaces[0], (std::vector<std::string>{"a"}));
    EXPECT_EQ(seen->replaces[1], (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(seen->events, (std::vector<std::string>{"ADDED b"}));
    EXPECT_EQ(seen->watches, 3) << "the third watch is still open, so there is no fourth";
  }
  std::vector<std::string> watch_targets;
  for (const auto& r : requests()) {
    if (r.target.find("watch=true") != std::string::npos) watch_targets.push_back(r.target);
  }
  ASSERT_GE(watch_targets.size(), 3u);
  EXPECT_NE(watch_targets[0].find("resourceVersion=10&allowWatchBookmarks=true"), std::string::npos)
      << watch_targets[0];
  EXPECT_NE(watch_targets[1].find("resourceVersion=15&"), std::string::npos)
      << watch_targets[1];  // from the bookmark
  EXPECT_NE(watch_targets[2].find("resourceVersion=20&"), std::string::npos)
      << watch_targets[2];  // after the re-list
}

TEST_F(ScriptedServer, theInformerListsInPagesOf500AndReportsEveryPageAsOneStateWithKeptFields) {
  // Three pages (500, 500, 1): the informer asks for 500 at a time, follows the continue token
  // and reports the whole set once, each object passed through `keep` first.
  struct observed {
    std::mutex m;
    std::condition_variable cv;
    std::vector<std::shared_ptr<const node>> replaced;
    bool done = false;
    std::vector<std::shared_ptr<transport::http_exchange>> open_watches;
  };
  auto seen = std::make_shared<observed>();
  auto page = [](int first, int count, const std::string& next) {
    std::string items;
    for (int i = first; i < first + count; ++i) {
      if (!items.empty()) items += ',';
      items += R"({"metadata":{"name":"n)" + std::to_string(i) + R"(","labels":{"a":"b"}}})";
    }
    std::string cont = next.empty() ? "" : R"(,"continue":")" + next + R"(")";
    return R"({"metadata":{"resourceVersion":"7")" + cont + R"(},"items":[)" + items + "]}";
  };
  handle([seen, page](const transport::http_request& req,
                      std::shared_ptr<transport::http_exchange> ex) {
    const std::string q(req.query());
    if (q.find("watch=true") != std::string::npos) {
      std::lock_guard lock(seen->m);
      ex->start_stream(200, {{"Content-Type", "application/json"}});
      seen->open_watches.push_back(std::move(ex));
      return;
    }
    if (q.find("continue=second") != std::string::npos)
      return ex->respond(json(200, page(500, 500, "third")));
    if (q.find("continue=third") != std::string::npos)
      return ex->respond(json(200, page(1000, 1, "")));
    ex->respond(json(200, page(0, 500, "second")));
  });
  informer_callbacks<node> cb;
  cb.keep = [](node& n) { n.metadata.labels.clear(); };
  cb.on_replace = [seen](std::vector<std::shared_ptr<const node>> items, const std::string&) {
    std::lock_guard lock(seen->m);
    seen->replaced = std::move(items);
    seen->done = true;
    seen->cv.notify_all();
  };
  auto h = start_informer<node>(*client_, "", reflector_options{}, cb);
  bool reached = false;
  {
    std::unique_lock lock(seen->m);
    reached = seen->cv.wait_for(lock, 10s, [&] { return seen->done; });
  }
  h->stop();
  std::lock_guard lock(seen->m);
  ASSERT_TRUE(reached) << "the informer should have reported its list within 10 s";
  ASSERT_EQ(seen->replaced.size(), 1001u);
  EXPECT_EQ(seen->replaced.front()->metadata.name, "n0");
  EXPECT_EQ(seen->replaced.back()->metadata.name, "n1000");
  EXPECT_TRUE(seen->replaced[500]->metadata.labels.empty()) << "keep ran on every item";
  std::vector<std::string> lists;
  for (const auto& r : requests())
    if (r.target.find("watch=true") == std::string::npos) lists.push_back(r.target);
  ASSERT_EQ(lists.size(), 3u);
  for (const auto& t : lists) EXPECT_NE(t.find("limit=500"), std::string::npos) << t;
  EXPECT_EQ(lists[0].find("continue="), std::string::npos) << lists[0];
  EXPECT_NE(lists[1].find("continue=second"), std::string::npos) << lists[1];
  EXPECT_NE(lists[2].find("continue=third"), std::string::npos) << lists[2];
}

TEST_F(ScriptedServer, aWatchAnsweredWithAnHttpErrorEndsWithThatError) {
  handle([](const transport::http_request&, std::shared_ptr<transport::http_exchange> ex) {
    ex->respond(json(410, status_body(410, "Expired", "too old resource version")));
  });
  std::promise<status> ended;
  auto f = ended.get_future();
  watch_options o;
  o.resource_version = "1";
  auto w = client_->watch_raw(
      pod::resource, "default", o, [](std::string_view, const bj::value&) {},
      [&](status s) { ended.set_value(std::move(s)); });
  auto s = wait(f);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "expired");
  EXPECT_EQ(
      requests()[0].target,
      "/api/v1/namespaces/default/pods?watch=true&resourceVersion=1&allowWatchBookmarks=true");
}

TEST_F(ScriptedServer, aWatchEventLargerThanItsParsingArenaIsDecodedWholeAndTheNextOneToo) {
  const std::string big(40000, 'v');  // more than the arena a watch stream parses events in
  handle([&big](const transport::http_request&, std::shared_ptr<transport::http_exchange> ex) {
    ex->start_stream(200, {{"Content-Type", "application/json"}});
    ex->write(R"({"type":"ADDED","object":{"metadata":{"name":"a","annotations":{"note":")" + big +
              R"("}}}})"
              "\n"
              R"({"type":"MODIFIED","object":{"metadata":{"name":"b","annotations":{"note":"x"}}}})"
              "\n");
    ex->finish();
  });
  std::mutex m;
  std::vector<std::pair<std::string, std::size_t>> seen;  // name, annotation length
  std::promise<status> ended;
  auto f = ended.get_future();
  auto w = client_->watch_raw(
      pod::resource, "default", {},
      [&](std::string_view, const bj::value& object) {
        auto decoded = decode_value<pod>(object);
        ASSERT_TRUE(decoded.ok());
        std::lock_guard lock(m);
        seen.emplace_back(decoded->metadata.name, decoded->metadata.annotations["note"].size());
      },
      [&](status s) { ended.set_value(std::move(s)); });
  EXPECT_TRUE(wait(f).ok());
  std::lock_guard lock(m);
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, std::size_t>>{{"a", big.size()}, {"b", 1}}));
}

// A client of this fixture's server with small bounds on what it holds.
std::shared_ptr<client> bounded_client(transport::io_runtime& io, std::uint16_t port) {
  client_config cfg;
  cfg.server = "http://127.0.0.1:" + std::to_string(port);
  client_options o;
  o.max_response_bytes = 1024;
  o.max_watch_line_bytes = 4096;
  auto c = client::create(io.context(), cfg, o);
  EXPECT_TRUE(c.ok());
  return c.ok() ? *c : nullptr;
}

TEST_F(ScriptedServer, aWatchLineLongerThanTheBoundEndsTheWatchWithTooLarge) {
  std::mutex held_mutex;
  std::shared_ptr<transport::http_exchange> held;  // the stream stays open: no end to wait for
  handle([&](const transport::http_request&, std::shared_ptr<transport::http_exchange> ex) {
    ex->start_stream(200, {{"Content-Type", "application/json"}});
    ex->write(R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"2"}}})"
              "\n");
    for (int i = 0; i < 4; ++i) ex->write(std::string(2000, 'x'));  // a line without an end
    std::lock_guard lock(held_mutex);
    held = std::move(ex);
  });
  auto c = bounded_client(io_, server_->port());
  std::promise<status> ended;
  auto f = ended.get_future();
  std::atomic<int> events{0};
  auto w = c->watch_raw(
      pod::resource, "default", {}, [&](std::string_view, const bj::value&) { ++events; },
      [&](status s) { ended.set_value(std::move(s)); });
  auto s = wait(f);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "too_large");
  EXPECT_NE(s.error().message.find("4096"), std::string::npos) << s.error().message;
  EXPECT_EQ(events.load(), 1);
}

TEST_F(ScriptedServer, aListResponseLargerThanTheBoundIsAnError) {
  handle([](const transport::http_request&, std::shared_ptr<transport::http_exchange> ex) {
    std::string items;
    for (int i = 0; i < 100; ++i) {
      items +=
          std::string(i ? "," : "") + R"({"metadata":{"name":"pod-)" + std::to_string(i) + R"("}})";
    }
    ex->respond(json(200, R"({"kind":"PodList","metadata":{},"items":[)" + items + "]}"));
  });
  auto c = bounded_client(io_, server_->port());
  std::promise<result<std::string>> done;
  auto f = done.get_future();
  c->list_raw(pod::resource, "default", {},
              [&](result<std::string> r) { done.set_value(std::move(r)); });
  auto r = wait(f);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("exceeds 1024 bytes"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace kp::kube
