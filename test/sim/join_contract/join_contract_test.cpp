// The controller's built-in cloud-init and the simulated guest agree: a guest reading the
// default user-data finds the API server, CA, token, providerID, taints, labels and reserved
// resources the controller put there; any other user-data does not join.
#include <gtest/gtest.h>

#include "core/cloudinit/render_cloud_init.hpp"
#include "sim/pve/guest_join_plan.hpp"

namespace kp {
namespace {

cloudinit::cloud_init_inputs inputs() {
  cloudinit::cloud_init_inputs in;
  in.hostname = "default-x7k2p";
  in.instance_id = "20005";
  in.instance_type = "t1.2VCPU-6GB";
  in.provider_id = "proxmox://region-1/20005";
  in.region = "region-1";
  in.zone = "pve1";
  in.root_ca_pem = "-----BEGIN CERTIFICATE-----\nMIIBsim\n-----END CERTIFICATE-----\n";
  in.bootstrap_token = "k3x9qa.0123456789abcdef";
  in.endpoint = "https://127.0.0.1:40123";
  in.kubelet.provider_id = in.provider_id;
  in.kubelet.max_pods = 64;
  in.kubelet.kube_reserved = {{"cpu", "70m"}, {"memory", "384Mi"}};
  in.kubelet.system_reserved = {{"cpu", "10m"}, {"memory", "64Mi"}};
  in.kubelet.eviction_hard = {{"memory.available", "100Mi"}};
  in.kubelet.register_with_taints = {{"karpenter.sh/unregistered", "", "NoExecute"}};
  in.node_labels = {{"karpenter.sh/nodepool", "default"}, {"topology.kubernetes.io/zone", "pve1"}};
  return in;
}

TEST(JoinContract, AGuestJoinsFromTheDefaultUserDataWithEverythingTheControllerSet) {
  auto files = cloudinit::render_cloud_init({}, inputs());
  ASSERT_TRUE(files.ok()) << files.error().message;
  auto plan = sim::pve::join_plan_from_user_data(files->user_data);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->server, "https://127.0.0.1:40123");
  EXPECT_EQ(plan->token, "k3x9qa.0123456789abcdef");
  EXPECT_EQ(plan->ca_pem, inputs().root_ca_pem);
  EXPECT_EQ(plan->provider_id, "proxmox://region-1/20005");
  EXPECT_EQ(plan->max_pods, 64);
  ASSERT_EQ(plan->taints.size(), 1u);
  EXPECT_EQ(plan->taints[0].key, "karpenter.sh/unregistered");
  EXPECT_EQ(plan->taints[0].effect, "NoExecute");
  EXPECT_EQ(plan->labels.at("karpenter.sh/nodepool"), "default");
  EXPECT_EQ(plan->labels.at("topology.kubernetes.io/zone"), "pve1");
  EXPECT_EQ(plan->reserved_cpu_millis, 80);
  EXPECT_EQ(plan->reserved_memory_bytes, std::int64_t{(384 + 64 + 100)} << 20);
}

TEST(JoinContract, UserDataWithoutTheKubeletFilesNeverJoins) {
  cloudinit::template_sources custom{"Secret ns/t",
                                     {{"user-data", "#cloud-config\nhostname: x\n"}}};
  auto files = cloudinit::render_cloud_init(custom, inputs());
  ASSERT_TRUE(files.ok());
  EXPECT_FALSE(sim::pve::join_plan_from_user_data(files->user_data).ok());
}

}  // namespace
}  // namespace kp
