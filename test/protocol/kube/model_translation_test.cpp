// Translation of decoded API objects into core/model types, and of model NodeClaims back.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "protocol/kube/codec.hpp"
#include "protocol/kube/model_translation.hpp"

namespace kp::kube {
namespace {

TEST(KubeModelTranslation, rfc3339TimestampsBecomeUnixMilliseconds) {
  EXPECT_EQ(parse_rfc3339_ms("1970-01-01T00:00:00Z"), std::optional<std::int64_t>(0));
  EXPECT_EQ(parse_rfc3339_ms("2025-01-02T03:04:05Z"), std::optional<std::int64_t>(1735787045000));
  EXPECT_EQ(parse_rfc3339_ms("2025-01-02T03:04:05.123456Z"),
            std::optional<std::int64_t>(1735787045123));
  EXPECT_EQ(parse_rfc3339_ms("2025-01-02T05:04:05+02:00"),
            std::optional<std::int64_t>(1735787045000));
  EXPECT_FALSE(parse_rfc3339_ms("2025-01-02 03:04:05").has_value());
  EXPECT_FALSE(parse_rfc3339_ms("2025-13-02T03:04:05Z").has_value());
  EXPECT_FALSE(parse_rfc3339_ms("").has_value());
  EXPECT_EQ(format_rfc3339(1735787045000), "2025-01-02T03:04:05Z");
}

TEST(KubeModelTranslation, aPendingPodKeepsItsRequestsAndConstraints) {
  auto p = decode<pod>(R"({"metadata": {"name": "web-1", "namespace": "default", "uid": "u1",
      "creationTimestamp": "2025-01-02T03:04:05Z", "labels": {"app": "web"},
      "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "rs", "controller": true}]},
    "spec": {"nodeSelector": {"kubernetes.io/arch": "amd64"},
      "containers": [{"name": "a", "resources": {"requests": {"cpu": "250m", "memory": "1Gi"}},
                      "ports": [{"containerPort": 80, "hostPort": 80}]}],
      "initContainers": [{"name": "sidecar", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m"}}}],
      "tolerations": [{"operator": "Exists"}],
      "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
          {"matchExpressions": [{"key": "karpenter.proxmox.sinextra.dev/cpu", "operator": "Gt", "values": ["2"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "preference": {"matchExpressions": [
          {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["pve1"]}]}}]},
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5,
          "podAffinityTerm": {"labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]},
                              "topologyKey": "kubernetes.io/hostname"}}]}},
      "topologySpreadConstraints": [{"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone",
          "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {"matchLabels": {"app": "web"}}}],
      "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-web-1"}}, {"name": "scratch", "ephemeral": {}}]},
    "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}})");
  ASSERT_TRUE(p.ok()) << p.error().message;
  auto m = to_model(*p);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->containers[0].requests.milli("cpu"), 250);
  EXPECT_EQ(m->containers[0].requests.milli("memory"), 1073741824LL * 1000);
  EXPECT_EQ(m->containers[0].host_ports[0].port, 80);
  EXPECT_EQ(m->containers[0].host_ports[0].protocol, "TCP");
  EXPECT_TRUE(m->init_containers[0].restartable);
  EXPECT_EQ(m->node_selector.at("kubernetes.io/arch"), "amd64");
  ASSERT_EQ(m->affinity.required.size(), 1u);
  EXPECT_EQ(m->affinity.required[0].match_expressions[0].op, model::selector_operator::gt);
  EXPECT_EQ(m->affinity.preferred[0].weight, 10);
  EXPECT_EQ(m->pod_anti_affinity.preferred[0].term.topology_key, "kubernetes.io/hostname");
  EXPECT_EQ(m->topology_spread[0].when, model::when_unsatisfiable::schedule_anyway);
  EXPECT_EQ(m->topology_spread[0].max_skew, 2);
  EXPECT_EQ(m->volumes[0].claim_name, "data-web-1");
  EXPECT_EQ(m->volumes[1].claim_name, "web-1-scratch");
  EXPECT_TRUE(m->owners[0].controller);
  EXPECT_EQ(m->creation_unix_ms, 1735787045000);
  EXPECT_TRUE(m->unschedulable);
  EXPECT_EQ(m->tolerations[0].op, "Exists");
}

