// Booting guests join kube-sim: a VM started with a good cloud-init ISO becomes a Ready Node,
// one with a bad bootstrap token never appears, a stopped one goes NotReady. Runs only when the
// kube-sim binary has been built next to pve-sim (it is skipped otherwise).
#include <gtest/gtest.h>
#include <filesystem>
#include <memory>

#include "core/cloudinit/nocloud_iso.hpp"
#include "core/text/base64.hpp"
#include "pve_sim_test_client.hpp"
#include "sim/pve/guest_join_plan.hpp"
#include "test/sim/kube/kube_sim_process.hpp"
#include "test/support/child_process.hpp"

using namespace kp::sim::pve;
using namespace kp::sim::pve::testing;
namespace json = boost::json;

namespace {

const char* admin_token = "pve-sim-join-test-admin";
const char* token_id = "abcdef";
const char* token_secret = "0123456789abcdef";

std::string user_data(const std::string& server, const std::string& ca_pem,
                      const std::string& token, int vmid) {
  std::string kubeconfig =
      "apiVersion: v1\nkind: Config\nclusters:\n- name: default\n  cluster:\n    server: " +
      server + "\n    certificate-authority-data: " + kp::text::base64_encode(ca_pem) +
      "\ncontexts:\n- name: default\n  context: {cluster: default, user: kubelet-bootstrap}\n"
      "current-context: default\nusers:\n- name: kubelet-bootstrap\n  user:\n    token: " +
      token + "\n";
  std::string kubelet =
      "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nproviderID: "
      "proxmox://pve-sim/" +
      std::to_string(vmid) +
      "\nmaxPods: 58\nregisterWithTaints:\n- {key: karpenter.sh/unregistered, effect: NoExecute}\n"
      "kubeReserved: {cpu: 100m, memory: 256Mi}\n";
  std::string defaults =
      "KUBELET_EXTRA_ARGS=--node-labels=karpenter.sh/nodepool=default,topology.kubernetes.io/"
      "zone=pve1\n";
  return "#cloud-config\nwrite_files:\n"
         "- path: /var/lib/kubelet/bootstrap-kubeconfig\n  encoding: b64\n  content: " +
         kp::text::base64_encode(kubeconfig) +
         "\n- path: /var/lib/kubelet/config.yaml\n  encoding: b64\n  content: " +
         kp::text::base64_encode(kubelet) +
         "\n- path: /etc/default/kubelet\n  encoding: b64\n  content: " +
         kp::text::base64_encode(defaults) + "\n";
}

class PveSimGuestJoin : public ::testing::Test {
 protected:
  void SetUp() override {
    auto bin = kp::test::binary_path("kube-sim");
    if (!std::filesystem::exists(bin)) GTEST_SKIP() << "kube-sim is not built at " << bin;
    kube = std::make_unique<kp::sim::kube::testing::kube_sim_process>(
        std::vector<std::string>{"--admin-token", admin_token, "--node-monitor-grace", "2"});
    ASSERT_TRUE(kube->ok()) << kube->error();
    kp::transport::client_options opts;
    opts.ca_pem = kube->ca_pem();
    kube_client = std::make_unique<kp::transport::http_client>(io.context(), opts);
    // The bootstrap token the controller would create.
    json::object secret{
        {"apiVersion", "v1"},
        {"kind", "Secret"},
        {"metadata", json::object{{"name", std::string("bootstrap-token-") + token_id},
                                  {"namespace", "kube-system"}}},
        {"type", "bootstrap.kubernetes.io/token"},
        {"data", json::object{{"token-id", kp::text::base64_encode(token_id)},
                              {"token-secret", kp::text::base64_encode(token_secret)},
                              {"usage-bootstrap-authentication", kp::text::base64_encode("true")},
                              {"usage-bootstrap-signing", kp::text::base64_encode("true")}}}};
    auto r = kube_call("POST", "/api/v1/namespaces/kube-system/secrets", json::serialize(secret));
    ASSERT_EQ(r.status, 201) << r.body;
  }

  kp::transport::http_response kube_call(const std::string& method, const std::string& target,
                                         std::string body = "") {
    kp::transport::http_request req;
    req.method = method;
    req.target = target;
    req.headers = {{"Authorization", std::string("Bearer ") + admin_token},
                   {"Accept", "application/json"}};
    if (!body.empty()) req.headers.emplace_back("Content-Type", "application/json");
    req.body = std::move(body);
    auto promise = std::make_shared<std::promise<kp::transport::response_result>>();
    auto future = promise->get_future();
    kube_client->send(kube->url(), std::move(req), [promise](kp::transport::response_result r) {
      promise->set_value(std::move(r));
    });
    auto r = future.get();
    if (!r) return kp::transport::http_response{.status = -1, .body = r.error().message};
    return *r;
  }

