// kube-sim over HTTPS with the project's transport client: Status codes for every kind of bad
// request, list paging, watch semantics (resume, 410 Expired, bookmarks, drops), the bootstrap
// token → CSR → node credential path, and the simulated controllers seen from outside.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "api_client.hpp"
#include "kube_sim_process.hpp"
#include "protocol/transport/tls_certificates.hpp"
#include "sim/kube/json_util.hpp"
#include "test/support/eventually.hpp"

namespace kp::sim::kube::testing {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;

class KubeSimOverHttps : public ::testing::Test {
 protected:
  void start(std::vector<std::string> args = {}) {
    sim_ = std::make_unique<kube_sim_process>(std::move(args));
    ASSERT_TRUE(sim_->ok()) << sim_->error();
    admin_ = std::make_unique<api_client>(sim_->url(), sim_->ca_pem(), sim_->token());
  }
  void SetUp() override {
    start({"--node-monitor-grace", "3600", "--bookmark-interval-ms", "100"});
  }

  reply must(const std::string& method, const std::string& target, const std::string& body = "",
             const std::string& ct = "application/json") {
    auto r = admin_->call(method, target, body, ct);
    EXPECT_TRUE(r.status >= 200 && r.status < 300)
        << method << " " << target << " -> " << r.status << " " << r.body << r.error;
    return r;
  }
  // Polls GET target until pred(json) holds.
  bool eventually(const std::string& target, const std::function<bool(const json::value&)>& pred,
                  std::chrono::milliseconds within = 10s) {
    return test_support::eventually(
        [&] {
          auto r = admin_->call("GET", target);
          last_ = r;
          return pred(r.status == 200 ? r.json() : json::value(r.status));
        },
        within);
  }
  static std::string str(const json::value& v, std::initializer_list<std::string_view> path) {
    return v.is_object() ? std::string(string_at(v.get_object(), path)) : std::string();
  }
  void create_node(const std::string& name, const std::string& extra_labels = "") {
    must(
        "POST", "/api/v1/nodes",
        R"({"metadata":{"name":")" + name + R"(","labels":{"kubernetes.io/hostname":")" + name +
            "\"" + extra_labels +
            R"(}},"status":{"allocatable":{"cpu":"2","memory":"4Gi","pods":"10"},"conditions":[{"type":"Ready","status":"True"}]}})");
  }

  std::unique_ptr<kube_sim_process> sim_;
  std::unique_ptr<api_client> admin_;
  reply last_;
};

void expect_status(const reply& r, int code, const std::string& reason) {
  EXPECT_EQ(r.status, code) << r.body << r.error;
  auto j = r.json();
  ASSERT_TRUE(j.is_object()) << r.body;
  EXPECT_EQ(j.at("kind"), json::value("Status"));
  EXPECT_EQ(j.at("code"), json::value(code));
  EXPECT_EQ(j.at("reason"), json::value(reason)) << r.body;
}

TEST_F(KubeSimOverHttps, MalformedBodiesAreAnsweredWithStatusObjectsNeverACrash) {
  expect_status(admin_->call("POST", "/api/v1/namespaces/default/configmaps", "{not json"), 400,
                "BadRequest");
  expect_status(admin_->call("POST", "/api/v1/namespaces/default/configmaps", "[1,2]"), 400,
                "BadRequest");
  expect_status(admin_->call("POST", "/api/v1/namespaces/default/configmaps", "{\"metadata\":{}}"),
                422, "Invalid");
  expect_status(admin_->call("POST", "/api/v1/namespaces/default/configmaps",
                             "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"}}"),
                400, "BadRequest");
  expect_status(
      admin_->call("POST", "/api/v1/namespaces/default/configmaps", "a: b", "application/x-weird"),
      415, "UnsupportedMediaType");
  expect_status(admin_->call("PATCH", "/api/v1/namespaces/default/configmaps/kube-root-ca.crt",
                             "{\"op\":1}", "application/json-patch+json"),
                400, "BadRequest");
  expect_status(admin_->call("PATCH", "/api/v1/namespaces/default/configmaps/kube-root-ca.crt",
                             "{}", "text/plain"),
                415, "UnsupportedMediaType");
  expect_status(admin_->call("GET", "/api/v1/pods?labelSelector=a%20in%20(b"), 400, "BadRequest");
  expect_status(admin_->call("GET", "/api/v1/pods?fieldSelector=spec.nope%3D1"), 400, "BadRequest");
  expect_status(admin_->call("GET", "/api/v1/pods?limit=abc"), 400, "BadRequest");
  expect_status(admin_->call("GET", "/api/v1/pods?continue=garbage"), 400, "BadRequest");
  expect_status(
      admin_->call("DELETE", "/api/v1/namespaces/default/configmaps/kube-root-ca.crt", "\"x\""),
      400, "BadRequest");
  EXPECT_EQ(admin_->call("GET", "/version").status, 200) << "still serving";
}

