// kproximate's join through the QEMU guest agent, in the region actor against pve-sim: after the
// start the actor pings the agent, runs the rendered command with agent/exec as `bash -c` and
// waits for its exit code; no ISO is uploaded, SSH keys reach Proxmox's `sshkeys`, and a
// failing command or an agent that never answers fails the launch and leaves no VM.
#include "test/actors/region/region_sim_fixture.hpp"

namespace kp::actors::region {
namespace {

using namespace kp::actors::region::sim_fixture;
using namespace std::chrono_literals;
using namespace kp::protocol;

std::int64_t count(const std::map<std::string, std::int64_t>& s, const std::string& key) {
  auto it = s.find(key);
  return it == s.end() ? 0 : it->second;
}

constexpr const char* ping = "POST /nodes/{node}/qemu/{vmid}/agent/ping";
constexpr const char* exec = "POST /nodes/{node}/qemu/{vmid}/agent/exec";
constexpr const char* exec_status = "GET /nodes/{node}/qemu/{vmid}/agent/exec-status";
constexpr const char* upload = "POST /nodes/{node}/storage/{storage}/upload";

class RegionAgentJoin : public RegionActorSim {
 protected:
  static cloudinit::join_plan join_plan(std::string command) {
    cloudinit::join_plan p;
    p.node_class = "kproximate";
    p.command_template = std::move(command);
    return p;
  }
  static region_settings agent_settings() {
    auto s = settings();
    proxmox::task_wait_options w;
    w.initial_interval = 20ms;
    w.max_interval = 200ms;
    w.timeout = 2s;
    s.agent_wait = w;
    return s;
  }
};

TEST_F(RegionAgentJoin, AJoinCommandRunsThroughTheGuestAgentAfterTheStartWithoutAnIso) {
  auto a = spawn_with(agent_settings());
  ASSERT_TRUE(inventory(a).refreshed);
  auto req = request("kp-agent", false);
  req.agent_join = join_plan("echo joined {{ .TargetHost }} {{ .VMID }}");
  req.ssh_keys = {"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG me@laptop",
                  "ssh-rsa AAAAB3NzaC1yc2E= ops key"};
  ASSERT_EQ(sim_call("DELETE", "/sim/v1/stats")->status, 200);
  auto r = launch(a, req);
  ASSERT_TRUE(r.ok) << r.error.code << ": " << r.error.message;
  EXPECT_TRUE(r.joined_by_agent);
  auto s = stats();
  EXPECT_GE(count(s, ping), 1);
  EXPECT_EQ(count(s, exec), 1);
  EXPECT_GE(count(s, exec_status), 1);
  EXPECT_EQ(count(s, upload), 0) << "a guest-agent join needs no cloud-init ISO";
  EXPECT_EQ(r.agent_requests, count(s, ping) + count(s, exec) + count(s, exec_status));
  auto config = config_of(r.zone, r.vmid);
  ASSERT_TRUE(config.sshkeys.has_value());
  EXPECT_EQ(*config.sshkeys,
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG me@laptop\nssh-rsa AAAAB3NzaC1yc2E= ops key");
  EXPECT_EQ(config.drives.count("ide2"), 0u);
}

TEST_F(RegionAgentJoin, AJoinCommandThatExitsNonZeroFailsTheLaunchAndRemovesTheVm) {
  auto a = spawn_with(agent_settings());
  ASSERT_TRUE(inventory(a).refreshed);
  auto req = request("kp-badjoin", false);
  // pve-sim's guest refuses a kube-join without server= and token= with exit code 2.
  req.agent_join = join_plan("kube-join labels=a=b");
  auto r = launch(a, req);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, "join_failed");
  EXPECT_NE(r.error.message.find("exited with code 2"), std::string::npos) << r.error.message;
  EXPECT_NE(r.error.message.find("server= and token="), std::string::npos) << r.error.message;
  for (const auto& vm : vms()) EXPECT_NE(vm.name, "kp-badjoin");
  EXPECT_TRUE(owned(a).empty());
}

TEST_F(RegionAgentJoin, AGuestAgentThatNeverAnswersFailsTheLaunchAfterTheWaitAndLeavesNoVm) {
  auto a = spawn_with(agent_settings());
  ASSERT_TRUE(inventory(a).refreshed);
  auto f = sim_call("PUT", "/sim/v1/faults",
                    R"({"errors":[{"path":"/nodes/{node}/qemu/{vmid}/agent/ping","method":"POST",)"
                    R"("rate":1.0,"status":500,"message":"QEMU guest agent is not running"}]})");
  ASSERT_TRUE(f.ok() && f->status == 200);
  ASSERT_EQ(sim_call("DELETE", "/sim/v1/stats")->status, 200);
  auto req = request("kp-silent", false);
  req.agent_join = join_plan("kube-join server=https://x token={{ .Kubernetes.BootstrapToken }}");
  req.agent_join->bootstrap_token = "secret.value";
  auto started = std::chrono::steady_clock::now();
  auto r = launch(a, req);
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, "join_failed");
  EXPECT_NE(r.error.message.find("did not answer within 2s"), std::string::npos) << r.error.message;
  EXPECT_NE(r.error.message.find("QEMU guest agent is not running"), std::string::npos)
      << r.error.message;
  EXPECT_EQ(r.error.message.find("secret.value"), std::string::npos);
  EXPECT_GE(took, 2s);
  auto s = stats();
  EXPECT_GE(count(s, ping), 3) << "the ping is retried at the poll interval";
  EXPECT_EQ(count(s, exec), 0);
  for (const auto& vm : vms()) EXPECT_NE(vm.name, "kp-silent");
  EXPECT_TRUE(owned(a).empty());
}

TEST_F(RegionAgentJoin, ARenderErrorOfTheJoinCommandIsATemplateErrorAndLeavesNoVm) {
  auto a = spawn_with(agent_settings());
  ASSERT_TRUE(inventory(a).refreshed);
  auto req = request("kp-render", false);
  req.agent_join = join_plan("{{ .Nope");
  auto r = launch(a, req);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, "template_error");
  for (const auto& vm : vms()) EXPECT_NE(vm.name, "kp-render");
}

}  // namespace
}  // namespace kp::actors::region