TEST(KubeModelTranslation, aRunningPodCarriesItsStartTimeAndAPendingOneNone) {
  auto running = decode<pod>(R"({"metadata": {"name": "job", "namespace": "default",
      "creationTimestamp": "2025-01-02T03:04:05Z"}, "spec": {"containers": [{"name": "a"}]},
    "status": {"phase": "Running", "startTime": "2025-01-02T03:09:05Z"}})");
  ASSERT_TRUE(running.ok()) << running.error().message;
  auto m = to_model(*running);
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_TRUE(m->start_unix_ms.has_value());
  EXPECT_EQ(*m->start_unix_ms, 1735787345000);
  auto pending = decode<pod>(R"({"metadata": {"name": "job", "namespace": "default"},
    "spec": {"containers": [{"name": "a"}]}, "status": {"phase": "Pending"}})");
  ASSERT_TRUE(pending.ok()) << pending.error().message;
  auto n = to_model(*pending);
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_FALSE(n->start_unix_ms.has_value());
}

TEST(KubeModelTranslation, aMalformedQuantityNamesThePodAndTheField) {
  auto p = decode<pod>(R"({"metadata": {"name": "bad", "namespace": "ns"},
      "spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": "1.2.3"}}}]}})");
  ASSERT_TRUE(p.ok());
  auto m = to_model(*p);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, "invalid_quantity");
  EXPECT_NE(m.error().message.find("Pod ns/bad spec.containers[0].resources.requests"),
            std::string::npos)
      << m.error().message;
}

TEST(KubeModelTranslation, aPodCarriesWhatItsDrainReadsPriorityClassGracePeriodAndDeletionTime) {
  auto p = decode<pod>(R"({"metadata": {"name": "dns", "namespace": "kube-system",
      "deletionTimestamp": "2025-01-02T03:09:05Z"},
    "spec": {"containers": [{"name": "a"}], "priorityClassName": "system-cluster-critical",
      "terminationGracePeriodSeconds": 45}})");
  ASSERT_TRUE(p.ok()) << p.error().message;
  auto m = to_model(*p);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->priority_class_name, "system-cluster-critical");
  EXPECT_EQ(m->termination_grace_seconds, std::optional<std::int64_t>(45));
  EXPECT_TRUE(m->terminating);
  EXPECT_EQ(m->deletion_unix_ms, std::optional<std::int64_t>(1735787345000));
}

TEST(KubeModelTranslation, aPodThatCannotBeTranslatedInFullStillHasItsNameOwnersAndState) {
  auto p = decode<pod>(R"({"metadata": {"name": "bad", "namespace": "ns", "uid": "u-1",
      "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "rs"}]},
    "spec": {"nodeName": "n-1", "containers": [{"name": "a", "resources": {"requests": {"cpu": "1.2.3"}}}]},
    "status": {"phase": "Running"}})");
  ASSERT_TRUE(p.ok());
  std::optional<kp::error> invalid;
  auto m = to_model(*p, nullptr, invalid);
  ASSERT_TRUE(invalid.has_value());
  EXPECT_EQ(invalid->code, "invalid_quantity");
  EXPECT_EQ(m.uid, "u-1");
  EXPECT_EQ(m.node_name, "n-1");
  EXPECT_EQ(m.phase, "Running");
  ASSERT_EQ(m.owners.size(), 1u);
  EXPECT_EQ(m.owners[0].kind, "ReplicaSet");
  EXPECT_TRUE(m.containers.empty());
}

