// The Go provider's examples as their users bring them (examples/k3s, examples/talos,
// docs/deploy): a templates Secret and a values Secret written with stringData, a node class
// with templatesRef plus valuesRef, bootDevice.storage, securityGroups, resourcePool and
// kubeletConfiguration, a NodePool and a pending pod. The templates are ours
// (docs/templates/k3s and docs/templates/talos). The pod gets a VM on the named storage, pool and
// firewall group, whose CD-ROM (read with isoinfo) holds user-data and network-config that are
// valid YAML with every value in place. These guests never join the simulation (only the
// built-in user-data does), so the test reads the ISO while the VM waits to register.
#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/ownership/iso_name.hpp"
#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

std::string source(const std::string& path) {
  const char* src = std::getenv("KP_SOURCE_DIR");
  std::ifstream in(std::string(src ? src : ".") + "/" + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string output_of(const std::string& command) {
  std::string out;
  if (FILE* p = ::popen(command.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

std::string base64_decode(const std::string& in) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
  };
  std::string out;
  int bits = 0, acc = 0;
  for (char c : in) {
    int v = value(c);
    if (v < 0) continue;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

// "key: |\n    <document>" lines of a stringData entry, indented for a Secret manifest.
std::string string_data(const std::string& key, const std::string& document) {
  std::string out = "  " + key + ": |\n";
  std::stringstream in(document);
  for (std::string line; std::getline(in, line);) out += line.empty() ? "\n" : "    " + line + "\n";
  return out;
}

// The manifests of one example: the templates Secret (from docs/templates/<name>), its values
// Secret, a node class shaped like the Go provider's docs/deploy one, a NodePool and a pod.
std::string manifests(const std::string& name) {
  std::string templates = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: " + name +
                          "-templates\n  namespace: kube-system\nstringData:\n";
  for (const char* key : {"user-data", "network-config", "meta-data"}) {
    auto doc = source("docs/templates/" + name + "/" + key);
    if (!doc.empty()) templates += string_data(key, doc);
  }
  return templates + "---\n" + source("docs/templates/" + name + "/values.yaml") + "---\n" +
         R"(apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata:
  name: )" +
         name + R"(
spec:
  instanceTemplateRef:
    kind: ProxmoxUnmanagedTemplate
    name: k8s-template
  metadataOptions:
    type: cdrom
    templatesRef:
      name: )" +
         name + R"(-templates
      namespace: kube-system
    valuesRef:
      name: )" +
         name + R"(-values
      namespace: kube-system
  kubeletConfiguration:
    maxPods: 110
    allowedUnsafeSysctls: [net.core.somaxconn]
    topologyManagerPolicy: best-effort
  bootDevice:
    size: 30Gi
    storage: local-lvm
  securityGroups:
    - name: kubernetes
      interface: net0
  resourcePool: kubernetes
  tags:
    - karpenter
    - )" +
         name + R"(
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: )" +
         name + R"(
spec:
  limits:
    cpu: "64"
    memory: 512Gi
  template:
    spec:
      nodeClassRef:
        group: karpenter.proxmox.sinextra.dev
        kind: ProxmoxNodeClass
        name: )" +
         name + R"(
      startupTaints:
        - key: karpenter.sh/unregistered
          effect: NoExecute
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: )" +
         name + R"(-app, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: )" +
         name + R"(-app}}
  template:
    metadata: {labels: {app: )" +
         name + R"(-app}}
    spec:
      nodeSelector: {karpenter.sh/nodepool: )" +
         name + R"(}
      containers: [{name: app, image: pause, resources: {requests: {cpu: 500m, memory: 512Mi}}}]
)";
}

std::string str(const json::value& v, std::string_view key) {
  const auto* o = v.if_object();
  const auto* x = o ? o->if_contains(key) : nullptr;
  return x && x->is_string() ? std::string(x->as_string()) : std::string();
}

struct launched_vm {
  lab::vm_entry vm;
  std::string user_data, network_config;
  json::value config;  // the VM's Proxmox config
};

