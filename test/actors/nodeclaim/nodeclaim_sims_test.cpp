// The NodeClaim lifecycle and the node class status against real kube-sim and pve-sim
// processes, with cdrom (NoCloud ISO) node classes: a NodeClaim becomes a VM with our mark whose
// guest joins kube-sim through the ISO's bootstrap token, and the claim is Launched, Registered
// and Initialized with the token gone and the unregistered taint removed; a VM that never joins
// loses its claim after a shortened REGISTRATION_TIMEOUT; a node class naming an unknown template
// gets InstanceTemplateReady=False with a clear message and no VM is made.
#include <cstdio>

#include "test/actors/nodeclaim/nodeclaim_sims_fixture.hpp"

namespace kp::actors::nodeclaim_sims {
namespace {

TEST_F(NodeClaimSims, AClaimBecomesAMarkedVmWhoseGuestJoinsAndTheClaimIsInitialized) {
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("default-x7k2p", "default"));
  auto done = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "default-x7k2p");
        if (c == nullptr) return false;
        const auto& cs = c->status.conditions;
        return is_true(cs, "Launched") && is_true(cs, "Registered") && is_true(cs, "Initialized") &&
               is_true(cs, "Ready") && (!s.bootstrap_tokens || s.bootstrap_tokens->empty());
      },
      90s);
  ASSERT_TRUE(done) << "the claim never became Launched, Registered and Initialized";
  const auto* claim = cluster_snapshot::find(done->node_claims, "default-x7k2p");
  EXPECT_EQ(claim->status.provider_id.rfind("proxmox://pve-sim/", 0), 0u);
  EXPECT_EQ(claim->status.node_name, "default-x7k2p");
  EXPECT_FALSE(claim->status.capacity.empty());
  EXPECT_FALSE(claim->status.allocatable.empty());
  EXPECT_EQ(claim->status.image_id, "k8s-template");
  EXPECT_EQ(claim->metadata.labels.at("karpenter.sh/capacity-type"), "on-demand");
  EXPECT_EQ(claim->metadata.labels.at("topology.kubernetes.io/region"), "pve-sim");
  EXPECT_EQ(claim->metadata.labels.at("karpenter.proxmox.sinextra.dev/proxmoxnodeclass"),
            "default");
  EXPECT_FALSE(claim->metadata.labels.at("topology.kubernetes.io/zone").empty());
  EXPECT_FALSE(claim->metadata.labels.at("node.kubernetes.io/instance-type").empty());
  EXPECT_NE(std::find(claim->metadata.finalizers.begin(), claim->metadata.finalizers.end(),
                      "karpenter.sh/termination"),
            claim->metadata.finalizers.end());

  const auto* node = cluster_snapshot::find(done->nodes, "default-x7k2p");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->spec.provider_id, claim->status.provider_id);
  for (const auto& t : node->spec.taints) EXPECT_NE(t.key, "karpenter.sh/unregistered");
  EXPECT_NE(std::find(node->metadata.finalizers.begin(), node->metadata.finalizers.end(),
                      "karpenter.sh/termination"),
            node->metadata.finalizers.end());
  EXPECT_EQ(node->metadata.labels.at("karpenter.sh/initialized"), "true");
  EXPECT_EQ(node->metadata.labels.at("karpenter.sh/registered"), "true");
  EXPECT_EQ(node->metadata.labels.at("karpenter.sh/nodepool"), "default");

  // The VM carries our mark; its ISO is detached once the node is initialized.
  auto vms = vms_named("default-x7k2p");
  ASSERT_EQ(vms.size(), 1u);
  bool detached = false;
  auto deadline = std::chrono::steady_clock::now() + 30s;
  std::optional<ownership::ownership_mark> mark;
  while (std::chrono::steady_clock::now() < deadline) {
    auto config = await<proxmox::vm_config>(
        [&](auto cb) { pve_client_->vm_config(vms[0].node, vms[0].vmid, cb); });
    ASSERT_TRUE(config.ok()) << config.error().message;
    ASSERT_TRUE(config->description.has_value());
    mark = ownership::parse_ownership_mark(*config->description);
    if (config->drives.count("ide2") == 0) {
      detached = true;
      break;
    }
    // The actor releases the ISO on the snapshot that shows the claim initialized.
    drive([](const cluster_snapshot&) { return false; }, 1s);
  }
  ASSERT_TRUE(mark.has_value());
  EXPECT_EQ(mark->cluster, "test-cluster");
  EXPECT_EQ(mark->nodeclaim, "default-x7k2p");
  EXPECT_EQ(mark->nodepool, "default");
  EXPECT_TRUE(detached) << "the cloud-init ISO stayed attached after initialization";
  EXPECT_GE(counter("karpenter_nodes_created_total"), 1);
  EXPECT_TRUE(events_->has("default-x7k2p", "Launched"));
  EXPECT_TRUE(events_->has("default-x7k2p", "Registered"));
  bool timed = false;
  for (auto& family : registry_.Collect()) {
    if (family.name != "karpenter_cloudprovider_duration_seconds") continue;
    for (auto& m : family.metric) {
      timed = timed || m.histogram.sample_count >= 1;
    }
  }
  EXPECT_TRUE(timed) << "karpenter_cloudprovider_duration_seconds has no sample";

  // Level-triggered: more snapshots of the finished claim change nothing.
  auto before = cluster_snapshot::find(take_snapshot()->node_claims, "default-x7k2p")
                    ->metadata.resource_version;
  drive([](const cluster_snapshot&) { return false; }, 2s);
  auto after = cluster_snapshot::find(take_snapshot()->node_claims, "default-x7k2p")
                   ->metadata.resource_version;
  EXPECT_EQ(before, after);
  EXPECT_EQ(vms_named("default-x7k2p").size(), 1u);
}

