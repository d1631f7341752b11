// The example templates of docs/templates/, rendered exactly as the controller renders a node
// class's templatesRef Secret, with the values from each example's valuesRef Secret manifest.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/cloudinit/nocloud_iso.hpp"
#include "core/cloudinit/render_cloud_init.hpp"
#include "core/gotemplate/template_set.hpp"
#include "core/instance_types/instance_type.hpp"

namespace kp::cloudinit {
namespace {

namespace fs = std::filesystem;

const char* ca_pem =
    "-----BEGIN CERTIFICATE-----\nMIIBkTCB+wIJAKexampleonlyfortests\n-----END CERTIFICATE-----\n";
const char* token = "k7x2pq.4f9a0c2b7d1e3f56";

fs::path examples_dir(const std::string& name) {
  const char* root = std::getenv("KP_SOURCE_DIR");
  return fs::path(root != nullptr ? root : ".") / "docs" / "templates" / name;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every document of an example folder, as the templatesRef Secret's keys.
template_sources sources_of(const std::string& name) {
  template_sources s;
  s.origin = "Secret kube-system/" + name + "-templates";
  for (const char* key : {"user-data", "meta-data", "network-config", "vendor-data"}) {
    fs::path p = examples_dir(name) / key;
    if (fs::exists(p)) s.documents[key] = read(p);
  }
  return s;
}

// The example's valuesRef Secret manifest: its stringData become .Values.
std::map<std::string, std::string> values_of(const std::string& name) {
  YAML::Node secret = YAML::LoadFile((examples_dir(name) / "values.yaml").string());
  std::map<std::string, std::string> out;
  for (const auto& kv : secret["stringData"]) out[kv.first.Scalar()] = kv.second.Scalar();
  return out;
}

// A 2 vCPU / 4 GiB node on pve2 with one IPAM-addressed NIC and one DHCP NIC.
cloud_init_inputs inputs_for(const std::string& name) {
  cloud_init_inputs in;
  in.hostname = "default-7xk2p";
  in.instance_id = "20013";
  in.instance_uuid = "0b5e9d8c-3f1a-4c2e-9d7b-5a6c7e8f9012";
  in.instance_type = "c1.2VCPU-4GB";
  in.provider_id = "proxmox://region-1/20013";
  in.region = "region-1";
  in.zone = "pve2";
  in.tags = {"k8s", "karpenter"};
  in.node_class = "default";
  network_interface_data eth0;
  eth0.name = "eth0";
  eth0.mac = "BC:24:11:5A:00:13";
  eth0.dhcp4 = false;
  eth0.address4 = {"192.168.10.12/24"};
  eth0.gateway4 = "192.168.10.1";
  eth0.address6 = {"fd00:1::be24:11ff:fe5a:13/64"};
  eth0.gateway6 = "fd00:1::1";
  network_interface_data eth1;
  eth1.name = "eth1";
  eth1.mac = "BC:24:11:5A:01:13";
  in.interfaces = {eth0, eth1};
  in.name_servers = {"192.168.10.1", "1.1.1.1"};
  in.search_domains = {"lab.example"};
  in.cpus = 2;
  in.memory_bytes = std::int64_t{4} << 30;
  in.kubernetes_version = "v1.32.4";
  in.root_ca_pem = ca_pem;
  in.bootstrap_token = token;
  in.endpoint = "https://10.0.0.10:6443";
  for (const auto& type : instance_types::builtin_instance_types()) {
    if (type.vm_cpus == 2 && type.vm_memory_bytes == (std::int64_t{4} << 30)) {
      in.kubelet = kubelet_defaults_for(type, in.provider_id);
    }
  }
  in.node_labels = {{"karpenter.sh/nodepool", "default"},
                    {"node.kubernetes.io/instance-type", "c1.2VCPU-4GB"},
                    {"topology.kubernetes.io/zone", "pve2"},
                    {"topology.kubernetes.io/region", "region-1"},
                    {"example.com/team", "infra"}};
  in.values = values_of(name);
  if (name == "talos") in.hugepages_1gi = 2;  // an instance type with 1Gi hugepages
  return in;
}

nocloud_files render_example(const std::string& name) {
  auto files = render_cloud_init(sources_of(name), inputs_for(name));
  EXPECT_TRUE(files.ok()) << (files.ok() ? "" : files.error().message);
  if (!files.ok()) return {};
  for (const std::string* doc : {&files->user_data, &files->meta_data}) {
    EXPECT_EQ(doc->find("<no value>"), std::string::npos) << *doc;
  }
  // The files fit on the CD-ROM the controller attaches.
  EXPECT_TRUE(write_nocloud_iso(*files, {.fixed_timestamp = 0}).ok());
  return *files;
}

YAML::Node written_file(const YAML::Node& doc, const std::string& path) {
  for (const auto& f : doc["write_files"]) {
    if (f["path"].Scalar() == path) return YAML::Load(f["content"].Scalar());
  }
  ADD_FAILURE() << "no write_files entry " << path;
  return {};
}

std::string written_text(const YAML::Node& doc, const std::string& path) {
  for (const auto& f : doc["write_files"]) {
    if (f["path"].Scalar() == path) return f["content"].Scalar();
  }
  ADD_FAILURE() << "no write_files entry " << path;
  return {};
}

std::vector<std::string> strings(const YAML::Node& list) {
  std::vector<std::string> out;
  for (const auto& item : list) out.push_back(item.IsScalar() ? item.Scalar() : "");
  return out;
}

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

void expect_meta_data(const nocloud_files& f) {
  YAML::Node md = YAML::Load(f.meta_data);
  EXPECT_EQ(md["instance-id"].Scalar(), "20013");
  EXPECT_EQ(md["local-hostname"].Scalar(), "default-7xk2p");
  EXPECT_EQ(md["provider-id"].Scalar(), "proxmox://region-1/20013");
  EXPECT_EQ(md["zone"].Scalar(), "pve2");
}

TEST(ExampleTemplates, UbuntuKubeadmWritesTheBootstrapKubeconfigKubeletConfigAndInstallSteps) {
  nocloud_files f = render_example("ubuntu-kubeadm");
  ASSERT_EQ(f.user_data.rfind("#cloud-config\nhostname: default-7xk2p\n", 0), 0u) << f.user_data;
  YAML::Node doc = YAML::Load(f.user_data);
  EXPECT_TRUE(contains(strings(doc["packages"]), "containerd"));
  EXPECT_TRUE(contains(strings(doc["packages"]), "qemu-guest-agent"));
  EXPECT_EQ(doc["users"][0]["ssh_authorized_keys"][0].Scalar(),
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleKeyOnlyForDocs admin@example");

  YAML::Node kubeconfig = written_file(doc, "/etc/kubernetes/bootstrap-kubelet.conf");
  EXPECT_EQ(kubeconfig["clusters"][0]["cluster"]["server"].Scalar(), "https://10.0.0.10:6443");
  EXPECT_EQ(kubeconfig["users"][0]["user"]["token"].Scalar(), token);
  auto ca = gotemplate::render_template(
      "ca", "{{ b64dec .C }}",
      gotemplate::value::map(
          {{"C", kubeconfig["clusters"][0]["cluster"]["certificate-authority-data"].Scalar()}}));
  ASSERT_TRUE(ca.ok());
  EXPECT_EQ(*ca, ca_pem);
  EXPECT_EQ(written_text(doc, "/etc/kubernetes/pki/ca.crt"), ca_pem);

  YAML::Node kubelet = written_file(doc, "/var/lib/kubelet/config.yaml");
  EXPECT_EQ(kubelet["kind"].Scalar(), "KubeletConfiguration");
  EXPECT_EQ(kubelet["providerID"].Scalar(), "proxmox://region-1/20013");
  EXPECT_EQ(kubelet["cgroupDriver"].Scalar(), "systemd");
  EXPECT_EQ(strings(kubelet["clusterDNS"]), std::vector<std::string>{"10.96.0.10"});
  EXPECT_EQ(kubelet["registerWithTaints"][0]["key"].Scalar(), "karpenter.sh/unregistered");
  EXPECT_TRUE(kubelet["maxPods"]);
  EXPECT_TRUE(kubelet["kubeReserved"]["memory"]);

  std::string unit = written_text(doc, "/etc/systemd/system/kubelet.service.d/20-karpenter.conf");
  EXPECT_NE(unit.find("--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf"),
            std::string::npos);
  EXPECT_NE(unit.find("--node-labels="), std::string::npos) << unit;
  EXPECT_NE(unit.find("karpenter.sh/nodepool=default"), std::string::npos) << unit;
  EXPECT_NE(unit.find("example.com/team=infra"), std::string::npos) << unit;
  // The repository of the API server's minor version is added after its key, then the kubelet
  // is installed from it.
  int repo_step = -1, install_step = -1, step_index = 0;
  for (const auto& step : doc["runcmd"]) {
    auto words = strings(step);
    if (!words.empty() &&
        words.back().find("https://pkgs.k8s.io/core:/stable:/v1.32/deb/ /' > "
                          "/etc/apt/sources.list.d/kubernetes.list") != std::string::npos) {
      repo_step = step_index;
    }
    if (contains(words, "kubelet") && contains(words, "install")) install_step = step_index;
    ++step_index;
  }
  EXPECT_GE(repo_step, 0) << f.user_data;
  EXPECT_GT(install_step, repo_step);

  expect_meta_data(f);
  ASSERT_TRUE(f.network_config);
  YAML::Node net = YAML::Load(*f.network_config);
  EXPECT_EQ(net["version"].as<int>(), 2);
  EXPECT_EQ(net["ethernets"]["eth0"]["match"]["macaddress"].Scalar(), "bc:24:11:5a:00:13");
  EXPECT_EQ(net["ethernets"]["eth0"]["addresses"][0].Scalar(), "192.168.10.12/24");
  EXPECT_EQ(net["ethernets"]["eth0"]["addresses"][1].Scalar(), "fd00:1::be24:11ff:fe5a:13/64");
  EXPECT_EQ(net["ethernets"]["eth0"]["routes"][0]["via"].Scalar(), "192.168.10.1");
  EXPECT_FALSE(net["ethernets"]["eth0"]["dhcp4"].as<bool>());
  EXPECT_TRUE(net["ethernets"]["eth1"]["dhcp4"].as<bool>());
  EXPECT_EQ(net["ethernets"]["eth1"]["nameservers"]["search"][0].Scalar(), "lab.example");
}

TEST(ExampleTemplates, K3sAgentJoinsWithTheServerTokenAndKarpentersProviderIdAndTaint) {
  nocloud_files f = render_example("k3s");
  YAML::Node doc = YAML::Load(f.user_data);
  EXPECT_EQ(doc["hostname"].Scalar(), "default-7xk2p");
  YAML::Node config = written_file(doc, "/etc/rancher/k3s/config.yaml");
  EXPECT_EQ(config["server"].Scalar(), "https://k3s.example.internal:6443");
  EXPECT_EQ(config["token"].Scalar(), values_of("k3s")["K3S_TOKEN"]);
  EXPECT_EQ(config["node-name"].Scalar(), "default-7xk2p");
  auto labels = strings(config["node-label"]);
  EXPECT_TRUE(contains(labels, "karpenter.sh/nodepool=default")) << f.user_data;
  EXPECT_TRUE(contains(labels, "example.com/team=infra"));
  EXPECT_EQ(strings(config["node-taint"]),
            std::vector<std::string>{"karpenter.sh/unregistered:NoExecute"});
  auto args = strings(config["kubelet-arg"]);
  EXPECT_TRUE(contains(args, "provider-id=proxmox://region-1/20013")) << f.user_data;
  bool max_pods = false;
  for (const auto& a : args) max_pods |= a.rfind("max-pods=", 0) == 0;
  EXPECT_TRUE(max_pods);
  std::string install = strings(doc["runcmd"][1]).back();
  EXPECT_NE(install.find("INSTALL_K3S_VERSION=v1.32.4+k3s1 INSTALL_K3S_EXEC=agent"),
            std::string::npos)
      << install;
  expect_meta_data(f);
  ASSERT_TRUE(f.network_config);
  EXPECT_EQ(YAML::Load(*f.network_config)["ethernets"]["eth0"]["addresses"][0].Scalar(),
            "192.168.10.12/24");
}

TEST(ExampleTemplates, K3sFallsBackToTheApiServerVersionWithoutK3sVersion) {
  auto in = inputs_for("k3s");
  in.values.erase("K3S_VERSION");
  auto f = render_cloud_init(sources_of("k3s"), in);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_NE(f->user_data.find("INSTALL_K3S_VERSION=v1.32.4+k3s1 "), std::string::npos);
}

TEST(ExampleTemplates, TalosWorkerConfigCarriesTheBootstrapTokenCaAndKubeletSettings) {
  nocloud_files f = render_example("talos");
  YAML::Node doc = YAML::Load(f.user_data);
  EXPECT_EQ(doc["version"].Scalar(), "v1alpha1");
  EXPECT_EQ(doc["machine"]["type"].Scalar(), "worker");
  EXPECT_EQ(doc["machine"]["token"].Scalar(), values_of("talos")["machineToken"]);
  EXPECT_EQ(doc["cluster"]["token"].Scalar(), token);
  EXPECT_EQ(doc["cluster"]["controlPlane"]["endpoint"].Scalar(), "https://10.0.0.10:6443");
  EXPECT_EQ(doc["cluster"]["clusterName"].Scalar(), "homelab");
  auto ca = gotemplate::render_template(
      "ca", "{{ b64dec .C }}",
      gotemplate::value::map({{"C", doc["cluster"]["ca"]["crt"].Scalar()}}));
  ASSERT_TRUE(ca.ok());
  EXPECT_EQ(*ca, ca_pem);
  YAML::Node kubelet = doc["machine"]["kubelet"];
  EXPECT_EQ(kubelet["image"].Scalar(), "ghcr.io/siderolabs/kubelet:v1.32.4");
  EXPECT_EQ(kubelet["extraConfig"]["providerID"].Scalar(), "proxmox://region-1/20013");
  EXPECT_EQ(kubelet["extraConfig"]["registerWithTaints"][0]["effect"].Scalar(), "NoExecute");
  EXPECT_EQ(doc["machine"]["nodeLabels"]["karpenter.sh/nodepool"].Scalar(), "default");
  EXPECT_EQ(doc["machine"]["network"]["hostname"].Scalar(), "default-7xk2p");
  EXPECT_EQ(doc["machine"]["network"]["nameservers"][1].Scalar(), "1.1.1.1");
  EXPECT_EQ(doc["machine"]["install"]["disk"].Scalar(), "/dev/sda");
  EXPECT_EQ(doc["machine"]["sysfs"]
               ["devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages"]
                   .Scalar(),
            "2");
  EXPECT_FALSE(
      doc["machine"]["sysfs"]["devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages"]);
  expect_meta_data(f);
  // Interfaces come from the built-in network-config, which Talos's NoCloud platform reads.
  ASSERT_TRUE(f.network_config);
  YAML::Node net = YAML::Load(*f.network_config);
  EXPECT_EQ(net["ethernets"]["eth0"]["addresses"][0].Scalar(), "192.168.10.12/24");
  EXPECT_TRUE(net["ethernets"]["eth1"]["dhcp4"].as<bool>());
}

TEST(ExampleTemplates, KproximateStyleRunsTheJoinCommandWithTheTargetHostOnFirstBoot) {
  nocloud_files f = render_example("kproximate");
  YAML::Node doc = YAML::Load(f.user_data);
  EXPECT_EQ(doc["hostname"].Scalar(), "default-7xk2p");
  EXPECT_EQ(doc["ssh_authorized_keys"][0].Scalar(),
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleKeyOnlyForDocs admin@example");
  auto join = strings(doc["runcmd"][1]);
  ASSERT_EQ(join.size(), 3u) << f.user_data;
  EXPECT_EQ(join[0], "bash");
  EXPECT_EQ(join[1], "-c");
  EXPECT_EQ(join[2].rfind("export KP_NODE_NAME=default-7xk2p KP_TARGET_HOST=pve2 "
                          "KP_PROVIDER_ID=proxmox://region-1/20013\ncurl -sSLf "
                          "https://get.k0s.sh | sh\nmkdir -p /etc/k0s\n",
                          0),
            0u)
      << join[2];
  EXPECT_NE(join[2].find("--node-labels=topology.kubernetes.io/zone=$KP_TARGET_HOST"),
            std::string::npos);
  // No CD-ROM document of this model carries the bootstrap token.
  EXPECT_EQ(f.user_data.find(token), std::string::npos);
  expect_meta_data(f);
}

TEST(ExampleTemplates, EveryExampleFolderHasAUserDataAndAValuesSecret) {
  int folders = 0;
  for (const auto& entry : fs::directory_iterator(examples_dir(""))) {
    if (!entry.is_directory()) continue;
    ++folders;
    EXPECT_TRUE(fs::exists(entry.path() / "user-data")) << entry.path();
    YAML::Node secret = YAML::LoadFile((entry.path() / "values.yaml").string());
    EXPECT_EQ(secret["kind"].Scalar(), "Secret") << entry.path();
  }
  EXPECT_EQ(folders, 4) << "a new example needs a rendering test here";
}

}  // namespace
}  // namespace kp::cloudinit