class go_examples : public e2e_test {
 protected:
  // Applies the example, waits for its VM and reads its CD-ROM before the VM goes away.
  launched_vm launch(const std::string& name) {
    launched_vm out;
    auto s = world->apply_yaml(manifests(name));
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    fs::path iso;
    bool found = lab::lab_world::eventually(
        [&] {
          auto vms = world->vms();
          if (!vms) return false;
          for (const auto& vm : *vms) {
            // Running: configured (NICs, disk, CD-ROM) and resized before it was started.
            if (vm.name.rfind(name + "-", 0) != 0 || vm.status != "running") continue;
            out.vm = vm;
            for (const auto& e :
                 fs::recursive_directory_iterator(world->work_dir() + "/pve-data")) {
              auto iso_name = ownership::parse_iso_name(e.path().filename().string());
              if (iso_name && iso_name->vmid == static_cast<std::uint32_t>(vm.vmid)) iso = e.path();
            }
            if (iso.empty()) return false;
            out.user_data = output_of("isoinfo -R -x /user-data -i '" + iso.string() + "'");
            out.network_config =
                output_of("isoinfo -R -x /network-config -i '" + iso.string() + "'");
            return !out.user_data.empty() && !out.network_config.empty();
          }
          return false;
        },
        60s);
    EXPECT_TRUE(found) << "no VM with a cloud-init ISO for NodePool " << name << diagnose();
    if (!found) return out;
    auto config = pve_vm_config(out.vm.node, out.vm.vmid);
    EXPECT_TRUE(config.ok()) << config.error().message;
    if (config.ok()) out.config = *config;
    return out;
  }

  // The node class's VM shapes: disk on bootDevice.storage resized to bootDevice.size, the
  // firewall on for the security group, membership of resourcePool.
  void expect_node_class_applied(const launched_vm& l) {
    const auto disk = str(l.config, "scsi0");
    EXPECT_EQ(disk.rfind("local-lvm:", 0), 0u) << disk;
    EXPECT_NE(disk.find("size=30G"), std::string::npos) << disk;
    EXPECT_NE(str(l.config, "net0").find("firewall=1"), std::string::npos) << str(l.config, "net0");
    auto pool = world->pve_api("GET", "/pools/kubernetes", "/pools/{poolid}");
    ASSERT_TRUE(pool.ok() && pool->ok());
    EXPECT_NE(pool->body.find("\"vmid\":" + std::to_string(l.vm.vmid)), std::string::npos)
        << pool->body;
  }

  // net0's MAC as the guest sees it, lower-cased ("virtio=BC:24:...,bridge=...").
  static std::string mac_of(const launched_vm& l) {
    auto net0 = str(l.config, "net0");
    auto eq = net0.find('=');
    auto mac = net0.substr(eq + 1, net0.find(',') - eq - 1);
    for (auto& c : mac) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return mac;
  }

  // The network-config is v2 YAML matching every NIC by its lower-cased MAC.
  static void expect_network_config(const launched_vm& l) {
    YAML::Node root;
    ASSERT_NO_THROW(root = YAML::Load(l.network_config)) << l.network_config;
    // Either form NoCloud reads: the v2 document itself, or under a `network:` key.
    const YAML::Node net = root["network"] ? root["network"] : root;
    EXPECT_EQ(net["version"].as<int>(), 2);
    bool matched = false;
    for (const auto& eth : net["ethernets"]) {
      matched = matched || eth.second["match"]["macaddress"].as<std::string>() == mac_of(l);
    }
    EXPECT_TRUE(matched) << "no interface matches " << mac_of(l) << " in\n" << l.network_config;
    EXPECT_NE(l.network_config.find("\"" + mac_of(l) + "\""), std::string::npos)
        << "the MAC is quoted";
  }
};