TEST_F(NodeClaimSims, ChangingTheNodeClassTagsUpdatesTheRunningVmInPlace) {
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("default-tagged", "default"));
  auto initialized = [](const cluster_snapshot& s) {
    const auto* c = cluster_snapshot::find(s.node_claims, "default-tagged");
    return c != nullptr && is_true(c->status.conditions, "Initialized");
  };
  ASSERT_TRUE(drive(initialized, 90s)) << "the claim never became Initialized";
  auto vms = vms_named("default-tagged");
  ASSERT_EQ(vms.size(), 1u);

  kubectl({"patch", "proxmoxnodeclass", "default", "--type=merge", "-p",
           R"({"spec":{"tags":["gpu-rack","k8s"]}})"});
  bool updated = false;
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!updated && std::chrono::steady_clock::now() < deadline) {
    drive([](const cluster_snapshot&) { return false; }, 1s);
    auto config = await<proxmox::vm_config>(
        [&](auto cb) { pve_client_->vm_config(vms[0].node, vms[0].vmid, cb); });
    ASSERT_TRUE(config.ok()) << config.error().message;
    const auto& tags = config->tags;
    updated = std::find(tags.begin(), tags.end(), "gpu-rack") != tags.end() &&
              std::find(tags.begin(), tags.end(), "karpenter") != tags.end();
  }
  EXPECT_TRUE(updated) << "the VM's tags never followed the node class";
  EXPECT_EQ(vms_named("default-tagged").size(), 1u) << "an in-place update must not replace the VM";
}

