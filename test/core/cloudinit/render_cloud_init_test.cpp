#include "core/cloudinit/render_cloud_init.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <random>

#include "core/cloudinit/bootstrap_token.hpp"

namespace kp::cloudinit {
namespace {

const char* ca_pem = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n";

cloud_init_inputs sample_inputs() {
  cloud_init_inputs in;
  in.hostname = "default-abc12";
  in.instance_id = "20001";
  in.instance_uuid = "6f1c7d3e-1111-4a2b-9c3d-000000000001";
  in.instance_type = "t1.2VCPU-6GB";
  in.provider_id = "proxmox://region-1/20001";
  in.region = "region-1";
  in.zone = "pve2";
  in.tags = {"karpenter", "k8s"};
  in.node_class = "default";
  in.cpus = 2;
  in.memory_bytes = std::int64_t{6} << 30;
  in.kubernetes_version = "v1.32.4";
  in.root_ca_pem = ca_pem;
  in.bootstrap_token = "abcdef.0123456789abcdef";
  in.endpoint = "https://10.0.0.1:6443";
  in.kubelet.provider_id = in.provider_id;
  in.kubelet.max_pods = 64;
  in.kubelet.kube_reserved = {{"cpu", "70m"}, {"memory", "384Mi"}};
  in.kubelet.eviction_hard = {{"memory.available", "100Mi"}};
  in.kubelet.register_with_taints = {{"karpenter.sh/unregistered", "", "NoExecute"}};
  in.node_labels = {{"karpenter.sh/nodepool", "default"},
                    {"topology.kubernetes.io/zone", "pve2"},
                    {"node-role.kubernetes.io/worker", ""}};
  return in;
}

std::string written_file(const YAML::Node& doc, const std::string& path) {
  for (const auto& f : doc["write_files"]) {
    if (f["path"].as<std::string>() == path) return f["content"].as<std::string>();
  }
  return {};
}

TEST(RenderCloudInit, TheDefaultUserDataCarriesTheKubeletBootstrapFiles) {
  auto files = render_cloud_init({}, sample_inputs());
  ASSERT_TRUE(files.ok()) << files.error().message;
  ASSERT_EQ(files->user_data.rfind("#cloud-config\n", 0), 0u);
  YAML::Node doc = YAML::Load(files->user_data);
  EXPECT_EQ(doc["hostname"].as<std::string>(), "default-abc12");

  YAML::Node kubeconfig = YAML::Load(written_file(doc, "/var/lib/kubelet/bootstrap-kubeconfig"));
  EXPECT_EQ(kubeconfig["clusters"][0]["cluster"]["server"].as<std::string>(),
            "https://10.0.0.1:6443");
  EXPECT_EQ(kubeconfig["users"][0]["user"]["token"].as<std::string>(), "abcdef.0123456789abcdef");
  EXPECT_FALSE(
      kubeconfig["clusters"][0]["cluster"]["certificate-authority-data"].as<std::string>().empty());

  YAML::Node kubelet = YAML::Load(written_file(doc, "/var/lib/kubelet/config.yaml"));
  EXPECT_EQ(kubelet["kind"].as<std::string>(), "KubeletConfiguration");
  EXPECT_EQ(kubelet["providerID"].as<std::string>(), "proxmox://region-1/20001");
  EXPECT_EQ(kubelet["maxPods"].as<int>(), 64);
  EXPECT_EQ(kubelet["kubeReserved"]["memory"].as<std::string>(), "384Mi");
  EXPECT_EQ(kubelet["evictionHard"]["memory.available"].as<std::string>(), "100Mi");
  EXPECT_EQ(kubelet["registerWithTaints"][0]["key"].as<std::string>(), "karpenter.sh/unregistered");
  EXPECT_EQ(kubelet["registerWithTaints"][0]["effect"].as<std::string>(), "NoExecute");
  EXPECT_FALSE(kubelet["cpuManagerPolicy"]) << "unset settings are omitted";

  EXPECT_EQ(written_file(doc, "/etc/kubernetes/pki/ca.crt"), std::string(ca_pem));
  std::string defaults = written_file(doc, "/etc/default/kubelet");
  EXPECT_NE(defaults.find(
                "--node-labels=karpenter.sh/nodepool=default,topology.kubernetes.io/zone=pve2\""),
            std::string::npos)
      << defaults;
  EXPECT_EQ(defaults.find("node-role"), std::string::npos)
      << "a kubelet may not set node-role labels";
}

TEST(RenderCloudInit, TheKubeletMayOnlyLabelItselfWithAllowedKubernetesKeys) {
  EXPECT_EQ(kubelet_node_labels({{"node-role.kubernetes.io/worker", ""},
                                 {"topology.kubernetes.io/zone", "pve1"},
                                 {"node.kubernetes.io/instance-type", "t1"},
                                 {"karpenter.sh/nodepool", "p"},
                                 {"team", "a"}}),
            "karpenter.sh/nodepool=p,node.kubernetes.io/"
            "instance-type=t1,team=a,topology.kubernetes.io/zone=pve1");
}

TEST(RenderCloudInit, MetaDataNamesTheInstance) {
  auto files = render_cloud_init({}, sample_inputs());
  ASSERT_TRUE(files.ok());
  YAML::Node meta = YAML::Load(files->meta_data);
  EXPECT_EQ(meta["instance-id"].as<std::string>(), "20001");
  EXPECT_EQ(meta["local-hostname"].as<std::string>(), "default-abc12");
  EXPECT_EQ(meta["provider-id"].as<std::string>(), "proxmox://region-1/20001");
  EXPECT_EQ(meta["zone"].as<std::string>(), "pve2");
  EXPECT_FALSE(files->network_config) << "no interface data: cloud-init's own DHCP default";
  EXPECT_FALSE(files->vendor_data);
}

TEST(RenderCloudInit, NetworkConfigVersion2MatchesEachInterfaceByMac) {
  auto in = sample_inputs();
  network_interface_data eth0;
  eth0.name = "eth0";
  eth0.mac = "BC:24:11:AA:BB:CC";
  eth0.dhcp4 = false;
  eth0.address4 = {"10.0.0.5/24"};
  eth0.gateway4 = "10.0.0.1";
  in.interfaces = {eth0};
  in.name_servers = {"1.1.1.1"};
  auto files = render_cloud_init({}, in);
  ASSERT_TRUE(files.ok()) << files.error().message;
  ASSERT_TRUE(files->network_config);
  YAML::Node net = YAML::Load(*files->network_config);
  EXPECT_EQ(net["version"].as<int>(), 2);
  auto e = net["ethernets"]["eth0"];
  EXPECT_EQ(e["match"]["macaddress"].as<std::string>(), "bc:24:11:aa:bb:cc");
  EXPECT_FALSE(e["dhcp4"].as<bool>());
  EXPECT_EQ(e["addresses"][0].as<std::string>(), "10.0.0.5/24");
  EXPECT_EQ(e["routes"][0]["via"].as<std::string>(), "10.0.0.1");
  EXPECT_EQ(e["nameservers"]["addresses"][0].as<std::string>(), "1.1.1.1");
}

TEST(RenderCloudInit, UserTemplatesReplaceOnlyTheKeysTheyProvide) {
  template_sources sources{
      "Secret kube-system/k3s",
      {{"user-data", "#!/bin/sh\necho {{ .Metadata.Zone }} {{ .Values.token }}\n"}}};
  auto in = sample_inputs();
  in.values = {{"token", "k3s-secret"}};
  auto files = render_cloud_init(sources, in);
  ASSERT_TRUE(files.ok()) << files.error().message;
  EXPECT_EQ(files->user_data, "#!/bin/sh\necho pve2 k3s-secret\n");
  EXPECT_NE(files->meta_data.find("instance-id: 20001"), std::string::npos)
      << "meta-data from the default";
}

TEST(RenderCloudInit, ABrokenTemplateNamesTheSecretTheKeyAndTheLine) {
  template_sources sources{"Secret kube-system/broken",
                           {{"meta-data", "ok: 1\nbad: {{ .Hostname }\n"}}};
  auto files = render_cloud_init(sources, sample_inputs());
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.error().code, "template_error");
  EXPECT_NE(files.error().message.find("Secret kube-system/broken key meta-data"),
            std::string::npos)
      << files.error().message;
  EXPECT_NE(files.error().message.find("meta-data:2"), std::string::npos) << files.error().message;
}

TEST(RenderCloudInit, AnUnknownFieldIsAnExecutionErrorNotACrash) {
  template_sources sources{"Secret ns/t", {{"user-data", "{{ .Metadata.NoSuchField }}"}}};
  auto files = render_cloud_init(sources, sample_inputs());
  ASSERT_FALSE(files.ok());
  EXPECT_NE(files.error().message.find("key user-data"), std::string::npos)
      << files.error().message;
}

TEST(BootstrapToken, HasKubernetesShapeAndDiffersEachTime) {
  std::mt19937 rng(7);
  auto a = generate_bootstrap_token([&] { return static_cast<std::uint32_t>(rng()); });
  auto b = generate_bootstrap_token([&] { return static_cast<std::uint32_t>(rng()); });
  EXPECT_TRUE(is_bootstrap_token(a.token())) << a.token();
  EXPECT_EQ(a.id.size(), 6u);
  EXPECT_EQ(a.secret.size(), 16u);
  EXPECT_NE(a.token(), b.token());
  EXPECT_FALSE(is_bootstrap_token("ABCDEF.0123456789abcdef"));
  EXPECT_FALSE(is_bootstrap_token("abcdef-0123456789abcdef"));
  EXPECT_FALSE(is_bootstrap_token("abcdef.0123"));
}

}  // namespace
}  // namespace kp::cloudinit