  std::string node_ready(const std::string& name) {
    auto r = kube_call("GET", "/api/v1/nodes/" + name);
    if (r.status != 200) return "absent";
    auto node = json::parse(r.body);
    // A Node is created first and gets its status (conditions) in a later write.
    const auto* status = node.as_object().if_contains("status");
    const auto* conditions = status ? status->as_object().if_contains("conditions") : nullptr;
    if (conditions == nullptr) return "none";
    for (const auto& c : conditions->as_array())
      if (c.at("type").as_string() == "Ready") return std::string(c.at("status").as_string());
    return "none";
  }

  bool wait_for(const std::function<bool()>& done, std::chrono::seconds deadline) {
    auto until = std::chrono::steady_clock::now() + deadline;
    while (std::chrono::steady_clock::now() < until) {
      if (done()) return true;
      std::this_thread::sleep_for(
          std::chrono::milliseconds(50));  // poll interval, bounded by the deadline
    }
    return done();
  }

  // Uploads a NoCloud ISO with `token`, clones the pve1 template to `vmid` with it as CD-ROM,
  // and starts it.
  void launch(int vmid, const std::string& name, const std::string& token) {
    kp::cloudinit::nocloud_files files;
    files.user_data = user_data(kube->url(), kube->ca_pem(), token, vmid);
    files.meta_data = "instance-id: " + name + "\nlocal-hostname: " + name + "\n";
    auto iso = kp::cloudinit::write_nocloud_iso(files);
    ASSERT_TRUE(iso.ok()) << iso.error().message;
    std::string boundary = "----joinboundary";
    kp::transport::http_request req;
    req.method = "POST";
    req.target = "/api2/json/nodes/pve1/storage/local/upload";
    req.headers = {{"Authorization", token_header},
                   {"Content-Type", "multipart/form-data; boundary=" + boundary}};
    std::string file = "user-data-" + std::to_string(vmid) + ".iso";
    req.body = "--" + boundary +
               "\r\nContent-Disposition: form-data; name=\"content\"\r\n\r\niso\r\n--" + boundary +
               "\r\nContent-Disposition: form-data; name=\"filename\"; filename=\"" + file +
               "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + *iso + "\r\n--" + boundary +
               "--\r\n";
    auto up = sim.raw(req);
    ASSERT_EQ(up.status, 200) << up.body;
    ASSERT_EQ(sim.wait_task(std::string(up.data().as_string())).at("exitstatus").as_string(), "OK");
    ASSERT_EQ(sim.run_task("POST", "/nodes/pve1/qemu/9001/clone",
                           {{"newid", std::to_string(vmid)}, {"name", name}}),
              "OK");
    ASSERT_EQ(
        sim.run_task(
            "POST", "/nodes/pve1/qemu/" + std::to_string(vmid) + "/config",
            {{"cores", "2"}, {"memory", "4096"}, {"ide2", "local:iso/" + file + ",media=cdrom"}}),
        "OK");
    ASSERT_EQ(sim.run_task("POST", "/nodes/pve1/qemu/" + std::to_string(vmid) + "/status/start"),
              "OK");
  }

  sim_fixture sim;
  std::unique_ptr<kp::sim::kube::testing::kube_sim_process> kube;
  kp::transport::io_runtime io{1};
  std::unique_ptr<kp::transport::http_client> kube_client;
};

}  // namespace

TEST_F(PveSimGuestJoin, AVmWithAGoodCloudInitIsoBecomesAReadyNodeAndGoesNotReadyWhenStopped) {
  auto t0 = std::chrono::steady_clock::now();
  launch(120, "join-node-a", std::string(token_id) + "." + token_secret);
  ASSERT_TRUE(
      wait_for([&] { return node_ready("join-node-a") == "True"; }, std::chrono::seconds(30)))
      << sim.sim("GET", "/sim/v1/guests").body;
  std::cout << "[pve-sim] upload+clone+config+start+boot+join to Ready: "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - t0)
                   .count()
            << " ms\n";
  auto node = json::parse(kube_call("GET", "/api/v1/nodes/join-node-a").body);
  EXPECT_EQ(node.at("spec").at("providerID").as_string(), "proxmox://pve-sim/120");
  EXPECT_EQ(node.at("metadata").at("labels").at("karpenter.sh/nodepool").as_string(), "default");
  EXPECT_EQ(node.at("spec").at("taints").at(0).at("key").as_string(), "karpenter.sh/unregistered");
  EXPECT_EQ(node.at("status").at("capacity").at("cpu").as_string(), "2");
  EXPECT_EQ(node.at("status").at("capacity").at("memory").as_string(), "4194304Ki");
  EXPECT_EQ(node.at("status").at("capacity").at("pods").as_string(), "58");
  EXPECT_EQ(
      kube_call("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/join-node-a")
          .status,
      200);

  ASSERT_EQ(sim.run_task("POST", "/nodes/pve1/qemu/120/status/stop"), "OK");
  EXPECT_TRUE(
      wait_for([&] { return node_ready("join-node-a") == "Unknown"; }, std::chrono::seconds(30)));
}

