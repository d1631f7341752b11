// kproximate's model against real kube-sim and pve-sim processes: guestAgent node classes join
// through the guest agent's exec without an ISO, label the node with its host, spread a burst
// over the hosts, fail with JoinFailed when the agent never answers, and the API server refuses
// bad kproximate fields naming them.
#include "test/actors/nodeclaim/nodeclaim_sims_fixture.hpp"

namespace kp::actors::nodeclaim_sims {
namespace {

// kproximate's model (docs/migrate-from-kproximate.md): a guestAgent node class with a templated
// host label and an SSH key. The VM gets no ISO; the join runs through agent exec.
constexpr const char* kproximate_class = R"(apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: kproximate}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: k8s}
  metadataOptions: {type: guestAgent}
  nodeLabels:
    kp-host: "{{ .TargetHost }}"
    example.com/pool: kproximate
  sshKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG me@laptop"]
)";

TEST_F(NodeClaimSims, AGuestAgentNodeClassJoinsThroughAgentExecWithoutAnIsoAndLabelsTheHost) {
  kubectl({"apply", "-f", "-"}, kproximate_class);
  ASSERT_EQ(sim_call("DELETE", "/sim/v1/stats")->status, 200);
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("kproximate-a1", "kproximate"));
  auto done = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "kproximate-a1");
        const auto* n = cluster_snapshot::find(s.nodes, "kproximate-a1");
        return c != nullptr && n != nullptr && is_true(c->status.conditions, "Initialized") &&
               n->metadata.labels.count("kp-host") == 1;
      },
      90s);
  ASSERT_TRUE(done) << "the guest-agent claim never became Initialized with its host label";
  const auto* claim = cluster_snapshot::find(done->node_claims, "kproximate-a1");
  const auto* node = cluster_snapshot::find(done->nodes, "kproximate-a1");
  auto zone = claim->metadata.labels.at("topology.kubernetes.io/zone");
  EXPECT_EQ(node->metadata.labels.at("kp-host"), zone);
  EXPECT_EQ(node->metadata.labels.at("example.com/pool"), "kproximate");
  EXPECT_EQ(node->spec.provider_id, claim->status.provider_id);
  for (const auto& t : node->spec.taints) EXPECT_NE(t.key, "karpenter.sh/unregistered");

  auto stats = pve_stats();
  EXPECT_EQ(stats["POST /nodes/{node}/storage/{storage}/upload"], 0) << "no ISO with guestAgent";
  EXPECT_EQ(stats["POST /nodes/{node}/qemu/{vmid}/agent/exec"], 1);
  EXPECT_GE(stats["POST /nodes/{node}/qemu/{vmid}/agent/ping"], 1);
  auto vms = vms_named("kproximate-a1");
  ASSERT_EQ(vms.size(), 1u);
  EXPECT_EQ(vms[0].node, zone);
  auto config = await<proxmox::vm_config>(
      [&](auto cb) { pve_client_->vm_config(vms[0].node, vms[0].vmid, cb); });
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->drives.count("ide2"), 0u);
  ASSERT_TRUE(config->sshkeys.has_value());
  EXPECT_EQ(*config->sshkeys, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG me@laptop");
}

TEST_F(NodeClaimSims, ABurstOfKproximateClaimsJoinsThroughTheAgentSpreadOverTheHosts) {
  // kproximate's burst: three fixed-size nodes at once, spread (P's default strategy), each
  // joined through the guest agent and labelled with its own host.
  kubectl({"apply", "-f", "-"}, kproximate_class);
  kubectl({"patch", "proxmoxnodeclass", "kproximate", "--type=merge", "-p",
           R"({"spec":{"placementStrategy":{"zoneBalance":"Spread"}}})"});
  ASSERT_EQ(sim_call("DELETE", "/sim/v1/stats")->status, 200);
  start_actors();
  std::vector<std::string> names{"burst-1", "burst-2", "burst-3"};
  for (const auto& n : names) kubectl({"apply", "-f", "-"}, claim_yaml(n, "kproximate"));
  auto done = drive(
      [&names](const cluster_snapshot& s) {
        for (const auto& n : names) {
          const auto* c = cluster_snapshot::find(s.node_claims, n);
          const auto* node = cluster_snapshot::find(s.nodes, n);
          if (c == nullptr || node == nullptr || !is_true(c->status.conditions, "Initialized") ||
              node->metadata.labels.count("kp-host") == 0) {
            return false;
          }
        }
        return true;
      },
      120s);
  ASSERT_TRUE(done) << "the burst never became three initialized nodes";
  std::set<std::string> hosts;
  for (const auto& n : names) {
    const auto* node = cluster_snapshot::find(done->nodes, n);
    const auto* claim = cluster_snapshot::find(done->node_claims, n);
    EXPECT_EQ(node->metadata.labels.at("kp-host"),
              claim->metadata.labels.at("topology.kubernetes.io/zone"));
    hosts.insert(node->metadata.labels.at("kp-host"));
    EXPECT_EQ(vms_named(n).size(), 1u);
  }
  EXPECT_EQ(hosts.size(), 3u) << "Spread puts one VM on each of the three hosts";
  auto stats = pve_stats();
  EXPECT_EQ(stats["POST /nodes/{node}/qemu/{vmid}/agent/exec"], 3);
  EXPECT_EQ(stats["POST /nodes/{node}/storage/{storage}/upload"], 0);
}