pod web_pod(const std::string& name, const std::string& cpu) {
  auto p = decode<pod>(R"({"metadata": {"name": ")" + name + R"(", "namespace": "default",
      "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "rs", "controller": true}]},
    "spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": ")" +
                       cpu + R"("}}}],
      "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"}],
      "volumes": [{"name": "scratch", "ephemeral": {}}, {"name": "data", "persistentVolumeClaim": {"claimName": "d"}}]}})");
  EXPECT_TRUE(p.ok()) << p.error().message;
  return *p;
}

TEST(KubeModelTranslation, modelsOfPodsWhoseObjectsShareAPartShareItsTranslation) {
  pod_part_models parts;
  auto a = web_pod("a", "250m");
  auto b = web_pod("b", "500m");
  // What the pod informer does with equal parts (shared_pod_parts): one value for both pods.
  b.spec.tolerations = a.spec.tolerations;
  b.metadata.owner_references = a.metadata.owner_references;
  b.spec.volumes = a.spec.volumes;
  auto ma = to_model(a, &parts);
  auto mb = to_model(b, &parts);
  ASSERT_TRUE(ma.ok() && mb.ok());
  EXPECT_TRUE(mb->tolerations.shares_items_with(ma->tolerations));
  EXPECT_TRUE(mb->owners.shares_items_with(ma->owners));
  EXPECT_FALSE(mb->containers.shares_items_with(ma->containers));
  EXPECT_EQ(mb->containers[0].requests.milli("cpu"), 500);
  // A generic ephemeral volume's claim is named after its pod: never shared.
  EXPECT_FALSE(mb->volumes.shares_items_with(ma->volumes));
  EXPECT_EQ(ma->volumes[0].claim_name, "a-scratch");
  EXPECT_EQ(mb->volumes[0].claim_name, "b-scratch");
  // Shared or not, the model is the one a translation without sharing makes.
  EXPECT_EQ(*mb, *to_model(b));
}

TEST(KubeModelTranslation, aPartWhosePodsAreGoneIsNeverMistakenForTheOneNowAtItsAddress) {
  pod_part_models parts;
  for (int i = 0; i < 3000; ++i) {
    // Each pod is gone before the next is made, so allocations reuse the same addresses.
    auto p = web_pod("p", std::to_string(i + 1) + "m");
    auto m = to_model(p, &parts);
    ASSERT_TRUE(m.ok());
    ASSERT_EQ(m->containers[0].requests.milli("cpu"), i + 1);
  }
  EXPECT_LT(parts.containers.size(), 3000u);  // entries of gone parts are swept
}

TEST(KubeModelTranslation, modelsOfPodsWithEqualLabelsShareOneLabelMap) {
  pod_part_models parts;
  auto a = web_pod("a", "250m");
  auto b = web_pod("b", "500m");
  a.metadata.labels = {{"app", "web"}, {"pod-template-hash", "5d8f"}};
  b.metadata.labels = a.metadata.labels;  // equal, decoded apart: not the same map
  auto c = web_pod("c", "250m");
  c.metadata.labels = {{"app", "web"}, {"pod-template-hash", "6e9a"}};
  auto ma = to_model(a, &parts);
  auto mb = to_model(b, &parts);
  auto mc = to_model(c, &parts);
  ASSERT_TRUE(ma.ok() && mb.ok() && mc.ok());
  EXPECT_TRUE(mb->labels.shares_entries_with(ma->labels));
  EXPECT_FALSE(mc->labels.shares_entries_with(ma->labels));
  EXPECT_EQ(mc->labels.at("pod-template-hash"), "6e9a");
  // Changing one model's labels leaves the others' alone.
  auto changed = *mb;
  changed.labels["app"] = "api";
  EXPECT_EQ(ma->labels.at("app"), "web");
  EXPECT_EQ(mb->labels.at("app"), "web");
  EXPECT_EQ(*mb, *to_model(b));
}