// Runs a command and returns its standard output ("" when it cannot run).
std::string output_of(const std::string& command) {
  std::string out;
  if (FILE* p = ::popen(command.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

TEST_F(NodeClaimSims, TheCdromIsAnIso9660ImageThatIsoinfoReadsWithTheRenderedCloudInit) {
  if (output_of("command -v isoinfo").empty()) GTEST_SKIP() << "isoinfo (genisoimage) is missing";
  // The guest cannot reach this endpoint, so it never joins and the ISO stays attached.
  ctx_.cluster_endpoint = "https://127.0.0.1:9";
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("default-iso", "default"));
  auto launched = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "default-iso");
        return c != nullptr && is_true(c->status.conditions, "Launched");
      },
      60s);
  ASSERT_TRUE(launched) << "the claim never launched";
  const auto* claim = cluster_snapshot::find(launched->node_claims, "default-iso");
  const auto& provider_id = claim->status.provider_id;
  // The ISO's name carries the cluster's tag, the VMID and the NodeClaim.
  auto parsed = protocol::parse_provider_id(provider_id);
  ASSERT_TRUE(parsed.has_value()) << provider_id;
  auto name = ownership::iso_file_name("test-cluster", parsed->vmid, "default-iso");
  fs::path iso;
  for (const auto& entry : fs::recursive_directory_iterator(pve_data_)) {
    if (entry.path().filename() == name) iso = entry.path();
  }
  ASSERT_FALSE(iso.empty()) << "no " << name << " under " << pve_data_;

  auto info = output_of("isoinfo -d -i '" + iso.string() + "'");
  EXPECT_NE(info.find("Volume id: cidata"), std::string::npos) << info;
  auto user_data = output_of("isoinfo -R -x /user-data -i '" + iso.string() + "'");
  EXPECT_EQ(user_data.rfind("#cloud-config", 0), 0u) << user_data;
  EXPECT_NE(user_data.find("/var/lib/kubelet/bootstrap-kubeconfig"), std::string::npos);
  EXPECT_NE(user_data.find("https://127.0.0.1:9"), std::string::npos) << "the endpoint";
  EXPECT_NE(user_data.find(provider_id), std::string::npos) << "the kubelet's providerID";
  auto meta_data = output_of("isoinfo -R -x /meta-data -i '" + iso.string() + "'");
  EXPECT_NE(meta_data.find("default-iso"), std::string::npos) << meta_data;
  // The token in the ISO is the one in the claim's bootstrap token Secret.
  ASSERT_TRUE(launched->bootstrap_tokens && launched->bootstrap_tokens->size() == 1u);
  const auto& token = *launched->bootstrap_tokens->begin()->second;
  ASSERT_EQ(token.metadata.name.rfind("bootstrap-token-", 0), 0u);
  auto token_id = token.metadata.name.substr(std::string("bootstrap-token-").size());
  EXPECT_NE(user_data.find("token: " + token_id + "."), std::string::npos)
      << "the bootstrap kubeconfig carries token " << token_id;
}

TEST_F(NodeClaimSims, AVmThatNeverJoinsLosesItsClaimAfterTheRegistrationTimeout) {
  // The guests are told an API server address where nothing listens: they never join.
  ctx_.cluster_endpoint = "https://127.0.0.1:9";
  ctx_.settings.registration_timeout = 4s;
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("default-nojoin", "default"));
  auto launched = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "default-nojoin");
        return c != nullptr && is_true(c->status.conditions, "Launched");
      },
      60s);
  ASSERT_TRUE(launched) << "the claim never launched";
  auto deleted = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "default-nojoin");
        return c == nullptr || c->metadata.deletion_timestamp.has_value();
      },
      30s);
  ASSERT_TRUE(deleted) << "the claim was not deleted after REGISTRATION_TIMEOUT";
  const auto* c = cluster_snapshot::find(deleted->node_claims, "default-nojoin");
  if (c != nullptr) {
    EXPECT_FALSE(is_true(c->status.conditions, "Registered"));
  }
  EXPECT_EQ(cluster_snapshot::find(deleted->nodes, "default-nojoin"), nullptr);
  EXPECT_GE(counter("karpenter_nodeclaims_disrupted_total"), 1);
}

TEST_F(NodeClaimSims, ANodeClassNamingAnUnknownTemplateIsNotReadyAndNoVmIsMade) {
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("bad-q9z", "bad"));
  auto done = drive(
      [](const cluster_snapshot& s) {
        const auto* nc = cluster_snapshot::find(s.node_classes, "bad");
        const auto* good = cluster_snapshot::find(s.node_classes, "default");
        const auto* claim = cluster_snapshot::find(s.node_claims, "bad-q9z");
        if (nc == nullptr || good == nullptr || claim == nullptr) return false;
        const auto* t = condition_of(nc->status.conditions, "InstanceTemplateReady");
        const auto* l = condition_of(claim->status.conditions, "Launched");
        return t != nullptr && t->status == "False" && l != nullptr && l->status == "False" &&
               is_true(good->status.conditions, "Ready");
      },
      60s);
  ASSERT_TRUE(done) << "the node class never became InstanceTemplateReady=False";
  const auto* nc = cluster_snapshot::find(done->node_classes, "bad");
  const auto* t = condition_of(nc->status.conditions, "InstanceTemplateReady");
  EXPECT_EQ(t->reason, "TemplateNotFound");
  EXPECT_NE(t->message.find("template k8s-templat not found on any online host of region "
                            "pve-sim; hosts have: k8s-template"),
            std::string::npos)
      << t->message;
  const auto* ready = condition_of(nc->status.conditions, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->status, "False");
  EXPECT_TRUE(is_true(nc->status.conditions, "InstanceMetadataOptionsReady"));
  const auto* claim = cluster_snapshot::find(done->node_claims, "bad-q9z");
  EXPECT_EQ(condition_of(claim->status.conditions, "Launched")->reason, "TemplateNotFound");
  EXPECT_TRUE(vms_named("bad-q9z").empty());
  EXPECT_TRUE(claim->status.provider_id.empty());
  // Unchanged conditions are not written again (more snapshots and an inventory tick).
  auto rv = nc->metadata.resource_version;
  drive([](const cluster_snapshot&) { return false; }, 3s);
  EXPECT_EQ(cluster_snapshot::find(take_snapshot()->node_classes, "bad")->metadata.resource_version,
            rv);
}