TEST_F(NodeClaimSims, AJoinCommandWithoutLabelsStillGivesTheNodeItsHostLabelAtRegistration) {
  // A user's own command that passes no labels (as kproximate's did): the Node registers
  // without kp-host and the registration adds it, rendered for the VM's host.
  kubectl({"apply", "-f", "-"}, R"(apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: ownjoin}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: k8s}
  metadataOptions:
    type: guestAgent
    joinCommand: >-
      kube-join server={{ .Kubernetes.Endpoint }} token={{ .Kubernetes.BootstrapToken }}
      ca={{ .Kubernetes.CA }} taints={{ .Kubernetes.Taints }}
  nodeLabels: {kp-host: "{{ .TargetHost }}"}
)");
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("ownjoin-b2", "ownjoin"));
  auto done = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "ownjoin-b2");
        const auto* n = cluster_snapshot::find(s.nodes, "ownjoin-b2");
        return c != nullptr && n != nullptr && is_true(c->status.conditions, "Registered") &&
               n->metadata.labels.count("kp-host") == 1;
      },
      90s);
  ASSERT_TRUE(done) << "the Node never got its kp-host label";
  const auto* claim = cluster_snapshot::find(done->node_claims, "ownjoin-b2");
  const auto* node = cluster_snapshot::find(done->nodes, "ownjoin-b2");
  EXPECT_EQ(node->metadata.labels.at("kp-host"),
            claim->metadata.labels.at("topology.kubernetes.io/zone"));
}

TEST_F(NodeClaimSims, AGuestAgentThatNeverAnswersFailsTheLaunchWithJoinFailed) {
  kubectl({"apply", "-f", "-"}, kproximate_class);
  auto f = sim_call("PUT", "/sim/v1/faults",
                    R"({"errors":[{"path":"/nodes/{node}/qemu/{vmid}/agent/ping","method":"POST",)"
                    R"("rate":1.0,"status":500,"message":"QEMU guest agent is not running"}]})");
  ASSERT_TRUE(f.ok() && f->status == 200);
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("kproximate-mute", "kproximate"));
  auto failed = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "kproximate-mute");
        const auto* l = c == nullptr ? nullptr : condition_of(c->status.conditions, "Launched");
        return l != nullptr && l->status == "False" && l->reason == "JoinFailed";
      },
      60s);
  ASSERT_TRUE(failed) << "the claim never showed Launched=False JoinFailed";
  const auto* l = condition_of(
      cluster_snapshot::find(failed->node_claims, "kproximate-mute")->status.conditions,
      "Launched");
  EXPECT_NE(l->message.find("did not answer within 3s"), std::string::npos) << l->message;
  EXPECT_TRUE(events_->has("kproximate-mute", "LaunchFailed"));
  EXPECT_EQ(cluster_snapshot::find(failed->nodes, "kproximate-mute"), nullptr);
  // The failed VM was removed before the reply; a retry may be cloning another one now, but
  // never more than one at a time.
  EXPECT_LE(vms_named("kproximate-mute").size(), 1u);
}

TEST_F(NodeClaimSims, TheApiServerRefusesBadKproximateFieldsNamingThem) {
  auto refused = [&](const std::string& spec_tail, const std::string& field) {
    auto r =
        kube_->kubectl({"apply", "-f", "-"}, R"(apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: refused}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: k8s}
)" + spec_tail);
    EXPECT_NE(r.exit_code, 0) << spec_tail;
    EXPECT_NE(r.err.find(field), std::string::npos) << r.err;
  };
  refused("  metadataOptions: {type: qemuExec}\n", "spec.metadataOptions.type");
  refused("  sshKeys: [\"not a key\"]\n", "spec.sshKeys[0]");
  refused("  metadataOptions: {type: guestAgent, joinCommand: \"\"}\n",
          "spec.metadataOptions.joinCommand");
  refused("  nodeLabels: {kp-host: {nested: 1}}\n", "spec.nodeLabels.kp-host");
  auto ok = kube_->kubectl({"apply", "-f", "-"}, kproximate_class);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

}  // namespace
}  // namespace kp::actors::nodeclaim_sims