TEST(KubeModelTranslation, labelMapsNoPodHoldsAreDroppedFromTheInterningTable) {
  pod_part_models parts;
  for (int i = 0; i < 3000; ++i) {
    auto p = web_pod("p", "250m");
    p.metadata.labels = {{"churn", std::to_string(i)}};
    auto m = to_model(p, &parts);
    ASSERT_TRUE(m.ok());
    ASSERT_EQ(m->labels.at("churn"), std::to_string(i));
  }
  EXPECT_LT(parts.labels.size(), 3000u);
}

// Pods relabelled one at a time (a new label set per update) while many others stay: the table
// holds at most a quarter more entries than the pods hold, never twice as many.
TEST(KubeModelTranslation, aTableOfLabelSetsHoldsAtMostAQuarterMoreThanThePodsHold) {
  pod_part_models parts;
  std::vector<kp::model::shared_label_map> held;
  for (int i = 0; i < 8000; ++i) held.push_back(parts.labels.of({{"held", std::to_string(i)}}));
  std::size_t most = 0;
  for (int i = 0; i < 20000; ++i) {
    auto relabelled = parts.labels.of({{"churn", std::to_string(i)}});
    ASSERT_EQ(relabelled.at("churn"), std::to_string(i));
    most = std::max(most, parts.labels.size());
  }
  EXPECT_LE(most, 8000u + 8000u / 4 + 1);
  EXPECT_EQ(held.back().at("held"), "7999");
}

// Pods of different templates that carry equal affinities (decoded apart: not one API value)
// hold one set of terms; a different one is its own, and each reads as translated alone.
TEST(KubeModelTranslation, modelsOfPodsWithEqualAffinitiesShareTheirTerms) {
  auto with_affinity = [](const std::string& name, const std::string& zone_value) {
    auto p = decode<pod>(R"({"metadata": {"name": ")" + name + R"(", "namespace": "default"},
        "spec": {"containers": [{"name": "c"}], "affinity": {
          "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms":
            [{"matchExpressions": [{"key": "zone", "operator": "In", "values": [")" +
                         zone_value + R"("]}]}]}},
          "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "nginx"}},
             "topologyKey": "kubernetes.io/hostname"}]}}}})");
    EXPECT_TRUE(p.ok());
    return *p;
  };
  pod_part_models parts;
  auto a = with_affinity("a", "pve1");
  auto b = with_affinity("b", "pve1");
  auto c = with_affinity("c", "pve2");
  auto ma = to_model(a, &parts);
  auto mb = to_model(b, &parts);
  auto mc = to_model(c, &parts);
  ASSERT_TRUE(ma.ok() && mb.ok() && mc.ok());
  EXPECT_TRUE(mb->affinity.required.shares_items_with(ma->affinity.required));
  EXPECT_TRUE(mb->pod_anti_affinity.required.shares_items_with(ma->pod_anti_affinity.required));
  EXPECT_FALSE(mc->affinity.required.shares_items_with(ma->affinity.required));
  EXPECT_TRUE(mc->pod_anti_affinity.required.shares_items_with(ma->pod_anti_affinity.required));
  EXPECT_EQ(mc->affinity.required[0].match_expressions[0].values[0], "pve2");
  EXPECT_TRUE(ma->pod_affinity.empty());
  // Changing one model's terms leaves the others' alone.
  auto changed = *mb;
  changed.affinity.required[0].match_expressions[0].values[0] = "pve3";
  EXPECT_EQ(ma->affinity.required[0].match_expressions[0].values[0], "pve1");
  EXPECT_EQ(*mb, *to_model(b));
  EXPECT_EQ(*mc, *to_model(c));
}

TEST(KubeModelTranslation, affinitiesNoPodHoldsAreDroppedFromTheInterningTable) {
  pod_part_models parts;
  for (int i = 0; i < 3000; ++i) {
    auto p = decode<pod>(R"({"metadata": {"name": "p"}, "spec": {"affinity": {"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels":
          {"churn": ")" + std::to_string(i) +
                         R"("}}, "topologyKey": "zone"}]}}}})");
    ASSERT_TRUE(p.ok());
    auto m = to_model(*p, &parts);
    ASSERT_TRUE(m.ok());
    ASSERT_EQ(m->pod_affinity.required[0].selector->match_labels.at("churn"), std::to_string(i));
  }
  EXPECT_LT(parts.affinities.pod.size(), 3000u);
}