TEST_F(go_examples, theK3sExampleGetsAVmWithItsValuesHostnameProviderIdAndMac) {
  if (output_of("command -v isoinfo").empty()) GTEST_SKIP() << "isoinfo (genisoimage) is missing";
  KP_E2E_START();
  start_controller();
  auto l = launch("k3s");
  if (HasFailure()) return;
  ASSERT_EQ(l.user_data.rfind("#cloud-config", 0), 0u) << l.user_data;
  EXPECT_EQ(l.user_data.find("<no value>"), std::string::npos) << l.user_data;
  YAML::Node doc;
  ASSERT_NO_THROW(doc = YAML::Load(l.user_data)) << l.user_data;
  const auto values = YAML::Load(source("docs/templates/k3s/values.yaml"))["stringData"];
  EXPECT_EQ(doc["hostname"].as<std::string>(), l.vm.name);
  // split: the comma-separated keys of the values Secret.
  EXPECT_EQ(doc["users"][0]["ssh_authorized_keys"][0].as<std::string>(),
            values["SSHAuthorizedKeys"].as<std::string>());
  YAML::Node config;
  for (const auto& f : doc["write_files"]) {
    if (f["path"].as<std::string>() == "/etc/rancher/k3s/config.yaml")
      config = YAML::Load(f["content"].as<std::string>());
  }
  ASSERT_TRUE(config) << l.user_data;
  EXPECT_EQ(config["server"].as<std::string>(), values["K3S_URL"].as<std::string>());
  EXPECT_EQ(config["token"].as<std::string>(), values["K3S_TOKEN"].as<std::string>());
  EXPECT_EQ(config["node-name"].as<std::string>(), l.vm.name);
  std::vector<std::string> args;
  for (const auto& a : config["kubelet-arg"]) args.push_back(a.as<std::string>());
  const std::string provider_id = "provider-id=proxmox://pve-sim/" + std::to_string(l.vm.vmid);
  EXPECT_NE(std::find(args.begin(), args.end(), provider_id), args.end())
      << ::testing::PrintToString(args);
  // kubeletConfiguration.maxPods of the node class.
  EXPECT_NE(std::find(args.begin(), args.end(), "max-pods=110"), args.end())
      << ::testing::PrintToString(args);
  EXPECT_EQ(config["node-taint"][0].as<std::string>(), "karpenter.sh/unregistered:NoExecute");
  EXPECT_NE(l.user_data.find("INSTALL_K3S_VERSION=" + values["K3S_VERSION"].as<std::string>()),
            std::string::npos);
  expect_network_config(l);
  expect_node_class_applied(l);
}

TEST_F(go_examples, theTalosExampleGetsAMachineConfigWithTheClustersVersionTokenAndCa) {
  if (output_of("command -v isoinfo").empty()) GTEST_SKIP() << "isoinfo (genisoimage) is missing";
  KP_E2E_START();
  start_controller();
  auto l = launch("talos");
  if (HasFailure()) return;
  EXPECT_EQ(l.user_data.find("<no value>"), std::string::npos) << l.user_data;
  YAML::Node doc;
  ASSERT_NO_THROW(doc = YAML::Load(l.user_data)) << l.user_data;
  const auto values = YAML::Load(source("docs/templates/talos/values.yaml"))["stringData"];
  EXPECT_EQ(doc["machine"]["type"].as<std::string>(), "worker");
  EXPECT_EQ(doc["machine"]["token"].as<std::string>(), values["machineToken"].as<std::string>());
  EXPECT_EQ(doc["cluster"]["id"].as<std::string>(), values["clusterID"].as<std::string>());
  EXPECT_EQ(doc["machine"]["network"]["hostname"].as<std::string>(), l.vm.name);
  // .Kubernetes.Version: the API server's.
  auto version = world->kube().call("GET", "/version");
  ASSERT_TRUE(version.ok() && version->ok());
  EXPECT_EQ(doc["machine"]["kubelet"]["image"].as<std::string>(),
            "ghcr.io/siderolabs/kubelet:" + str(version->json(), "gitVersion"));
  // toYamlPretty | nindent: the kubelet configuration, with the node class's maxPods.
  auto extra = doc["machine"]["kubelet"]["extraConfig"];
  EXPECT_EQ(extra["maxPods"].as<int>(), 110);
  EXPECT_EQ(extra["providerID"].as<std::string>(),
            "proxmox://pve-sim/" + std::to_string(l.vm.vmid));
  // b64enc | quote: the cluster CA the controller trusts, as a quoted base64 string.
  auto kubeconfig = YAML::LoadFile(world->kubeconfig_path());
  const auto ca = base64_decode(
      kubeconfig["clusters"][0]["cluster"]["certificate-authority-data"].as<std::string>());
  EXPECT_EQ(base64_decode(doc["cluster"]["ca"]["crt"].as<std::string>()), ca);
  EXPECT_NE(l.user_data.find("crt: \""), std::string::npos) << "the CA is quoted";
  // The per-node bootstrap token, whose Secret the controller created in kube-system.
  const auto token = doc["cluster"]["token"].as<std::string>();
  ASSERT_EQ(token.size(), 23u) << token;
  auto secret = world->kube().call(
      "GET", "/api/v1/namespaces/kube-system/secrets/bootstrap-token-" + token.substr(0, 6));
  ASSERT_TRUE(secret.ok());
  EXPECT_TRUE(secret->ok()) << "no bootstrap token Secret for " << token.substr(0, 6);
  expect_network_config(l);
  expect_node_class_applied(l);
}

}  // namespace
}  // namespace kp::e2e
