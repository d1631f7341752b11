// Every condition reason the controller can write (actors/condition_reasons.hpp, which the
// compiler holds the code to) is accepted by our CRDs, written the way each writer writes it:
// NodeClaim and NodePool status merge patches, node class and template status updates, with an
// empty message (the case upstream's CRDs refuse when message is missing). A condition without a
// reason or a message is refused, so the check is real. Runs kube-sim as a child process; skipped,
// saying why, without it or without kubectl (which applies the CRDs).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <future>

#include "actors/condition_reasons.hpp"
#include "actors/nodepool_status/nodepool_status_plan.hpp"
#include "actors/status_conditions.hpp"
#include "protocol/kube/client.hpp"
#include "protocol/kube/karpenter_v1.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/kube/patches.hpp"
#include "protocol/kube/proxmox_v1alpha1.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "test/sim/kube/kube_sim_process.hpp"

namespace kp::actors {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const char* objects_yaml = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: pool}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, name: default}
      requirements: []
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: claim}
spec:
  nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, name: default}
  requirements: []
---
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: default}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: talos}
---
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxTemplate
metadata: {name: ubuntu}
spec:
  sourceImage:
    url: https://cloud-images.ubuntu.com/noble/current/noble-server-cloudimg-amd64.img
    imageName: noble.qcow2
  storageIDs: [local]
  network: [{name: net0, bridge: vmbr0}]
---
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxUnmanagedTemplate
metadata: {name: talos}
spec:
  templateName: talos
)";

class ConditionReasonsKubeSim : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("KP_BIN_DIR");
    if (bin == nullptr || !fs::exists(std::string(bin) + "/kube-sim")) {
      GTEST_SKIP() << "kube-sim not built in $KP_BIN_DIR; build target kube-sim";
    }
    if (!sim::kube::testing::find_kubectl()) GTEST_SKIP() << "kubectl not installed (CRDs)";
    sim_ = std::make_unique<sim::kube::testing::kube_sim_process>();
    ASSERT_TRUE(sim_->ok()) << sim_->error();
    const std::string src = std::getenv("KP_SOURCE_DIR");
    auto crds = sim_->kubectl({"apply", "-f", src + "/chart/karpenter-proxmox/crds/"});
    ASSERT_EQ(crds.exit_code, 0) << crds.err;
    auto objects = sim_->kubectl({"apply", "-f", "-"}, objects_yaml);
    ASSERT_EQ(objects.exit_code, 0) << objects.err;
    auto cfg = kube::load_kubeconfig(sim_->kubeconfig_path());
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    auto c = kube::client::create(io_.context(), *cfg);
    ASSERT_TRUE(c.ok()) << c.error().message;
    client_ = *c;
  }

  void TearDown() override {
    client_.reset();
    io_.stop();
    sim_.reset();
  }

  template <class T>
  result<T> wait(std::function<void(std::function<void(result<T>)>)> call) {
    auto done = std::make_shared<std::promise<result<T>>>();
    auto f = done->get_future();
    call([done](result<T> r) { done->set_value(std::move(r)); });
    if (f.wait_for(15s) != std::future_status::ready) return kp::make_error("timeout", "no answer");
    return f.get();
  }

  template <class T>
  result<T> get(const std::string& name) {
    return wait<T>([&](auto done) { client_->get<T>({"", name}, done); });
  }

  template <class T>
  result<T> update_status(const T& object) {
    return wait<T>([&](auto done) { client_->update_status<T>(object, done); });
  }

  template <class T>
  result<T> patch_status(const std::string& name, std::string body) {
    return wait<T>([&](auto done) {
      client_->patch<T>({"", name}, kube::patch_type::merge, std::move(body), done, "status");
    });
  }

  // Writes `reason` as the writer of `kind` does; the error when the API server refuses it.
  status write(const std::string& kind, condition_reason reason) {
    const auto now = kube::format_rfc3339(1'700'000'000'000);
    if (kind == "NodeClaim") {
      auto claim = get<kube::node_claim>("claim");
      if (!claim) return claim.error();
      actors::set_condition(claim->status.conditions, "Launched", "False", reason, "", now,
                            claim->metadata.generation);
      auto r = patch_status<kube::node_claim>("claim", kube::node_claim_status_merge_patch(*claim));
      return r ? status{} : status{r.error()};
    }
    if (kind == "NodePool") {
      auto pool = get<kube::node_pool>("pool");
      if (!pool) return pool.error();
      auto desired = pool->status;
      desired.conditions.clear();
      kube::condition c;
      c.type = "Ready";
      c.status = "False";
      c.reason = reason.str();
      c.last_transition_time = now;
      c.observed_generation = pool->metadata.generation;
      desired.conditions.push_back(c);
      auto r = patch_status<kube::node_pool>("pool",
                                             nodepool_status::status_patch(pool->status, desired));
      return r ? status{} : status{r.error()};
    }
    if (kind == "ProxmoxNodeClass")
      return write_by_update<kube::proxmox_node_class>("default", reason, now);
    if (kind == "ProxmoxTemplate")
      return write_by_update<kube::proxmox_template>("ubuntu", reason, now);
    return write_by_update<kube::proxmox_unmanaged_template>("talos", reason, now);
  }

  template <class T>
  status write_by_update(const std::string& name, condition_reason reason, const std::string& now) {
    auto object = get<T>(name);
    if (!object) return object.error();
    actors::set_condition(object->status.conditions, "Ready", "Unknown", reason, "", now,
                          object->metadata.generation);
    auto r = update_status(*object);
    return r ? status{} : status{r.error()};
  }

  transport::io_runtime io_{1};
  std::unique_ptr<sim::kube::testing::kube_sim_process> sim_;
  std::shared_ptr<kube::client> client_;
};