TEST(KubeModelTranslation, anUnknownOperatorIsAnError) {
  auto p = decode<pod>(R"({"metadata": {"name": "p"}, "spec": {"affinity": {"nodeAffinity": {
      "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "k", "operator": "Near", "values": ["x"]}]}]}}}}})");
  ASSERT_TRUE(p.ok());
  auto m = to_model(*p);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("matchExpressions[0].operator: unknown operator \"Near\""),
            std::string::npos)
      << m.error().message;
}

TEST(KubeModelTranslation, aNodeCarriesCapacityReadinessAndCsiLimits) {
  auto n = decode<node>(
      R"({"metadata": {"name": "w1", "labels": {"topology.kubernetes.io/zone": "pve1"}},
      "spec": {"providerID": "proxmox://r1/101", "unschedulable": true, "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
      "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}, "allocatable": {"cpu": "3800m", "memory": "7Gi", "pods": 110},
                 "conditions": [{"type": "Ready", "status": "True"}]}})");
  ASSERT_TRUE(n.ok());
  auto csi = decode<csi_node>(
      R"({"metadata": {"name": "w1"}, "spec": {"drivers": [{"name": "csi.proxmox", "allocatable": {"count": 24}}]}})");
  ASSERT_TRUE(csi.ok());
  auto m = to_model(*n, &*csi);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->allocatable.milli("cpu"), 3800);
  EXPECT_EQ(m->allocatable.milli("pods"), 110000);
  EXPECT_TRUE(m->ready);
  EXPECT_TRUE(m->unschedulable);
  EXPECT_EQ(m->taints[0].effect, "NoSchedule");
  EXPECT_EQ(m->volume_limits.at("csi.proxmox"), 24);
  EXPECT_EQ(m->provider_id, "proxmox://r1/101");
}

TEST(KubeModelTranslation, aNodePoolGetsKarpenterDefaultsWhereFieldsAreAbsent) {
  auto p = decode<node_pool>(R"({"metadata": {"name": "default", "uid": "np1"}, "spec": {
      "limits": {"cpu": "64", "memory": "512Gi"},
      "template": {"spec": {"nodeClassRef": {"group": "karpenter.proxmox.sinextra.dev", "kind": "ProxmoxNodeClass", "name": "default"},
                            "requirements": [{"key": "karpenter.proxmox.sinextra.dev/cpu", "operator": "Gte", "values": ["2"], "minValues": 1}]}}}})");
  ASSERT_TRUE(p.ok()) << p.error().message;
  auto m = to_model(*p);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->limits.milli("cpu"), 64000);
  EXPECT_EQ(m->template_.requirements[0].op, model::selector_operator::gte);
  EXPECT_EQ(m->template_.requirements[0].min_values, std::optional<int>(1));
  EXPECT_EQ(m->template_.expire_after, "720h");
  EXPECT_EQ(m->disruption.consolidation_policy, "WhenEmptyOrUnderutilized");
  ASSERT_EQ(m->disruption.budgets.size(), 1u);
  EXPECT_EQ(m->disruption.budgets[0].nodes, "10%");
  EXPECT_TRUE(m->ready);
  auto bad = decode<node_pool>(R"({"metadata": {"name": "x"}, "spec": {"limits": {"cpu": "lots"},
      "template": {"spec": {"nodeClassRef": {"group": "g", "kind": "k", "name": "n"}}}}})");
  ASSERT_TRUE(bad.ok());
  auto bm = to_model(*bad);
  ASSERT_FALSE(bm.ok());
  EXPECT_NE(bm.error().message.find("NodePool x spec.limits"), std::string::npos)
      << bm.error().message;
}

