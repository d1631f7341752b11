#pragma once
// Test support for the termination and garbage-collection integration tests: kube-sim (with the
// chart's CRDs) and pve-sim as real processes, the project's Kubernetes and Proxmox clients on
// one io thread, real region actors on CAF's normal scheduler, and blocking helpers. Snapshots
// are built here by listing kube-sim (cluster_state is not used), then sent to the actor under
// test. Waits are bounded polls, never bare sleeps.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <prometheus/registry.h>
#include <caf/all.hpp>

#include "actors/controller_context.hpp"
#include "protocol/cluster_snapshot.hpp"
#include "protocol/kube/client.hpp"
#include "protocol/proxmox/client.hpp"
#include "protocol/region_messages.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "test/sim/kube/kube_sim_process.hpp"
#include "test/support/await_completion.hpp"
#include "test/support/pve_sim_process.hpp"

namespace kp::test {

// Runs `start(callback)` and waits (bounded) for the callback's value.
template <class T, class Start>
result<T> await_result(Start start, std::chrono::seconds limit = std::chrono::seconds(30)) {
  return test_support::await_completion<T>(std::move(start), limit);
}

class sim_world : public ::testing::Test {
 protected:
  static constexpr const char* region_name = "pve-sim";
  static constexpr const char* cluster_name = "test-cluster";

  void SetUp() override;
  void TearDown() override;

  // --- Kubernetes
  kube::client& kube() { return *kube_; }
  template <class T>
  result<T> create(const T& object) {
    return await_result<T>([&](auto cb) { kube_->create<T>(object, cb); });
  }
  template <class T>
  result<T> get(const std::string& ns, const std::string& name) {
    return await_result<T>([&](auto cb) { kube_->get<T>({ns, name}, cb); });
  }
  template <class T>
  result<T> patch(const std::string& ns, const std::string& name, kube::patch_type type,
                  const std::string& body, const std::string& subresource = "") {
    return await_result<T>([&](auto cb) {
      kube_->patch<T>({ns, name}, type, body, cb, subresource);
    });
  }
  template <class T>
  status remove(const std::string& ns, const std::string& name) {
    auto r = await_result<bool>([&](auto cb) {
      kube_->remove<T>({ns, name}, {}, [cb](status s) {
        if (!s) return cb(s.error());
        cb(true);
      });
    });
    if (!r) return r.error();
    return {};
  }
  template <class T>
  bool exists(const std::string& ns, const std::string& name) {
    auto r = get<T>(ns, name);
    if (!r) {
      EXPECT_EQ(r.error().code, "not_found") << r.error().message;
    }
    return r.ok();
  }
  // POST /sim/v1/... (kube-sim's test controls).
  status sim_control(const std::string& path, const std::string& body);

  // Every kind the actors read, listed now, as a synced snapshot.
  protocol::snapshot_ptr snapshot();

  // A Node (Ready, our finalizer, nodepool label) and a launched NodeClaim pointing at it.
  void make_node(const std::string& name, const std::string& provider_id);
  void make_claim(const std::string& name, const std::string& provider_id,
                  const std::string& node_name, const std::string& termination_grace = "");
  void make_pod(const std::string& name, const std::string& node, const std::string& app,
                bool tolerate_disrupted = false);

  // --- Proxmox
  protocol::region_actor region() { return region_; }
  // Regions of different clusters on one Proxmox get disjoint VMID ranges.
  protocol::region_actor spawn_region(const std::string& cluster, std::uint32_t first_vmid = 20000);
  protocol::launch_reply launch(protocol::region_actor a, const std::string& nodeclaim,
                                const std::string& cluster = cluster_name);
  std::vector<protocol::owned_vm> owned(protocol::region_actor a);
  bool vm_exists(std::uint32_t vmid);
  // A VM made behind the actors' back (the Go provider, a person).
  void clone_directly(std::uint32_t vmid, const std::string& name, const std::string& description);

  // --- the actor under test
  actors::controller_context context();
  caf::actor_system& sys() { return *sys_; }
  // Stops the actor at tear-down (before the clients and the io thread go).
  template <class Handle>
  Handle track(Handle h) {
    actors_.push_back(caf::actor_cast<caf::actor>(h));
    return h;
  }
  // Events the actors recorded so far (through ctx.events).
  std::vector<protocol::event_record> events();
  bool has_event(const std::string& kind, const std::string& name, const std::string& reason);
  // Sum of a metric family's samples whose labels include `labels`.
  double metric(const std::string& family, const std::map<std::string, std::string>& labels = {});

  // Polls `done` (after `each`, if given) until it holds or the deadline passes.
  bool eventually(const std::function<bool()>& done, std::chrono::seconds limit,
                  const std::function<void()>& each = {});

  std::atomic<std::int64_t> clock_offset_ms{0};  // added to the wall clock the actors see

 private:
  std::unique_ptr<sim::kube::testing::kube_sim_process> kube_sim_;
  pve_sim_process pve_sim_;
  std::unique_ptr<transport::io_runtime> io_;
  std::shared_ptr<kube::client> kube_;
  std::shared_ptr<proxmox::client> proxmox_;
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> sys_;
  protocol::region_actor region_;
  std::vector<caf::actor> actors_;
  struct event_log {
    std::mutex m;
    std::vector<protocol::event_record> records;
  };
  std::shared_ptr<event_log> events_ = std::make_shared<event_log>();
  protocol::event_recorder_actor event_sink_;
  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<obs::karpenter_metrics> metrics_;
};

}  // namespace kp::test