TEST_F(KubeSimOverHttps, CredentialsAreCheckedAndForbiddenRequestsRefused) {
  api_client anonymous(sim_->url(), sim_->ca_pem(), "");
  expect_status(anonymous.call("GET", "/api/v1/pods"), 401, "Unauthorized");
  EXPECT_EQ(anonymous.call("GET", "/version").status, 200);
  api_client wrong(sim_->url(), sim_->ca_pem(), "not-the-token");
  expect_status(wrong.call("GET", "/api/v1/pods"), 401, "Unauthorized");
  expect_status(wrong.call("GET", "/sim/v1/stats"), 401, "Unauthorized");
}

TEST_F(KubeSimOverHttps, TokensAddedThroughTheTestControlsWorkUntilRevoked) {
  must(
      "POST", "/sim/v1/tokens",
      R"({"token":"rotated-1","user":"system:serviceaccount:kube-system:karpenter","groups":["system:masters"]})");
  api_client rotated(sim_->url(), sim_->ca_pem(), "rotated-1");
  EXPECT_EQ(rotated.call("GET", "/api/v1/nodes").status, 200);
  must("POST", "/sim/v1/tokens/revoke", R"({"token":"rotated-1"})");
  expect_status(rotated.call("GET", "/api/v1/nodes"), 401, "Unauthorized");
}

TEST_F(KubeSimOverHttps, UnknownPathsAre404AndUnsupportedMethods405) {
  expect_status(admin_->call("GET", "/api/v1/nothings"), 404, "NotFound");
  expect_status(admin_->call("GET", "/apis/nope.io/v1/things"), 404, "NotFound");
  expect_status(admin_->call("GET", "/api/v1/namespaces/default/pods/missing"), 404, "NotFound");
  EXPECT_EQ(admin_->call("GET", "/api/v1/namespaces/default/pods/missing").json().at("message"),
            json::value("pods \"missing\" not found"));
  expect_status(admin_->call("PUT", "/api/v1/namespaces/default/pods", "{}"), 405,
                "MethodNotAllowed");
  expect_status(admin_->call("POST", "/api/v1/pods", "{}"), 405, "MethodNotAllowed");
}

TEST_F(KubeSimOverHttps, DuplicatesAndStaleUpdatesAreConflicts) {
  auto created = must("POST", "/api/v1/namespaces/default/configmaps",
                      R"({"metadata":{"name":"c"},"data":{"a":"1"}})");
  expect_status(
      admin_->call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"c"}})"),
      409, "AlreadyExists");
  auto obj = created.json();
  obj.at("data").as_object()["a"] = "2";
  must("PUT", "/api/v1/namespaces/default/configmaps/c", json::serialize(obj));
  obj.at("data").as_object()["a"] = "3";
  expect_status(
      admin_->call("PUT", "/api/v1/namespaces/default/configmaps/c", json::serialize(obj)), 409,
      "Conflict");
  expect_status(admin_->call("DELETE", "/api/v1/namespaces/default/configmaps/c",
                             R"({"preconditions":{"uid":"wrong"}})"),
                409, "Conflict");
}

TEST_F(KubeSimOverHttps, PaginationWalksEveryItemOfOneSnapshot) {
  must("POST", "/api/v1/namespaces", R"({"metadata":{"name":"paged"}})");
  for (int i = 0; i < 7; ++i)
    must("POST", "/api/v1/namespaces/paged/secrets",
         R"({"metadata":{"name":"s)" + std::to_string(i) + R"("}})");
  std::vector<std::string> names;
  std::string cont, rv;
  for (int page = 0; page < 5; ++page) {
    auto r = must("GET", "/api/v1/namespaces/paged/secrets?limit=3" +
                             (cont.empty() ? "" : "&continue=" + cont));
    auto j = r.json();
    for (const auto& item : j.at("items").as_array())
      names.push_back(str(item, {"metadata", "name"}));
    if (rv.empty()) rv = str(j, {"metadata", "resourceVersion"});
    EXPECT_EQ(str(j, {"metadata", "resourceVersion"}), rv)
        << "every page carries the first page's RV";
    cont = str(j, {"metadata", "continue"});
    if (cont.empty()) break;
  }
  ASSERT_EQ(names.size(), 7u);
  EXPECT_EQ(names.front(), "s0");
  EXPECT_EQ(names.back(), "s6");
}

