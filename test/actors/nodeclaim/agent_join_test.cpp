// kproximate's operating model on a ProxmoxNodeClass: the join command run through the guest
// agent (rendered, then read back the way a pve-sim guest reads it), nodeLabels templated with
// the target host, sshKeys, the validation naming each field, and fixed-size nodes from an
// INSTANCE_TYPES_FILE with one size fed to the scheduling simulation.
#include <gtest/gtest.h>

#include "actors/nodeclaim/agent_join.hpp"
#include "actors/nodeclaim/launch_plan.hpp"
#include "config/instance_types_file.hpp"
#include "core/instance_types/instance_type.hpp"
#include "core/scheduling/provision.hpp"
#include "protocol/provider_id.hpp"
#include "sim/pve/guest_join_plan.hpp"

namespace kp::actors::nodeclaim {
namespace {

cloudinit::vm_placement at(const std::string& region, const std::string& zone, std::uint32_t vmid) {
  return {region, zone, vmid, protocol::format_provider_id(region, vmid), {}};
}

constexpr const char* ca_pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

kube::node_claim claim() {
  kube::node_claim c;
  c.metadata.name = "kp-node-x7k2p";
  c.metadata.uid = "uid-1";
  c.metadata.labels["karpenter.sh/nodepool"] = "kp-node";
  c.spec.node_class_ref = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass", "kproximate"};
  c.spec.startup_taints.push_back({"karpenter.sh/unregistered", "", "NoExecute", ""});
  c.spec.taints.push_back({"dedicated", "kp", "NoSchedule", ""});
  return c;
}

kube::proxmox_node_class node_class() {
  kube::proxmox_node_class nc;
  nc.metadata.name = "kproximate";
  nc.spec.instance_template_ref = {"ProxmoxUnmanagedTemplate", "kp-template"};
  nc.spec.metadata.type = "guestAgent";
  nc.spec.node_labels["kp-host"] = "{{ .TargetHost }}";
  nc.spec.node_labels["example.com/pool"] = "kproximate";
  return nc;
}

TEST(AgentJoin, TheDefaultJoinCommandIsAKubeJoinThatAPveSimGuestReads) {
  auto nc = node_class();
  nc.spec.kubelet = kube::kubelet_configuration{};
  nc.spec.kubelet->max_pods = 58;
  auto plan = make_join_plan(claim(), nc, "kp1.2VCPU-2GB", "kp1", "abcdef.0123456789abcdef",
                             "https://10.0.0.1:6443", ca_pem, {});
  auto command = cloudinit::render_join_command(plan, at("pve-sim", "pve2", 20001));
  ASSERT_TRUE(command.ok()) << command.error().message;
  EXPECT_EQ(command->rfind("kube-join server=https://10.0.0.1:6443 ", 0), 0u) << *command;
  auto read = sim::pve::join_plan_from_command(*command);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->server, "https://10.0.0.1:6443");
  EXPECT_EQ(read->token, "abcdef.0123456789abcdef");
  EXPECT_EQ(read->ca_pem, ca_pem);
  EXPECT_EQ(read->max_pods, 58);
  EXPECT_EQ(read->labels.at("kp-host"), "pve2");
  EXPECT_EQ(read->labels.at("example.com/pool"), "kproximate");
  EXPECT_EQ(read->labels.at("topology.kubernetes.io/zone"), "pve2");
  EXPECT_EQ(read->labels.at("topology.kubernetes.io/region"), "pve-sim");
  EXPECT_EQ(read->labels.at("node.kubernetes.io/instance-type"), "kp1.2VCPU-2GB");
  EXPECT_EQ(read->labels.at("karpenter.sh/nodepool"), "kp-node");
  ASSERT_EQ(read->taints.size(), 2u);
  EXPECT_EQ(read->taints[0].key, "dedicated");
  EXPECT_EQ(read->taints[0].value, "kp");
  EXPECT_EQ(read->taints[1].key, "karpenter.sh/unregistered");
  EXPECT_EQ(read->taints[1].effect, "NoExecute");
}

TEST(AgentJoin, ACustomJoinCommandSeesTheHostVmidProviderIdAndValues) {
  auto nc = node_class();
  nc.spec.metadata.join_command =
      "curl -sfL https://get.k3s.io | K3S_URL={{ .Kubernetes.Endpoint }} "
      "K3S_TOKEN={{ .Values.k3sToken }} sh -s - --node-label host={{ .TargetHost }} "
      "--kubelet-arg provider-id={{ .ProviderID }} # {{ .NodeName }} {{ .VMID }}";
  auto plan = make_join_plan(claim(), nc, "kp1.2VCPU-2GB", "kp1", "abcdef.0123456789abcdef",
                             "https://k8s:6443", ca_pem, {{"k3sToken", "K10abc"}});
  auto command = cloudinit::render_join_command(plan, at("lab", "pve1", 20007));
  ASSERT_TRUE(command.ok()) << command.error().message;
  EXPECT_EQ(*command,
            "curl -sfL https://get.k3s.io | K3S_URL=https://k8s:6443 K3S_TOKEN=K10abc sh -s - "
            "--node-label host=pve1 --kubelet-arg provider-id=proxmox://lab/20007 # "
            "kp-node-x7k2p 20007");
}

TEST(AgentJoin, AJoinCommandThatFailsToRenderNamesTheFieldButNeverTheToken) {
  auto nc = node_class();
  nc.spec.metadata.join_command =
      "kube-join token={{ .Kubernetes.BootstrapToken }} {{ .Kubernetes.Endpoint.Nope }}";
  auto plan = make_join_plan(claim(), nc, "t", "t", "abcdef.0123456789abcdef", "https://k", "", {});
  auto command = cloudinit::render_join_command(plan, at("r", "pve1", 1));
  ASSERT_FALSE(command.ok());
  EXPECT_EQ(command.error().code, "template_error");
  EXPECT_NE(command.error().message.find("metadataOptions.joinCommand"), std::string::npos)
      << command.error().message;
  EXPECT_EQ(command.error().message.find("0123456789abcdef"), std::string::npos);
}

TEST(AgentJoin, NodeLabelsAreRenderedWithTheTargetHost) {
  auto nc = node_class();
  auto labels = cloudinit::render_node_labels(nc.spec.node_labels, nc.metadata.name, "pve3",
                                              "kp-node-x7k2p", "lab");
  ASSERT_TRUE(labels.ok()) << labels.error().message;
  EXPECT_EQ(labels->at("kp-host"), "pve3");
  EXPECT_EQ(labels->at("example.com/pool"), "kproximate");
}

TEST(AgentJoin, InvalidKproximateFieldsAreRefusedNamingTheField) {
  auto expect_refused = [](kube::proxmox_node_class nc, const std::string& field) {
    auto s = validate_kproximate_fields(nc);
    ASSERT_FALSE(s.ok()) << field;
    EXPECT_EQ(s.error().code, "invalid_node_class");
    EXPECT_NE(s.error().message.find(field), std::string::npos) << s.error().message;
    protocol::launch_request req;
    EXPECT_FALSE(apply_node_class(req, nc).ok()) << field;
  };
  EXPECT_TRUE(validate_kproximate_fields(node_class()).ok());
  auto nc = node_class();
  nc.spec.metadata.type = "qemuExec";
  expect_refused(nc, "metadataOptions.type");
  nc = node_class();
  nc.spec.metadata.type = "cdrom";
  nc.spec.metadata.join_command = "kube-join";
  expect_refused(nc, "metadataOptions.joinCommand");
  nc = node_class();
  nc.spec.metadata.join_command = "kube-join {{ .Kubernetes.Endpoint ";
  expect_refused(nc, "metadataOptions.joinCommand");
  nc = node_class();
  nc.spec.node_labels["bad key!"] = "x";
  expect_refused(nc, "nodeLabels[\"bad key!\"]");
  nc = node_class();
  nc.spec.node_labels["topology.kubernetes.io/zone"] = "{{ .TargetHost }}";
  expect_refused(nc, "nodeLabels[\"topology.kubernetes.io/zone\"]");
  nc = node_class();
  nc.spec.node_labels["kp-host"] = "{{ .TargetHost";
  expect_refused(nc, "nodeLabels[\"kp-host\"]");
  nc = node_class();
  nc.spec.node_labels["kp-host"] = "host {{ .TargetHost }}";
  expect_refused(nc, "nodeLabels[\"kp-host\"]");
  nc = node_class();
  nc.spec.ssh_keys = {"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG me@laptop", "not a key"};
  expect_refused(nc, "sshKeys[1]");
  nc = node_class();
  nc.spec.metadata.type = "cdrom";
  nc.spec.ssh_keys = {"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG me,you"};
  expect_refused(nc, "sshKeys[0]");
}

TEST(AgentJoin, SshKeysGoToProxmoxUnlessTheUserDataCarriesThem) {
  auto nc = node_class();
  nc.spec.ssh_keys = {"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG me@laptop",
                      "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ== ops key"};
  protocol::launch_request req;
  ASSERT_TRUE(apply_node_class(req, nc).ok());
  EXPECT_EQ(req.ssh_keys, nc.spec.ssh_keys);
  nc.spec.metadata.type = "cdrom";
  protocol::launch_request iso_req;
  ASSERT_TRUE(apply_node_class(iso_req, nc).ok());
  EXPECT_TRUE(iso_req.ssh_keys.empty());
  std::map<std::string, std::string> values{{"SSHAuthorizedKeys", "ssh-ed25519 AAAA old"}};
  add_ssh_keys_to_values(values, nc.spec.ssh_keys);
  EXPECT_EQ(values.at("SSHAuthorizedKeys"),
            "ssh-ed25519 AAAA old,ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG me@laptop,"
            "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ== ops key");
}

TEST(AgentJoin, AtRegistrationOnlyTheNodeLabelsTheNodeLacksAreApplied) {
  auto c = claim();
  c.metadata.labels["topology.kubernetes.io/zone"] = "pve2";
  kube::node node;
  node.metadata.labels["example.com/pool"] = "kproximate";
  node.metadata.labels["kp-host"] = "pve9";
  auto apply = node_labels_to_apply(node, c, node_class());
  EXPECT_EQ(apply, (std::map<std::string, std::string>{{"kp-host", "pve2"}}));
  node.metadata.labels["kp-host"] = "pve2";
  EXPECT_TRUE(node_labels_to_apply(node, c, node_class()).empty());
}

// kproximate's kpNodeCores=2 / kpNodeMemory=2048 as docs/migrate-from-kproximate.md writes them:
// one type in INSTANCE_TYPES_FILE. Whatever is pending, every new node has that size, and the
// number of nodes follows the pods that fit (not kproximate's raw "requested / node size").
TEST(FixedSizeNodes, AnInstanceTypesFileWithOneSizeGivesEveryNodeThatSize) {
  auto types = config::parse_instance_types_file(R"([{"name": "kp1.2VCPU-2GB",
      "capacity": {"cpu": "2", "memory": "2Gi", "ephemeral-storage": "30Gi", "pods": "110"},
      "overhead": {"KubeReserved": {"cpu": "50m", "memory": "256Mi"},
                   "SystemReserved": {"cpu": "10m", "memory": "64Mi"},
                   "EvictionThreshold": {"memory": "100Mi"}}}])");
  ASSERT_TRUE(types.ok()) << types.error().message;
  ASSERT_EQ(types->size(), 1u);
  EXPECT_EQ(types->front().vm_cpus, 2);
  EXPECT_EQ(types->front().vm_memory_bytes, std::int64_t{2048} << 20);
  instance_types::build_offerings(*types, {{"lab", "pve1", 32, std::int64_t{64} << 30, true},
                                           {"lab", "pve2", 32, std::int64_t{64} << 30, true}});

  scheduling::snapshot snap;
  snap.instance_types = *types;
  model::nodepool pool;
  pool.name = "kp-node";
  pool.template_.node_class = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass", "kproximate"};
  snap.nodepools.push_back(pool);
  // Three pods of 900m / 512Mi: two fit on one 2-vCPU node (1940m allocatable), so 2 nodes.
  for (int i = 0; i < 3; ++i) {
    model::pod p;
    p.name = "web-" + std::to_string(i);
    p.namespace_ = "default";
    p.uid = "uid-" + std::to_string(i);
    model::container c;
    c.name = "app";
    c.requests = *model::parse_resource_list({{"cpu", "900m"}, {"memory", "512Mi"}});
    p.containers.push_back(c);
    snap.pods.push_back(p);
  }
  auto plan = scheduling::provision(snap);
  EXPECT_TRUE(plan.errors.empty());
  ASSERT_EQ(plan.nodeclaims.size(), 2u);
  for (const auto& nc : plan.nodeclaims) {
    EXPECT_EQ(scheduling::instance_type_names(nc, snap), std::vector<std::string>{"kp1.2VCPU-2GB"});
  }
  // The claim's launch picks the same single size.
  kube::node_claim c = claim();
  c.spec.resource_requests = {{"cpu", "1800m"}, {"memory", "1Gi"}};
  auto type = cheapest_instance_type(*types, c, "lab");
  ASSERT_TRUE(type.ok()) << type.error().message;
  EXPECT_EQ(type->name, "kp1.2VCPU-2GB");
  // A pod bigger than the one size is refused, with a reason (kproximate skipped it silently).
  snap.pods.resize(1);
  snap.pods[0].containers[0].requests = *model::parse_resource_list({{"cpu", "3"}});
  auto big = scheduling::provision(snap);
  EXPECT_TRUE(big.nodeclaims.empty());
  ASSERT_EQ(big.errors.size(), 1u);
  EXPECT_FALSE(big.errors[0].reason.empty());
}

}  // namespace
}  // namespace kp::actors::nodeclaim
