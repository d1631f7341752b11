#pragma once
// The fixture of the region actor's virtual-time tests: the actor over the in-memory Proxmox
// (fake_proxmox.hpp) on CAF's test coordinator, settings with short task waits, requests from a
// small actor and their replies awaited in virtual time. Header-only, for the test files beside
// it.
#include <gtest/gtest.h>

#include <prometheus/registry.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actors/region/region_actor.hpp"
#include "test/actors/caf_test_fixture.hpp"
#include "test/actors/launch_requests.hpp"
#include "test/actors/region/fake_proxmox.hpp"

namespace kp::actors::region {

class region_actor_fixture : public kp::test::caf_test {
 public:
  static constexpr const char* cluster = "test-cluster";

 protected:
  // Proxmox with hosts pve1..pve`hosts`; its tasks run on the actor clock.
  explicit region_actor_fixture(int hosts = 2)
      : pve(std::make_shared<kp::test::fake_proxmox>(hosts)) {
    pve->clock = [this] { return sched().clock().now(); };
  }

  void TearDown() override {
    for (auto& a : spawned) caf::anon_send_exit(a, caf::exit_reason::kill);
    sched().run();
  }

  region_settings settings() {
    using namespace std::chrono_literals;
    region_settings s;
    s.region = "r1";
    s.cluster_name = cluster;
    s.refresh_interval = 10min;
    s.clone_wait.initial_interval = 100ms;
    s.clone_wait.max_interval = 1s;
    s.clone_wait.timeout = 10s;
    s.start_wait = s.clone_wait;
    // Every look reads at once, so tests see each poll at its exact time (RegionTaskRounds
    // sets a gather window).
    s.task_list_gather = 0ms;
    s.leftover_iso_every = 0;
    s.claims_wait = 30s;
    s.metrics = &registry;
    return s;
  }

  // With `claims_known`, the NodeClaims' VMIDs arrive at once (none), so launches may allocate.
  protocol::region_actor spawn(region_settings s, bool claims_known = true) {
    auto a = spawn_region_actor(sys(), pve, s);
    spawned.push_back(caf::actor_cast<caf::actor>(a));
    if (claims_known) caf::anon_send(a, protocol::claimed_vmids{});
    sched().run();
    return a;
  }
  protocol::region_actor spawn() { return spawn(settings()); }

  // No timed refresh within a test (every listing counted is one the test caused) and task
  // waits of a minute.
  region_settings quiet_settings() {
    using namespace std::chrono_literals;
    auto s = settings();
    s.refresh_interval = 1h;
    s.clone_wait.timeout = 1min;
    s.start_wait = s.clone_wait;
    return s;
  }

  // Sends a request from a small actor and keeps the reply.
  template <class Reply, class... Ts>
  std::shared_ptr<std::optional<Reply>> ask(protocol::region_actor a, Ts... xs) {
    auto out = std::make_shared<std::optional<Reply>>();
    spawned.push_back(sys().spawn([=](caf::event_based_actor* self) {
      self->request(a, std::chrono::seconds(3600), xs...).then([=](Reply& r) { *out = r; });
    }));
    return out;
  }

  // Runs until `reply` arrives, advancing virtual time in steps of 100 ms up to `limit`.
  template <class Reply>
  Reply await(const std::shared_ptr<std::optional<Reply>>& reply,
              caf::timespan limit = std::chrono::minutes(2)) {
    using namespace std::chrono_literals;
    sched().run();
    for (caf::timespan t{0}; !*reply && t < limit; t += 100ms) {
      sched().advance_time(100ms);
      sched().run();
    }
    EXPECT_TRUE(reply->has_value()) << "no reply within " << limit.count() / 1'000'000 << " ms";
    return reply->value_or(Reply{});
  }

  // ask() and await() in one.
  template <class Reply, class... Ts>
  Reply call(protocol::region_actor a, Ts... xs) {
    return await(ask<Reply>(a, std::move(xs)...));
  }

  // A launch of instance type c2-m4 from `k8s-template` with a NoCloud plan (a CD-ROM upload).
  protocol::launch_request request(const std::string& name) {
    auto r = kp::test::c2_m4_launch(name, 4096);
    r.cloud_init = kp::test::nocloud_join(name, "https://10.0.0.1:6443");
    return r;
  }

  protocol::launch_reply launch(protocol::region_actor a, protocol::launch_request r) {
    return call<protocol::launch_reply>(a, protocol::launch_atom::value, std::move(r));
  }

  std::shared_ptr<kp::test::fake_proxmox> pve;
  prometheus::Registry registry;
  std::vector<caf::actor> spawned;  // stopped at the end, so the system can shut down
};

}  // namespace kp::actors::region