TEST_F(KubeSimOverHttps, BulkLoadCreatesEachItemAsAPostWouldAndWritesItsStatus) {
  auto loaded = must("POST", "/sim/v1/objects", R"({"items":[
    {"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bulk"}},
    {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"bulk"},
     "spec":{"nodeName":"n1","containers":[{"name":"c","image":"i"}]},
     "status":{"phase":"Running"}}]})");
  EXPECT_EQ(loaded.json().at("created").as_int64(), 2);
  auto pod = must("GET", "/api/v1/namespaces/bulk/pods/p").json();
  EXPECT_EQ(str(pod, {"status", "phase"}), "Running");
  EXPECT_FALSE(str(pod, {"metadata", "uid"}).empty());
  EXPECT_EQ(str(pod, {"spec", "restartPolicy"}), "Always") << "defaults applied as on a POST";
  auto refused =
      admin_->call("POST", "/sim/v1/objects",
                   R"({"items":[{"apiVersion":"v9","kind":"Nothing","metadata":{"name":"x"}}]})");
  expect_status(refused, 400, "BadRequest");
  EXPECT_NE(refused.body.find("item 0"), std::string::npos) << refused.body;
  expect_status(admin_->call("POST", "/sim/v1/objects", R"({"no":"items"})"), 400, "BadRequest");
}

TEST_F(KubeSimOverHttps, WatchFromAResourceVersionSendsOnlyLaterChanges) {
  auto a = must("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"a"}})");
  auto rv = str(a.json(), {"metadata", "resourceVersion"});
  must("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"b"}})");
  auto w = admin_->watch("/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=" + rv);
  ASSERT_TRUE(w->wait_for(
      [](const std::string& t) { return t.find("\"name\":\"b\"") != std::string::npos; }, 10s))
      << w->text();
  EXPECT_EQ(w->text().find("\"name\":\"a\""), std::string::npos)
      << "no synthetic ADDED for older objects";
  must("DELETE", "/api/v1/namespaces/default/configmaps/a");
  ASSERT_TRUE(w->wait_for(
      [](const std::string& t) { return t.find("{\"type\":\"DELETED\"") != std::string::npos; },
      10s))
      << w->text();
  w->cancel();
}

TEST_F(KubeSimOverHttps, WatchWithoutResourceVersionStartsWithTheCurrentState) {
  auto w = admin_->watch("/api/v1/namespaces?watch=1");
  ASSERT_TRUE(w->wait_for(
      [](const std::string& t) { return t.find("kube-node-lease") != std::string::npos; }, 10s))
      << w->text();
  EXPECT_NE(w->text().find("{\"type\":\"ADDED\""), std::string::npos);
  w->cancel();
}

TEST_F(KubeSimOverHttps, WatchFromACompactedResourceVersionGetsA410ErrorEvent) {
  must("POST", "/sim/v1/history", R"({"limit":2})");
  for (int i = 0; i < 5; ++i)
    must("POST", "/api/v1/namespaces/default/configmaps",
         R"({"metadata":{"name":"h)" + std::to_string(i) + R"("}})");
  auto w = admin_->watch("/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=1");
  ASSERT_TRUE(w->wait_ended(10s));
  auto t = w->text();
  EXPECT_NE(t.find("\"type\":\"ERROR\""), std::string::npos) << t;
  EXPECT_NE(t.find("\"code\":410"), std::string::npos) << t;
  EXPECT_NE(t.find("\"reason\":\"Expired\""), std::string::npos) << t;
}

TEST_F(KubeSimOverHttps, ForcedExpiryAnswersTheNextWatchWith410) {
  must("POST", "/sim/v1/expire", R"({"count":1})");
  auto w = admin_->watch("/api/v1/pods?watch=true&resourceVersion=1");
  ASSERT_TRUE(w->wait_ended(10s));
  EXPECT_NE(w->text().find("\"code\":410"), std::string::npos) << w->text();
}

