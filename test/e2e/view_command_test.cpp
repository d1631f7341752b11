// `karpenter-proxmox view --once`: against the simulators after the controller made a node for
// three pods (and stopped), the frame shows every Proxmox host with each of its NUMA nodes, the
// node's VM with its pods, and the pod left pending, as plain text off a terminal, while neither
// simulator sees a single write. Bad usage is one line on stderr with exit code 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

class view_command : public e2e_test {
 protected:
  std::string command() {
    std::string c = controller_binary();
    for (const auto& [k, v] : world->controller_settings()) c += " '--" + k + "=" + v + "'";
    return c + " view --once";
  }
};

TEST_F(view_command, showsEveryHostWithItsNumaNodesTheNodeVmAndItsPodsWithoutAWrite) {
  KP_E2E_START();
  start_controller();
  scale("web", 3);
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) {
        return v.running() == 3 && !v.nodes.empty() && v.nodes.begin()->second.ready;
      },
      60s))
      << diagnose();
  // Every NodeClaim Initialized (the controller writes it just after the Node is Ready), so
  // none is in flight once the controller stops.
  ASSERT_TRUE(lab::lab_world::eventually(
      [&] {
        auto claims = world->list("/apis/karpenter.sh/v1/nodeclaims");
        if (!claims || claims->empty()) return false;
        for (const auto& c : *claims) {
          bool initialized = false;
          const auto* status = c.as_object().if_contains("status");
          const auto* conditions = status != nullptr && status->is_object()
                                       ? status->as_object().if_contains("conditions")
                                       : nullptr;
          if (conditions != nullptr && conditions->is_array())
            for (const auto& k : conditions->as_array())
              initialized = initialized || (k.at("type").as_string() == "Initialized" &&
                                            k.at("status").as_string() == "True");
          if (!initialized) return false;
        }
        return true;
      },
      30s))
      << diagnose();
  world->stop_controller(0);
  scale("huge", 1, "200", "1Gi");  // more than any host has: it stays pending
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) {
        for (const auto& p : v.pods)
          if (p.name.rfind("huge-", 0) == 0) return true;
        return false;
      },
      10s))
      << diagnose();
  const auto cluster = view();
  ASSERT_EQ(cluster.nodes.size(), 1u) << cluster.text();
  const auto node = cluster.nodes.begin()->second;

  const long kube_writes = kube_requests_by_method(false),
             pve_writes = pve_requests_by_method(false);
  const long pve_reads = pve_requests_by_method(true);
  ASSERT_GE(kube_writes, 0);
  ASSERT_GE(pve_writes, 0);
  auto r = run_command(command(), world->work_dir() + "/view.err");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "no colour off a terminal:\n" << r.out;

  // Every host pve-sim has, each followed by a line per NUMA node it has.
  auto hosts = world->pve().call("GET", "/sim/v1/hosts");
  ASSERT_TRUE(hosts.ok() && hosts->ok());
  const auto listed = hosts->json();  // kept: the loop reads into it
  ASSERT_FALSE(listed.as_array().empty());
  const auto lines = lines_of(r.out);
  for (const auto& h : listed.as_array()) {
    const std::string name(h.at("node").as_string());
    const std::string heading = world->options().region + "/" + name + "  online  CPU [";
    auto at = std::find_if(lines.begin(), lines.end(),
                           [&](const std::string& l) { return l.rfind(heading, 0) == 0; });
    ASSERT_NE(at, lines.end()) << "no line for host " << name << ":\n" << r.out;
    std::vector<std::string> numa_seen;
    for (auto l = at + 1; l != lines.end() && l->rfind("  NUMA ", 0) == 0; ++l)
      numa_seen.push_back(l->substr(7, l->find(' ', 7) - 7));
    std::vector<std::string> numa_expected;
    for (const auto& n : h.at("numa").as_array())
      numa_expected.push_back(std::to_string(n.at("id").to_number<int>()));
    EXPECT_EQ(numa_seen, numa_expected) << name << ":\n" << r.out;
    for (const auto& l : std::vector<std::string>(at + 1, at + 1 + numa_seen.size())) {
      EXPECT_NE(l.find("CPU ["), std::string::npos) << l;
      EXPECT_NE(l.find("memory ["), std::string::npos) << l;
    }
  }

  // The node's VM, with its instance type, price and every pod that runs there.
  const auto vm_line = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) {
    return l.rfind("    VM ", 0) == 0 && l.find(" " + node.name + "  ") != std::string::npos;
  });
  ASSERT_NE(vm_line, lines.end()) << r.out;
  EXPECT_NE(vm_line->find("/h"), std::string::npos) << *vm_line;
  EXPECT_NE(vm_line->find("Ready"), std::string::npos) << *vm_line;
  for (const auto& p : cluster.pods) {
    if (p.node != node.name || p.ns != "default" || p.name.rfind("web", 0) != 0) continue;
    EXPECT_NE(r.out.find("default/" + p.name), std::string::npos) << p.name << ":\n" << r.out;
  }
  EXPECT_NE(r.out.find("Pending pods: 1\n  default/huge-"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NodeClaims in flight: 0\n"), std::string::npos) << r.out;

  // It read Proxmox, and wrote nothing anywhere.
  EXPECT_GT(pve_requests_by_method(true), pve_reads);
  EXPECT_EQ(kube_requests_by_method(false), kube_writes);
  EXPECT_EQ(pve_requests_by_method(false), pve_writes);
}

TEST(ViewCommand, badUsageIsOneLineOnStderrAndExitsTwo) {
  if (access(controller_binary().c_str(), X_OK) != 0)
    GTEST_SKIP() << controller_binary() << " is not built";
  char dir[] = "/tmp/kp-view-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string err = std::string(dir) + "/err";
  auto zero = run_command(controller_binary() + " view --interval 0", err);
  EXPECT_EQ(zero.code, 2);
  EXPECT_EQ(zero.out, "");
  EXPECT_EQ(zero.err.find('\n'), zero.err.size() - 1) << zero.err;
  EXPECT_NE(zero.err.find("--interval \"0\""), std::string::npos) << zero.err;
  auto unknown = run_command(controller_binary() + " view --frobnicate", err);
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("unknown argument \"--frobnicate\""), std::string::npos)
      << unknown.err;
  auto help = run_command(controller_binary() + " view --help", err);
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--once"), std::string::npos) << help.out;
  std::remove(err.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace kp::e2e