TEST_F(NodeClaimSims, AClaimThatCannotLaunchIsDeletedAfterTheLaunchTimeout) {
  ctx_.settings.launch_timeout = 2s;
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("lost-1", "missing"));
  auto deleted = drive(
      [](const cluster_snapshot& s) {
        const auto* c = cluster_snapshot::find(s.node_claims, "lost-1");
        return c == nullptr || c->metadata.deletion_timestamp.has_value();
      },
      30s);
  ASSERT_TRUE(deleted) << "the claim was not deleted after LAUNCH_TIMEOUT";
  const auto* c = cluster_snapshot::find(deleted->node_claims, "lost-1");
  if (c != nullptr) {
    const auto* l = condition_of(c->status.conditions, "Launched");
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->status, "False");
    EXPECT_EQ(l->reason, "NodeClassNotFound");
  }
  EXPECT_TRUE(vms_named("lost-1").empty());
  EXPECT_TRUE(events_->has("lost-1", "LaunchTimeout"));
  EXPECT_GE(counter("karpenter_cloudprovider_errors_total"), 1);
  EXPECT_GE(counter("karpenter_nodeclaims_disrupted_total"), 1);
}

TEST_F(NodeClaimSims, ABrokenTemplateSecretIsNamedOnTheNodeClassAndTheClaimAndNoVmIsMade) {
  kubectl({"apply", "-f", "-"}, R"(apiVersion: v1
kind: Secret
metadata: {name: tmpl, namespace: kube-system}
stringData:
  user-data: |
    #cloud-config
    hostname: {{ .Metadata.Hostname }
---
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: broken}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: k8s}
  metadataOptions:
    type: cdrom
    templatesRef: {name: tmpl, namespace: kube-system}
)");
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("broken-1", "broken"));
  auto done = drive(
      [](const cluster_snapshot& s) {
        const auto* nc = cluster_snapshot::find(s.node_classes, "broken");
        const auto* claim = cluster_snapshot::find(s.node_claims, "broken-1");
        if (nc == nullptr || claim == nullptr) return false;
        const auto* m = condition_of(nc->status.conditions, "InstanceMetadataOptionsReady");
        const auto* l = condition_of(claim->status.conditions, "Launched");
        return m != nullptr && m->status == "False" && l != nullptr && l->status == "False";
      },
      60s);
  ASSERT_TRUE(done);
  const auto* m =
      condition_of(cluster_snapshot::find(done->node_classes, "broken")->status.conditions,
                   "InstanceMetadataOptionsReady");
  EXPECT_EQ(m->reason, "TemplateError");
  EXPECT_NE(m->message.find("Secret kube-system/tmpl key user-data: template: user-data:2"),
            std::string::npos)
      << m->message;
  const auto* l = condition_of(
      cluster_snapshot::find(done->node_claims, "broken-1")->status.conditions, "Launched");
  EXPECT_EQ(l->reason, "TemplateError");
  EXPECT_NE(l->message.find("node class broken"), std::string::npos) << l->message;
  EXPECT_NE(l->message.find("Secret kube-system/tmpl key user-data"), std::string::npos)
      << l->message;
  EXPECT_TRUE(vms_named("broken-1").empty());
}