TEST_F(KubeSimOverHttps, BookmarksAreSentOnlyToWatchesThatAskForThem) {
  auto plain = admin_->watch("/api/v1/pods?watch=true&resourceVersion=1");
  auto marked = admin_->watch("/api/v1/pods?watch=true&resourceVersion=1&allowWatchBookmarks=true");
  ASSERT_TRUE(marked->wait_for(
      [](const std::string& t) { return t.find("BOOKMARK") != std::string::npos; }, 10s));
  ASSERT_TRUE(marked->wait_for(
      [](const std::string& t) {
        return t.find("BOOKMARK") !=
               t.rfind("BOOKMARK");  // a second one: the plain watch had its chance
      },
      10s));
  EXPECT_EQ(plain->text().find("BOOKMARK"), std::string::npos) << plain->text();
  EXPECT_NE(marked->text().find(
                "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\""),
            std::string::npos)
      << marked->text();
  plain->cancel();
  marked->cancel();
}

TEST_F(KubeSimOverHttps, DroppingWatchesEndsTheirStreams) {
  auto w = admin_->watch("/api/v1/pods?watch=true");
  ASSERT_TRUE(eventually("/sim/v1/stats", [](const json::value& v) {
    return v.is_object() && v.at("watches") != json::value(0);
  })) << last_.body;
  must("POST", "/sim/v1/watches/drop");
  EXPECT_TRUE(w->wait_ended(10s));
}

TEST_F(KubeSimOverHttps, BootstrapTokenCsrYieldsANodeCredentialThatRegistersItsNode) {
  auto expiry = format_time(std::chrono::system_clock::now() + std::chrono::hours(1));
  must("POST", "/api/v1/namespaces/kube-system/secrets",
       R"({"metadata":{"name":"bootstrap-token-abcdef"},
    "type":"bootstrap.kubernetes.io/token","stringData":{"token-id":"abcdef","token-secret":"0123456789abcdef",
    "usage-bootstrap-authentication":"true","usage-bootstrap-signing":"true",
    "auth-extra-groups":"system:bootstrappers:worker","expiration":")" +
           expiry + R"("}})");
  api_client bootstrap(sim_->url(), sim_->ca_pem(), "abcdef.0123456789abcdef");
  expect_status(bootstrap.call("GET", "/api/v1/pods"), 403, "Forbidden");
  auto csr = transport::make_client_csr("system:node:n1", {"system:nodes"});
  ASSERT_TRUE(csr.ok());
  auto created = bootstrap.call(
      "POST", "/apis/certificates.k8s.io/v1/certificatesigningrequests",
      R"({"metadata":{"generateName":"node-csr-"},"spec":{"request":")" +
          base64_encode(csr->csr_pem) +
          R"(","signerName":"kubernetes.io/kube-apiserver-client-kubelet","usages":["digital signature","client auth"]}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(str(created.json(), {"spec", "username"}), "system:bootstrap:abcdef");
  auto name = str(created.json(), {"metadata", "name"});
  std::string certificate;
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (certificate.empty() && std::chrono::steady_clock::now() < deadline) {
    auto r =
        bootstrap.call("GET", "/apis/certificates.k8s.io/v1/certificatesigningrequests/" + name);
    certificate = str(r.json(), {"status", "certificate"});
  }
  ASSERT_FALSE(certificate.empty());
  auto pem = base64_decode(certificate);
  ASSERT_TRUE(pem && pem->find("BEGIN CERTIFICATE") != std::string::npos);
  api_client node(sim_->url(), sim_->ca_pem(), "", *pem, csr->private_key_pem);
  auto registered = node.call("POST", "/api/v1/nodes", R"({"metadata":{"name":"n1"}})");
  EXPECT_EQ(registered.status, 201) << registered.body << registered.error;
  EXPECT_EQ(node.call("GET", "/api/v1/nodes/n1").status, 200);
  expect_status(node.call("GET", "/api/v1/namespaces/kube-system/secrets"), 403, "Forbidden");
}