TEST_F(PveSimGuestJoin, AVmWithABadBootstrapTokenNeverAppears) {
  launch(121, "join-node-bad", std::string(token_id) + ".ffffffffffffffff");
  bool failed = wait_for(
      [&] {
        auto r = sim.sim("GET", "/sim/v1/guests");
        for (const auto& g : r.json.as_array())
          if (g.at("vmid").as_int64() == 121 && g.at("phase").as_string() == "failed") return true;
        return false;
      },
      std::chrono::seconds(30));
  EXPECT_TRUE(failed) << sim.sim("GET", "/sim/v1/guests").body;
  EXPECT_EQ(node_ready("join-node-bad"), "absent");
}

TEST_F(PveSimGuestJoin, AGuestAgentExecOfTheJoinCommandJoinsARunningVm) {
  ASSERT_EQ(sim.run_task("POST", "/nodes/pve1/qemu/9001/clone",
                         {{"newid", "122"}, {"name", "join-node-exec"}}),
            "OK");
  ASSERT_EQ(sim.run_task("POST", "/nodes/pve1/qemu/122/status/start"), "OK");
  ASSERT_TRUE(
      wait_for([&] { return sim.api("POST", "/nodes/pve1/qemu/122/agent/ping").status == 200; },
               std::chrono::seconds(20)));
  std::string command = "kube-join server=" + kube->url() + " token=" + token_id + "." +
                        token_secret + " ca=" + kp::text::base64_encode(kube->ca_pem()) +
                        " labels=kproximate=yes";
  auto exec = sim.api("POST", "/nodes/pve1/qemu/122/agent/exec",
                      {{"command", "bash"}, {"command", "-c"}, {"command", command}});
  ASSERT_EQ(exec.status, 200) << exec.body;
  auto pid = exec.data().at("pid").as_int64();
  auto status =
      sim.api("GET", "/nodes/pve1/qemu/122/agent/exec-status", {{"pid", std::to_string(pid)}});
  EXPECT_EQ(status.data().at("exited").as_int64(), 1);
  EXPECT_EQ(status.data().at("exitcode").as_int64(), 0);
  ASSERT_TRUE(
      wait_for([&] { return node_ready("join-node-exec") == "True"; }, std::chrono::seconds(30)))
      << sim.sim("GET", "/sim/v1/guests").body;
  auto node = json::parse(kube_call("GET", "/api/v1/nodes/join-node-exec").body);
  EXPECT_EQ(node.at("metadata").at("labels").at("kproximate").as_string(), "yes");
  EXPECT_EQ(node.at("spec").at("providerID").as_string(), "proxmox://pve-sim/122");
}

TEST_F(PveSimGuestJoin, ATemplateWithABakedInJoinJoinsOnBootWithoutACdrom) {
  ASSERT_EQ(sim.run_task("POST", "/nodes/pve1/qemu/9001/clone",
                         {{"newid", "123"}, {"name", "join-node-baked"}}),
            "OK");
  std::string join = "kube-join server=" + kube->url() + " token=" + token_id + "." + token_secret +
                     " ca=" + kp::text::base64_encode(kube->ca_pem());
  ASSERT_EQ(
      sim.api("PUT", "/nodes/pve1/qemu/123/config", {{"description", "baked template\n" + join}})
          .status,
      200);
  ASSERT_EQ(sim.run_task("POST", "/nodes/pve1/qemu/123/status/start"), "OK");
  EXPECT_TRUE(
      wait_for([&] { return node_ready("join-node-baked") == "True"; }, std::chrono::seconds(30)))
      << sim.sim("GET", "/sim/v1/guests").body;
}

TEST_F(PveSimGuestJoin, AGuestWithAMappedGpuAdvertisesTheMappingsResourceOnItsNode) {
  ASSERT_EQ(sim.run_task("POST", "/nodes/pve2/qemu/9002/clone",
                         {{"newid", "124"}, {"name", "join-node-gpu"}}),
            "OK");
  std::string join = "kube-join server=" + kube->url() + " token=" + token_id + "." + token_secret +
                     " ca=" + kp::text::base64_encode(kube->ca_pem());
  ASSERT_EQ(sim.api("PUT", "/nodes/pve2/qemu/124/config",
                    {{"description", "gpu node\n" + join}, {"hostpci0", "mapping=gpu"}})
                .status,
            200);
  ASSERT_EQ(sim.run_task("POST", "/nodes/pve2/qemu/124/status/start"), "OK");
  ASSERT_TRUE(
      wait_for([&] { return node_ready("join-node-gpu") == "True"; }, std::chrono::seconds(30)))
      << sim.sim("GET", "/sim/v1/guests").body;
  auto node = json::parse(kube_call("GET", "/api/v1/nodes/join-node-gpu").body);
  EXPECT_EQ(node.at("status").at("capacity").at("nvidia.com/gpu").as_string(), "1");
  EXPECT_EQ(node.at("status").at("allocatable").at("nvidia.com/gpu").as_string(), "1");
}