const char* kinds[] = {"NodeClaim", "NodePool", "ProxmoxNodeClass", "ProxmoxTemplate",
                       "ProxmoxUnmanagedTemplate"};

TEST_F(ConditionReasonsKubeSim, EveryReasonTheCodeCanWriteIsAcceptedOnEveryKind) {
  ASSERT_GT(all_condition_reasons.size(), 40u);
  for (const char* kind : kinds) {
    for (const auto& reason : all_condition_reasons) {
      auto s = write(kind, reason);
      EXPECT_TRUE(s.ok()) << kind << " refused reason " << reason.view() << ": "
                          << s.error().message;
    }
  }
}

TEST_F(ConditionReasonsKubeSim, AConditionWithoutAReasonOrAMessageIsRefused) {
  // Hand-made bodies the controller never sends: the CRDs must refuse them, or the test above
  // proves nothing.
  const std::string no_message =
      R"({"status":{"conditions":[{"type":"Ready","status":"True","reason":"Ready",)"
      R"("lastTransitionTime":"2024-01-01T00:00:00Z"}]}})";
  const std::string no_reason =
      R"({"status":{"conditions":[{"type":"Ready","status":"True","message":"",)"
      R"("lastTransitionTime":"2024-01-01T00:00:00Z"}]}})";
  const std::string bad_reason =
      R"({"status":{"conditions":[{"type":"Ready","status":"True","reason":"Not ready",)"
      R"("message":"","lastTransitionTime":"2024-01-01T00:00:00Z"}]}})";
  for (const auto& body : {no_message, no_reason, bad_reason}) {
    auto pool = patch_status<kube::node_pool>("pool", body);
    ASSERT_FALSE(pool.ok()) << body;
    EXPECT_EQ(pool.error().code, "invalid") << pool.error().message;
    auto nc = patch_status<kube::proxmox_node_class>("default", body);
    ASSERT_FALSE(nc.ok()) << body;
    EXPECT_EQ(nc.error().code, "invalid") << nc.error().message;
  }
  // Karpenter's NodeClaim allows an empty reason and no message; so does our CRD.
  EXPECT_TRUE(patch_status<kube::node_claim>("claim", no_message).ok());
}

}  // namespace
}  // namespace kp::actors