TEST(KubeModelTranslation, aModelNodeClaimBecomesAnApiObjectAndBack) {
  model::nodeclaim c;
  c.name = "default-x1";
  c.nodepool = "default";
  c.labels = {{"node.kubernetes.io/instance-type", "c1.2VCPU-4GB"}};
  c.requirements.push_back(
      {"kubernetes.io/arch", model::selector_operator::in, {"amd64"}, std::nullopt});
  c.requirements.push_back(
      {"karpenter.proxmox.sinextra.dev/cpu", model::selector_operator::lte, {"8"}, 2});
  c.requests.set("cpu", *model::parse_quantity("1500m"));
  c.requests.set("memory", *model::parse_quantity("2Gi"));
  c.startup_taints.push_back({"karpenter.sh/unregistered", "", "NoExecute"});
  c.node_class = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass", "default"};
  auto api = from_model(c);
  EXPECT_EQ(api.metadata.labels.at("karpenter.sh/nodepool"), "default");
  EXPECT_EQ(api.spec.requirements[1].operator_, "Lte");
  EXPECT_EQ(api.spec.resource_requests.at("cpu"), "1500m");
  EXPECT_EQ(api.spec.resource_requests.at("memory"), "2Gi");
  auto decoded = decode<node_claim>(encode(api));
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  auto back = to_model(*decoded);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->requirements, c.requirements);
  EXPECT_EQ(back->requests, c.requests);
  EXPECT_EQ(back->startup_taints, c.startup_taints);
  EXPECT_EQ(back->nodepool, "default");
}

// NodeClaims made alike (one pool, type and zone) share their models' labels, annotations and
// requirements; a claim in another zone has labels of its own; each reads as translated alone.
TEST(KubeModelTranslation, modelsOfNodeClaimsMadeAlikeShareLabelsAnnotationsAndRequirements) {
  auto claim = [](const std::string& name, const std::string& zone) {
    auto c = decode<node_claim>(R"({"metadata": {"name": ")" + name + R"(",
        "labels": {"karpenter.sh/nodepool": "default", "topology.kubernetes.io/zone": ")" +
                                zone + R"("},
        "annotations": {"karpenter.sh/nodepool-hash": "123"}},
      "spec": {"nodeClassRef": {"group": "karpenter.proxmox.sinextra.dev",
                                "kind": "ProxmoxNodeClass", "name": "default"},
        "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                         {"key": "karpenter.sh/nodepool", "operator": "In", "values": ["default"],
                          "minValues": 1}]}})");
    EXPECT_TRUE(c.ok());
    return *c;
  };
  nodeclaim_part_models parts;
  auto a = to_model(claim("a", "pve1"), &parts);
  auto b = to_model(claim("b", "pve1"), &parts);
  auto c = to_model(claim("c", "pve2"), &parts);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_TRUE(b->labels.shares_entries_with(a->labels));
  EXPECT_TRUE(b->annotations.shares_entries_with(a->annotations));
  EXPECT_TRUE(b->requirements.shares_items_with(a->requirements));
  EXPECT_FALSE(c->labels.shares_entries_with(a->labels));
  EXPECT_TRUE(c->requirements.shares_items_with(a->requirements));
  EXPECT_EQ(c->labels.at("topology.kubernetes.io/zone"), "pve2");
  EXPECT_EQ(a->requirements[1].min_values, std::optional<int>(1));
  EXPECT_EQ(*b, *to_model(claim("b", "pve1")));
  EXPECT_EQ(*c, *to_model(claim("c", "pve2")));
  // Changing one model's labels leaves the others' alone.
  auto changed = *b;
  changed.labels["topology.kubernetes.io/zone"] = "pve9";
  EXPECT_EQ(a->labels.at("topology.kubernetes.io/zone"), "pve1");
}

}  // namespace
}  // namespace kp::kube
