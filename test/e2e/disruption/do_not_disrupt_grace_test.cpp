// karpenter.sh/do-not-disrupt: "8s" against an expiration (Karpenter v1.14): the expired
// NodeClaim is deleted at once, the drain leaves the protected pod running until eight seconds
// after its status.startTime, then evicts it and the node goes; the pod runs again elsewhere.
#include <boost/json.hpp>
#include <cstdio>
#include <optional>

#include "test/e2e/disruption/disruption_support.hpp"

namespace kp::e2e::disruption {
namespace {

namespace json = boost::json;
using wall = std::chrono::system_clock;

class do_not_disrupt_grace : public disruption_test {
 protected:
  // A string field of a listed object, "" when absent.
  static std::string field(const json::value& v, std::initializer_list<const char*> path) {
    const json::value* at = &v;
    for (const char* key : path) {
      if (!at->is_object()) return {};
      at = at->as_object().if_contains(key);
      if (at == nullptr) return {};
    }
    return at->is_string() ? std::string(at->as_string()) : std::string();
  }

  // "2026-11-26T06:40:12Z" as a wall-clock time (the API server keeps whole seconds).
  static std::optional<wall::time_point> parse_time(const std::string& text) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
    if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%dZ", &y, &mo, &d, &h, &mi, &s) != 6)
      return std::nullopt;
    const std::chrono::sys_days day = std::chrono::year{y} /
                                      std::chrono::month{static_cast<unsigned>(mo)} /
                                      std::chrono::day{static_cast<unsigned>(d)};
    return wall::time_point(day + std::chrono::hours(h) + std::chrono::minutes(mi) +
                            std::chrono::seconds(s));
  }

  // A metadata or status time of the first object of `path` whose name starts with `prefix`.
  std::optional<wall::time_point> time_of(const std::string& path, const std::string& prefix,
                                          std::initializer_list<const char*> field_path) {
    auto items = world->list(path);
    if (!items) return std::nullopt;
    for (const auto& o : *items)
      if (field(o, {"metadata", "name"}).rfind(prefix, 0) == 0)
        return parse_time(field(o, field_path));
    return std::nullopt;
  }

  static bool pod_running_on(const cluster_view& v, const std::string& prefix,
                             const std::string& node) {
    for (const auto& p : v.pods)
      if (p.name.rfind(prefix, 0) == 0 && p.node == node && p.phase == "Running" && !p.terminating)
        return true;
    return false;
  }
};

TEST_F(do_not_disrupt_grace, anEightSecondGracePeriodHoldsTheDrainOfAnExpiredNodeThenLetsItGo) {
  KP_E2E_START(disruption_options());
  constexpr auto expire_after = 40s;
  set_nodepool({.consolidate_after = "Never", .expire_after = "40s"});
  start_controller();
  replica_set({.name = "filler", .replicas = 1, .cpu = "250m"});
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) { return v.running() == 1 && v.nodeclaims.size() == 1; }, 60s))
      << diagnose();
  const auto claim = view().nodeclaims.begin()->first;
  const auto node = view().nodeclaims.begin()->second.node_name;
  const auto created =
      time_of("/apis/karpenter.sh/v1/nodeclaims", claim, {"metadata", "creationTimestamp"});
  ASSERT_TRUE(created.has_value()) << diagnose();
  const auto expires = *created + expire_after;
  // The protected pod starts about two seconds before the NodeClaim expires, so that the
  // expiry falls inside its eight seconds, with room for a loaded machine's lag in seeing it.
  ASSERT_GT(expires - wall::now(), 4s) << "the node took too long to come up" << diagnose();
  ASSERT_TRUE(
      lab::lab_world::eventually([&] { return wall::now() >= expires - 3s; }, expire_after + 5s));
  replica_set({.name = "job",
               .replicas = 1,
               .cpu = "250m",
               .annotations = {{"karpenter.sh/do-not-disrupt", "8s"}}});
  ASSERT_TRUE(wait_for([&](const cluster_view& v) { return pod_running_on(v, "job-", node); }, 10s))
      << diagnose();
  const auto started = time_of("/api/v1/pods", "job-", {"status", "startTime"});
  ASSERT_TRUE(started.has_value()) << diagnose();
  const auto protected_until = *started + 8s;

  // Expiration does not wait for the pod: the NodeClaim is deleted while the pod is protected,
  // and the pod keeps running on the draining node.
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        auto c = v.nodeclaims.find(claim);
        return c == v.nodeclaims.end() || c->second.terminating;
      },
      30s))
      << "NodeClaim " << claim << " did not expire" << diagnose();
  const auto deleted_seen = wall::now();
  ASSERT_LT(deleted_seen, protected_until)
      << "the expiry came after the grace period had run out (pod started "
      << std::chrono::duration_cast<std::chrono::seconds>(started->time_since_epoch()).count()
      << " s after the epoch): the test's timing missed, nothing was shown" << diagnose();
  EXPECT_TRUE(pod_running_on(view(), "job-", node))
      << "the protected pod was evicted at once" << diagnose();

  // Blocked until the grace period ends, then evicted; the node goes and the pod runs again.
  std::optional<wall::time_point> evicted;
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        if (!evicted && !pod_running_on(v, "job-", node)) evicted = wall::now();
        return evicted.has_value();
      },
      30s))
      << "the protected pod was never evicted after its grace period" << diagnose();
  EXPECT_GE(*evicted, protected_until)
      << "evicted "
      << std::chrono::duration_cast<std::chrono::milliseconds>(protected_until - *evicted).count()
      << " ms before its grace period ended";
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        return v.nodeclaims.count(claim) == 0 && v.nodes.count(node) == 0 &&
               running_of(v, "job") == 1 && running_of(v, "filler") == 1;
      },
      90s))
      << "the expired node did not go, or the pods did not run again" << diagnose();
  std::cout
      << "[ measure  ] expiry seen "
      << std::chrono::duration_cast<std::chrono::milliseconds>(protected_until - deleted_seen)
             .count()
      << " ms before the grace period ended; pod evicted "
      << std::chrono::duration_cast<std::chrono::milliseconds>(*evicted - protected_until).count()
      << " ms after it\n";
  bool failed_draining = false;
  for (const auto& e : events())
    failed_draining = failed_draining || (e.reason == "FailedDraining" &&
                                          e.message.find("default/job-") != std::string::npos);
  EXPECT_TRUE(failed_draining) << "no FailedDraining Event named the protected pod";
  EXPECT_EQ(settled_leaks(), "");
}

}  // namespace
}  // namespace kp::e2e::disruption