TEST_F(KubeSimOverHttps, ExpiredBootstrapTokensAreRejectedAndCleanedUp) {
  auto past = format_time(std::chrono::system_clock::now() - std::chrono::hours(1));
  must("POST", "/api/v1/namespaces/kube-system/secrets",
       R"({"metadata":{"name":"bootstrap-token-zzzzzz"},
    "type":"bootstrap.kubernetes.io/token","stringData":{"token-id":"zzzzzz","token-secret":"0123456789abcdef",
    "usage-bootstrap-authentication":"true","expiration":")" +
           past + R"("}})");
  EXPECT_TRUE(eventually("/api/v1/namespaces/kube-system/secrets/bootstrap-token-zzzzzz",
                         [](const json::value& v) { return v == json::value(404); }))
      << last_.body;
  api_client expired(sim_->url(), sim_->ca_pem(), "zzzzzz.0123456789abcdef");
  expect_status(expired.call("GET", "/apis/certificates.k8s.io/v1/certificatesigningrequests"), 401,
                "Unauthorized");
}

TEST_F(KubeSimOverHttps, SchedulerHonoursSelectorsTaintsAndAntiAffinity) {
  create_node("a", R"(,"zone":"z1")");
  create_node("b", R"(,"zone":"z2")");
  must("PATCH", "/api/v1/nodes/b",
       R"({"spec":{"taints":[{"key":"dedicated","value":"x","effect":"NoSchedule"}]}})",
       "application/strategic-merge-patch+json");
  auto pod = [&](const std::string& name, const std::string& spec_extra) {
    must("POST", "/api/v1/namespaces/default/pods",
         R"({"metadata":{"name":")" + name +
             R"(","labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i:1",
         "resources":{"requests":{"cpu":"500m"}}}])" +
             spec_extra + "}}");
  };
  pod("tolerating",
      R"(,"nodeSelector":{"zone":"z2"},"tolerations":[{"key":"dedicated","operator":"Exists"}])");
  pod("selected-z2", R"(,"nodeSelector":{"zone":"z2"})");
  pod("big", R"(,"overhead":{"cpu":"5"})");
  std::string anti =
      R"(,"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
      {"labelSelector":{"matchLabels":{"role":"solo"}},"topologyKey":"kubernetes.io/hostname"}]}})";
  must(
      "POST", "/api/v1/namespaces/default/pods",
      R"({"metadata":{"name":"solo-1","labels":{"role":"solo"}},"spec":{"containers":[{"name":"c","image":"i:1"}],
       "tolerations":[{"operator":"Exists"}])" +
          anti + "}}");
  ASSERT_TRUE(eventually("/api/v1/namespaces/default/pods/solo-1", [&](const json::value& v) {
    return !str(v, {"spec", "nodeName"}).empty();
  }));
  must(
      "POST", "/api/v1/namespaces/default/pods",
      R"({"metadata":{"name":"solo-2","labels":{"role":"solo"}},"spec":{"containers":[{"name":"c","image":"i:1"}],
       "tolerations":[{"operator":"Exists"}])" +
          anti + "}}");
  must(
      "POST", "/api/v1/namespaces/default/pods",
      R"({"metadata":{"name":"solo-3","labels":{"role":"solo"}},"spec":{"containers":[{"name":"c","image":"i:1"}],
       "tolerations":[{"operator":"Exists"}])" +
          anti + "}}");
  auto node_of = [&](const std::string& name) {
    return str(admin_->call("GET", "/api/v1/namespaces/default/pods/" + name).json(),
               {"spec", "nodeName"});
  };
  auto scheduled_reason = [&](const std::string& name) {
    auto j = admin_->call("GET", "/api/v1/namespaces/default/pods/" + name).json();
    if (const auto* cs = array_at(j.as_object(), {"status", "conditions"}))
      for (const auto& c : *cs)
        if (str(c, {"type"}) == "PodScheduled")
          return str(c, {"status"}) + "/" + str(c, {"reason"});
    return std::string();
  };
  ASSERT_TRUE(eventually("/api/v1/namespaces/default/pods/tolerating", [&](const json::value& v) {
    return str(v, {"spec", "nodeName"}) == "b";
  }));
  ASSERT_TRUE(eventually("/api/v1/namespaces/default/pods/big", [&](const json::value&) {
    return scheduled_reason("big") == "False/Unschedulable";
  }));
  EXPECT_EQ(scheduled_reason("selected-z2"), "False/Unschedulable") << "b's taint is not tolerated";
  ASSERT_TRUE(eventually("/api/v1/namespaces/default/pods/solo-3", [&](const json::value&) {
    return !node_of("solo-2").empty() && !scheduled_reason("solo-3").empty();
  }));
  EXPECT_NE(node_of("solo-1"), node_of("solo-2"));
  EXPECT_EQ(scheduled_reason("solo-3"), "False/Unschedulable")
      << "no third host for an anti-affine pod";
}