TEST_F(NodeClaimSims, ATemplateSecretOutsideTemplateSecretNamespacesIsRefusedWithTheSameWords) {
  kubectl({"apply", "-f", "-"}, R"(apiVersion: v1
kind: Namespace
metadata: {name: payments}
---
apiVersion: v1
kind: Secret
metadata: {name: db-password, namespace: payments}
stringData:
  user-data: "#cloud-config\n"
---
apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxNodeClass
metadata: {name: elsewhere}
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: k8s}
  metadataOptions:
    type: cdrom
    templatesRef: {name: db-password, namespace: payments}
)");
  start_actors();
  kubectl({"apply", "-f", "-"}, claim_yaml("elsewhere-1", "elsewhere"));
  auto done = drive(
      [](const cluster_snapshot& s) {
        const auto* nc = cluster_snapshot::find(s.node_classes, "elsewhere");
        const auto* claim = cluster_snapshot::find(s.node_claims, "elsewhere-1");
        if (nc == nullptr || claim == nullptr) return false;
        const auto* m = condition_of(nc->status.conditions, "InstanceMetadataOptionsReady");
        const auto* l = condition_of(claim->status.conditions, "Launched");
        return m != nullptr && m->status == "False" && l != nullptr && l->status == "False";
      },
      60s);
  ASSERT_TRUE(done);
  const auto* m =
      condition_of(cluster_snapshot::find(done->node_classes, "elsewhere")->status.conditions,
                   "InstanceMetadataOptionsReady");
  const std::string words =
      "templatesRef Secret payments/db-password is outside TEMPLATE_SECRET_NAMESPACES "
      "(kube-system): move the Secret there or add namespace payments to the setting";
  EXPECT_EQ(m->reason, "NotInTemplateSecretNamespaces");
  EXPECT_EQ(m->message, words);
  const auto* l = condition_of(
      cluster_snapshot::find(done->node_claims, "elsewhere-1")->status.conditions, "Launched");
  EXPECT_EQ(l->reason, "NotInTemplateSecretNamespaces");
  EXPECT_NE(l->message.find(words), std::string::npos) << l->message;
  EXPECT_TRUE(vms_named("elsewhere-1").empty());
}

TEST_F(NodeClaimSims, AGoProviderClaimIsAdoptedWithoutANewVmAndItsVmIsKept) {
  // A VM the Go provider made: no mark, its own description.
  proxmox::clone_request c;
  c.node = "pve1";
  c.source_vmid = 9001;
  c.new_vmid = 31000;
  c.name = "default-gogo";
  c.description = "Karpenter managed instance, class=default";
  c.full = false;
  auto task = await<proxmox::upid>([&](auto cb) { pve_client_->clone_vm(c, cb); });
  ASSERT_TRUE(task.ok()) << task.error().message;
  proxmox::task_wait_options w;
  w.initial_interval = 20ms;
  auto cloned = await<proxmox::task_status>([&](auto cb) { pve_client_->wait_task(*task, w, cb); });
  ASSERT_TRUE(cloned.ok()) << cloned.error().message;
  kubectl({"apply", "-f", "-"}, claim_yaml("default-gogo", "default"));
  auto patched = await<kube::node_claim>([&](auto cb) {
    kube_client_->patch<kube::node_claim>({"", "default-gogo"}, kube::patch_type::merge,
                                          R"({"status":{"providerID":"proxmox://pve-sim/31000"}})",
                                          cb, "status");
  });
  ASSERT_TRUE(patched.ok()) << patched.error().message;
  start_actors();
  auto done = drive(
      [](const cluster_snapshot& s) {
        const auto* claim = cluster_snapshot::find(s.node_claims, "default-gogo");
        return claim != nullptr && is_true(claim->status.conditions, "Launched");
      },
      30s);
  ASSERT_TRUE(done) << "the Go provider's claim was not adopted";
  const auto* claim = cluster_snapshot::find(done->node_claims, "default-gogo");
  EXPECT_EQ(claim->status.provider_id, "proxmox://pve-sim/31000");
  drive([](const cluster_snapshot&) { return false; }, 2s);
  auto vms = vms_named("default-gogo");
  ASSERT_EQ(vms.size(), 1u) << "adoption made another VM or removed the Go provider's";
  EXPECT_EQ(vms[0].vmid, 31000u);
}

}  // namespace
}  // namespace kp::actors::nodeclaim_sims