TEST_F(KubeSimOverHttps, ReplicaSetsRecreateDeletedPodsAndCascadeOnDeletion) {
  create_node("a");
  must("POST", "/apis/apps/v1/namespaces/default/replicasets",
       R"({"metadata":{"name":"rs"},"spec":{"replicas":2,
    "selector":{"matchLabels":{"app":"rs"}},"template":{"metadata":{"labels":{"app":"rs"}},"spec":{"containers":[{"name":"c","image":"i:1"}]}}}})");
  auto running = [&](std::size_t want) {
    return eventually(
        "/api/v1/namespaces/default/"
        "pods?labelSelector=app%3Drs&fieldSelector=status.phase%3DRunning",
        [&](const json::value& v) {
          return v.is_object() && v.at("items").as_array().size() == want;
        });
  };
  ASSERT_TRUE(running(2)) << last_.body;
  auto first = str(last_.json().at("items").as_array()[0], {"metadata", "name"});
  must("DELETE", "/api/v1/namespaces/default/pods/" + first + "?gracePeriodSeconds=0");
  ASSERT_TRUE(eventually(
      "/api/v1/namespaces/default/pods?labelSelector=app%3Drs&fieldSelector=status.phase%3DRunning",
      [&](const json::value& v) {
        if (!v.is_object() || v.at("items").as_array().size() != 2) return false;
        for (const auto& p : v.at("items").as_array())
          if (str(p, {"metadata", "name"}) == first) return false;
        return true;
      }))
      << last_.body;
  must("DELETE", "/apis/apps/v1/namespaces/default/replicasets/rs",
       R"({"propagationPolicy":"Background"})");
  EXPECT_TRUE(eventually(
      "/api/v1/namespaces/default/pods?labelSelector=app%3Drs",
      [](const json::value& v) { return v.is_object() && v.at("items").as_array().empty(); }))
      << last_.body;
}

TEST_F(KubeSimOverHttps, FlippingANodeConditionTaintsTheNode) {
  create_node("a");
  must("POST", "/sim/v1/nodes/a/condition", R"({"type":"Ready","status":"False","reason":"Test"})");
  EXPECT_TRUE(eventually("/api/v1/nodes/a", [](const json::value& v) {
    return json::serialize(v).find("node.kubernetes.io/not-ready") != std::string::npos;
  })) << last_.body;
}

class KubeSimNodeLifecycle : public KubeSimOverHttps {
 protected:
  void SetUp() override { start({"--node-monitor-grace", "1"}); }
};

TEST_F(KubeSimNodeLifecycle, NodeWhoseLeaseStopsBecomesUnknownAndItsPodsAreEvicted) {
  create_node("a");
  auto now = format_micro_time(std::chrono::system_clock::now());
  must(
      "POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
      R"({"metadata":{"name":"a"},"spec":{"holderIdentity":"a","leaseDurationSeconds":40,"renewTime":")" +
          now + R"("}})");
  must("POST", "/api/v1/namespaces/default/pods",
       R"({"metadata":{"name":"p"},"spec":{"nodeName":"a",
    "containers":[{"name":"c","image":"i:1"}],"tolerations":[{"key":"node.kubernetes.io/unreachable","operator":"Exists",
    "effect":"NoExecute","tolerationSeconds":1}]}})");
  EXPECT_TRUE(eventually("/api/v1/nodes/a", [](const json::value& v) {
    auto s = json::serialize(v);
    return s.find("\"status\":\"Unknown\"") != std::string::npos &&
           s.find("node.kubernetes.io/unreachable") != std::string::npos;
  })) << last_.body;
  EXPECT_TRUE(eventually("/api/v1/namespaces/default/pods/p", [](const json::value& v) {
    return v.is_object() && has_deletion_timestamp(v.get_object());
  })) << last_.body;
}

}  // namespace
}  // namespace kp::sim::kube::testing
