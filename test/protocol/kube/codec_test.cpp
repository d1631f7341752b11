// Decoding and encoding of the modelled objects: good objects, malformed ones (error values that
// name the field path), and round trips of the objects the controller writes.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "protocol/kube/api_status.hpp"
#include "protocol/kube/apps_v1.hpp"
#include "protocol/kube/certificates_v1.hpp"
#include "protocol/kube/codec.hpp"
#include "protocol/kube/coordination_v1.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/karpenter_v1.hpp"
#include "protocol/kube/policy_v1.hpp"
#include "protocol/kube/proxmox_v1alpha1.hpp"
#include "protocol/kube/storage_v1.hpp"

namespace kp::kube {
namespace {

constexpr const char* pod_json = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web-1", "namespace": "default", "uid": "u1", "resourceVersion": "42",
               "labels": {"app": "web"},
               "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                                    "uid": "rs1", "controller": true}],
               "managedFields": [{"manager": "kubectl"}]},
  "spec": {
    "nodeSelector": {"kubernetes.io/os": "linux"},
    "containers": [{"name": "app", "image": "nginx",
                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi", "nvidia.com/gpu": 1}},
                    "ports": [{"containerPort": 80, "hostPort": 8080}]}],
    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule",
                     "tolerationSeconds": 300}],
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "topology.kubernetes.io/zone",
                                                     "operator": "In", "values": ["pve1", "pve2"]}]}]}},
                 "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                     {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}},
    "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                   "whenUnsatisfiable": "DoNotSchedule",
                                   "labelSelector": {"matchLabels": {"app": "web"}}}],
    "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-web-1"}},
                {"name": "tmp", "emptyDir": {}}],
    "priority": 1000
  },
  "status": {"phase": "Pending",
             "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}
})";

TEST(KubeCodec, decodesAPodWithSchedulingConstraints) {
  auto p = decode<pod>(pod_json);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->metadata.name, "web-1");
  EXPECT_EQ(p->metadata.resource_version, "42");
  ASSERT_EQ(p->metadata.owner_references.size(), 1u);
  EXPECT_EQ(p->metadata.owner_references[0].controller, std::optional<bool>(true));
  ASSERT_EQ(p->spec.containers.size(), 1u);
  EXPECT_EQ(p->spec.containers[0].resources.requests.at("cpu"), "100m");
  EXPECT_EQ(p->spec.containers[0].resources.requests.at("nvidia.com/gpu"),
            "1");  // number kept as text
  EXPECT_EQ(p->spec.containers[0].ports[0].host_port, 8080);
  EXPECT_EQ(p->spec.tolerations[0].toleration_seconds, std::optional<std::int64_t>(300));
  ASSERT_TRUE(p->spec.affinity && p->spec.affinity->node_affinity &&
              p->spec.affinity->node_affinity->required);
  EXPECT_EQ(p->spec.affinity->node_affinity->required->node_selector_terms[0]
                .match_expressions[0]
                .values.size(),
            2u);
  ASSERT_TRUE(p->spec.affinity->pod_anti_affinity);
  EXPECT_EQ(p->spec.affinity->pod_anti_affinity->required[0].topology_key,
            "kubernetes.io/hostname");
  EXPECT_EQ(p->spec.topology_spread_constraints[0].max_skew, 1);
  EXPECT_EQ(p->spec.volumes[0].persistent_volume_claim, "data-web-1");
  EXPECT_TRUE(p->spec.volumes[1].empty_dir);
  EXPECT_EQ(p->spec.priority, std::optional<std::int64_t>(1000));
  EXPECT_EQ(p->status.conditions[0].reason, "Unschedulable");
}

TEST(KubeCodec, aMalformedFieldIsAnErrorNamingItsPath) {
  auto p = decode<pod>(R"({"spec": {"containers": [{"name": "a"}, {"name": 7}]}})");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, "invalid_object");
  EXPECT_EQ(p.error().message, "Pod spec.containers[1].name: expected a string, got a number");
}

TEST(KubeCodec, aMissingRequiredFieldIsNamed) {
  auto p = decode<pod>(R"({"spec": {"containers": [{"image": "x"}]}})");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, "Pod spec.containers[0].name: is required");
}

TEST(KubeCodec, wrongContainerTypesAreErrorsNotExceptions) {
  EXPECT_EQ(decode<pod>(R"({"spec": []})").error().message,
            "Pod spec: expected an object, got an array");
  EXPECT_EQ(decode<pod>(R"({"metadata": {"labels": {"a": 1}}})").error().message,
            "Pod metadata.labels.a: expected a string, got a number");
  EXPECT_EQ(decode<pod>(R"({"spec": {"priority": 1.5}})").error().message,
            "Pod spec.priority: expected an integer");
  EXPECT_EQ(decode<pod>(R"([1,2])").error().message, "Pod: expected an object, got an array");
  EXPECT_EQ(decode<node>(R"({"spec": {"unschedulable": "yes"}})").error().message,
            "Node spec.unschedulable: expected a boolean, got a string");
}

TEST(KubeCodec, malformedJsonIsAnInvalidJsonError) {
  auto p = decode<pod>(R"({"metadata": {"name": )");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, "invalid_json");
  EXPECT_FALSE(decode<pod>("").ok());
}

TEST(KubeCodec, everyTruncationOrByteFlipOfAPodIsAValueNeverACrash) {
  const std::string text = pod_json;
  for (std::size_t n = 0; n < text.size(); n += 3) {
    auto p = decode<pod>(text.substr(0, n));
    EXPECT_FALSE(p.ok());
  }
  std::size_t errors = 0;
  for (std::size_t i = 0; i < text.size(); i += 7) {
    for (char c : {'0', '"', '[', '{', 'n', ','}) {
      std::string mutated = text;
      mutated[i] = c;
      auto p = decode<pod>(mutated);
      if (!p.ok()) {
        ++errors;
        EXPECT_FALSE(p.error().message.empty());
      }
    }
  }
  EXPECT_GT(errors, 0u);
}

TEST(KubeCodec, nullFieldsAreTreatedAsAbsent) {
  auto p =
      decode<pod>(R"({"metadata": {"name": "a", "labels": null}, "spec": {"nodeName": null}})");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_TRUE(p->metadata.labels.empty());
}

TEST(KubeCodec, decodesANodeWithStatus) {
  auto n = decode<node>(R"({"metadata": {"name": "w1", "labels": {"kubernetes.io/hostname": "w1"}},
    "spec": {"providerID": "proxmox://r1/101", "taints": [{"key": "karpenter.sh/unregistered", "effect": "NoExecute"}]},
    "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": 110},
               "allocatable": {"cpu": "3800m"},
               "conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2025-01-01T00:00:00Z"}],
               "addresses": [{"type": "InternalIP", "address": "10.0.0.5"}],
               "nodeInfo": {"kubeletVersion": "v1.32.0", "architecture": "amd64"}}})");
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(n->spec.provider_id, "proxmox://r1/101");
  EXPECT_EQ(n->spec.taints[0].effect, "NoExecute");
  EXPECT_EQ(n->status.capacity.at("pods"), "110");
  EXPECT_EQ(n->status.conditions[0].last_heartbeat_time, "2025-01-01T00:00:00Z");
  EXPECT_EQ(n->status.node_info.architecture, "amd64");
}

TEST(KubeCodec, secretDataIsBase64DecodedAndReencoded) {
  auto s =
      decode<secret>(R"({"metadata": {"name": "bootstrap-token-abcdef", "namespace": "kube-system"},
      "type": "bootstrap.kubernetes.io/token", "data": {"token-id": "YWJjZGVm"}})");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->data.at("token-id").value, "abcdef");
  auto again = decode<secret>(encode(*s));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *s);
  secret empty_value;
  empty_value.data["empty"] = base64_bytes{};
  EXPECT_EQ(boost::json::parse(encode(empty_value)).at("data").at("empty"), "");
  auto bad = decode<secret>(R"({"data": {"token-id": "!!!"}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "Secret data.token-id: invalid base64");
}

TEST(KubeCodec, encodingWritesApiVersionKindAndOmitsEmptyFields) {
  lease l;
  l.metadata.name = "karpenter-leader";
  l.metadata.namespace_ = "kube-system";
  l.spec.holder_identity = "pod-a";
  l.spec.lease_duration_seconds = 15;
  l.spec.lease_transitions = 0;
  auto v = boost::json::parse(encode(l));
  EXPECT_EQ(v.at("apiVersion"), "coordination.k8s.io/v1");
  EXPECT_EQ(v.at("kind"), "Lease");
  EXPECT_EQ(v.at("spec").at("leaseTransitions"), 0);  // a set optional is written even when zero
  EXPECT_FALSE(v.at("spec").as_object().contains("renewTime"));
  EXPECT_FALSE(v.at("metadata").as_object().contains("labels"));
  auto back = decode<lease>(encode(l));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, l);
}

TEST(KubeCodec, anEmptyRequiredFieldIsWrittenBackSoTheObjectDecodesAgain) {
  // Found by fuzzing: "nodeClassRef": {..., "name": ""} decoded, then encoded without "name",
  // which the decoder refuses as missing.
  auto pool = decode<node_pool>(
      R"({"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"name":"p"},)"
      R"("spec":{"template":{"spec":{"nodeClassRef":{"group":"g","kind":"K","name":""}}}}})");
  ASSERT_TRUE(pool.ok()) << pool.error().message;
  auto again = decode<node_pool>(encode(*pool));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->spec.template_.spec.node_class_ref.kind, "K");
}

TEST(KubeCodec, nodeClaimRoundTrips) {
  node_claim c;
  c.metadata.name = "default-abc12";
  c.metadata.labels = {{"karpenter.sh/nodepool", "default"}};
  c.metadata.owner_references.push_back(
      {"karpenter.sh/v1", "NodePool", "default", "uid-1", true, true});
  c.metadata.finalizers = {"karpenter.sh/termination"};
  c.spec.requirements.push_back(
      {"node.kubernetes.io/instance-type", "In", {"c1.2VCPU-4GB"}, std::nullopt});
  c.spec.requirements.push_back({"karpenter.proxmox.sinextra.dev/cpu", "Gte", {"2"}, 1});
  c.spec.resource_requests = {{"cpu", "1500m"}, {"pods", "3"}};
  c.spec.node_class_ref = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass", "default"};
  c.spec.startup_taints.push_back({"karpenter.sh/unregistered", "", "NoExecute", ""});
  c.spec.expire_after = "720h";
  c.status.provider_id = "proxmox://r1/105";
  c.status.conditions.push_back(
      {"Launched", "True", "Launched", "", "2025-01-01T00:00:00Z", "", 1});
  auto text = encode(c);
  auto back = decode<node_claim>(text);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, c);
  auto v = boost::json::parse(text);
  EXPECT_EQ(v.at("spec").at("resources").at("requests").at("cpu"), "1500m");
  EXPECT_EQ(v.at("apiVersion"), "karpenter.sh/v1");
}

TEST(KubeCodec, aConditionAlwaysCarriesItsMessageEvenWhenEmpty) {
  // metav1.Condition requires message; upstream's CRDs refuse a condition without it.
  proxmox_node_class nc;
  nc.metadata.name = "default";
  nc.status.conditions.push_back({"Ready", "True", "Ready", "", "2025-01-01T00:00:00Z", "", 2});
  auto v = boost::json::parse(encode(nc));
  const auto& c = v.at("status").at("conditions").at(0).as_object();
  ASSERT_TRUE(c.contains("message"));
  EXPECT_EQ(c.at("message"), "");
  EXPECT_EQ(c.at("reason"), "Ready");
  EXPECT_EQ(c.at("observedGeneration"), 2);
  EXPECT_EQ(c.at("lastTransitionTime"), "2025-01-01T00:00:00Z");
}

TEST(KubeCodec, eventRoundTrips) {
  event e;
  e.metadata.generate_name = "default-abc12.";
  e.metadata.namespace_ = "default";
  e.involved_object = {"karpenter.sh/v1", "NodeClaim", "", "default-abc12", "uid-1", "", ""};
  e.reason = "Launched";
  e.message = "launched VM 105";
  e.type = "Normal";
  e.count = 1;
  e.source.component = "karpenter";
  auto back = decode<event>(encode(e));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, e);
}

TEST(KubeCodec, nodePoolDecodesTemplateDisruptionAndLimits) {
  auto p = decode<node_pool>(
      R"({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
    "spec": {"limits": {"cpu": "64", "memory": "512Gi"}, "weight": 10,
      "template": {"metadata": {"labels": {"team": "a"}},
                   "spec": {"nodeClassRef": {"group": "karpenter.proxmox.sinextra.dev", "kind": "ProxmoxNodeClass", "name": "default"},
                            "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"], "minValues": 1}],
                            "expireAfter": "Never"}},
      "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "30s",
                     "budgets": [{"nodes": "10%"}, {"nodes": "0", "schedule": "@daily", "duration": "10m", "reasons": ["Drifted"]}]}},
    "status": {"resources": {"cpu": "8"}, "nodes": 2}})");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->spec.limits.at("memory"), "512Gi");
  EXPECT_EQ(p->spec.weight, std::optional<std::int64_t>(10));
  EXPECT_EQ(p->spec.template_.metadata.labels.at("team"), "a");
  EXPECT_EQ(p->spec.template_.spec.node_class_ref.kind, "ProxmoxNodeClass");
  EXPECT_EQ(p->spec.template_.spec.requirements[0].min_values, std::optional<std::int64_t>(1));
  EXPECT_EQ(p->spec.template_.spec.expire_after, "Never");
  EXPECT_EQ(p->spec.disruption.budgets[1].reasons[0], "Drifted");
  EXPECT_EQ(p->status.nodes, 2);
  auto missing = decode<node_pool>(R"({"spec": {"template": {"spec": {"requirements": []}}}})");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "NodePool spec.template.spec.nodeClassRef: is required");
}

TEST(KubeCodec, proxmoxObjectsDecode) {
  auto nc = decode<proxmox_node_class>(R"({"metadata": {"name": "default"}, "spec": {
      "instanceTemplateRef": {"kind": "ProxmoxTemplate", "name": "default"},
      "placementStrategy": {"zoneBalance": "AvailabilityFirst"},
      "bootDevice": {"size": "30G", "storage": "local-lvm"},
      "metadataOptions": {"type": "cdrom", "templatesRef": {"name": "ubuntu-k8s", "namespace": "kube-system"}},
      "kubeletConfiguration": {"maxPods": 110, "clusterDNS": ["10.96.0.10"]},
      "securityGroups": [{"name": "kubernetes", "interface": "net0"}], "tags": ["k8s"]},
    "status": {"resources": {"zones": "2"}, "selectedZones": ["r1/pve1/9000"]}})");
  ASSERT_TRUE(nc.ok()) << nc.error().message;
  EXPECT_EQ(nc->spec.zone_balance, "AvailabilityFirst");
  EXPECT_EQ(nc->spec.metadata.templates_ref->namespace_, "kube-system");
  EXPECT_EQ(nc->spec.kubelet->max_pods, std::optional<std::int64_t>(110));
  EXPECT_EQ(nc->status.zones, "2");
  auto t = decode<proxmox_template>(R"({"metadata": {"name": "default"}, "spec": {
      "sourceImage": {"url": "https://example.com/a.img", "imageName": "a.qcow2"}, "storageIDs": ["local"],
      "cpu": {"type": "host", "flags": ["+aes"]}, "tpm": {"version": "v2.0"}, "vga": {"type": "serial0", "memory": 16},
      "network": [{"bridge": "vmbr0", "mtu": 1, "vlan": 20}], "agent": {"enabled": true}},
    "status": {"zones": ["r1/pve1/9000"], "imageID": "a-123.qcow2", "resources": {"zones": 1}}})");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->spec.cpu_type, "host");
  EXPECT_EQ(t->spec.network[0].mtu, std::optional<std::int64_t>(1));
  EXPECT_TRUE(t->spec.agent->enabled);
  EXPECT_EQ(t->status.zone_count, "1");
  auto bad = decode<proxmox_template>(
      R"({"spec": {"sourceImage": {"url": "u"}, "network": [{"bridge": "vmbr0"}, {}]}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "ProxmoxTemplate spec.network[1].bridge: is required");
  auto u = decode<proxmox_unmanaged_template>(
      R"({"metadata": {"name": "u"}, "spec": {"templateName": "ubuntu", "tags": ["k8s"]}})");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->spec.template_name, "ubuntu");
}

TEST(KubeCodec, placementStrategyCarriesExcludedZonesAndMinimumFreeRoom) {
  auto nc = decode<proxmox_node_class>(R"({"metadata": {"name": "pack"}, "spec": {
      "instanceTemplateRef": {"kind": "ProxmoxUnmanagedTemplate", "name": "k8s"},
      "placementStrategy": {"zoneBalance": "Pack", "excludedZones": ["pve3"],
                            "minFreeCPU": 4, "minFreeMemory": "16Gi"}}})");
  ASSERT_TRUE(nc.ok()) << nc.error().message;
  EXPECT_EQ(nc->spec.zone_balance, "Pack");
  EXPECT_EQ(nc->spec.excluded_zones, std::vector<std::string>{"pve3"});
  EXPECT_EQ(nc->spec.min_free_cpu, std::optional<std::int64_t>(4));
  EXPECT_EQ(nc->spec.min_free_memory, "16Gi");
  auto bad = decode<proxmox_node_class>(R"({"spec": {
      "instanceTemplateRef": {"kind": "ProxmoxUnmanagedTemplate", "name": "k8s"},
      "placementStrategy": {"minFreeCPU": "four"}}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("spec.placementStrategy.minFreeCPU"), std::string::npos)
      << bad.error().message;
}

TEST(KubeCodec, kproximateFieldsOfANodeClassRoundTrip) {
  auto nc = decode<proxmox_node_class>(R"({"metadata": {"name": "kp"}, "spec": {
      "instanceTemplateRef": {"kind": "ProxmoxUnmanagedTemplate", "name": "k8s"},
      "metadataOptions": {"type": "guestAgent", "joinCommand": "kube-join server={{ .Kubernetes.Endpoint }}"},
      "nodeLabels": {"kp-host": "{{ .TargetHost }}", "example.com/pool": "kp"},
      "sshKeys": ["ssh-ed25519 AAAA me@laptop"]}})");
  ASSERT_TRUE(nc.ok()) << nc.error().message;
  EXPECT_EQ(nc->spec.metadata.type, "guestAgent");
  EXPECT_EQ(nc->spec.metadata.join_command, "kube-join server={{ .Kubernetes.Endpoint }}");
  EXPECT_EQ(nc->spec.node_labels.at("kp-host"), "{{ .TargetHost }}");
  EXPECT_EQ(nc->spec.node_labels.at("example.com/pool"), "kp");
  EXPECT_EQ(nc->spec.ssh_keys, std::vector<std::string>{"ssh-ed25519 AAAA me@laptop"});
  auto again = decode<proxmox_node_class>(encode(*nc));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->spec, nc->spec);
  auto bad = decode<proxmox_node_class>(R"({"spec": {
      "instanceTemplateRef": {"kind": "ProxmoxUnmanagedTemplate", "name": "k8s"},
      "nodeLabels": {"kp-host": 7}}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("spec.nodeLabels"), std::string::npos) << bad.error().message;
  auto bad_keys = decode<proxmox_node_class>(R"({"spec": {
      "instanceTemplateRef": {"kind": "ProxmoxUnmanagedTemplate", "name": "k8s"},
      "sshKeys": "ssh-ed25519 AAAA"}})");
  ASSERT_FALSE(bad_keys.ok());
  EXPECT_NE(bad_keys.error().message.find("spec.sshKeys"), std::string::npos)
      << bad_keys.error().message;
}

TEST(KubeCodec, clusterObjectsDecode) {
  auto pdb = decode<pod_disruption_budget>(R"({"metadata": {"name": "web", "namespace": "default"},
      "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"}}},
      "status": {"disruptionsAllowed": 0, "currentHealthy": 2, "desiredHealthy": 2, "expectedPods": 2}})");
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  EXPECT_FALSE(pdb->spec.min_available->is_int);
  EXPECT_EQ(pdb->spec.min_available->string_value, "50%");
  auto ds = decode<daemon_set>(
      R"({"metadata": {"name": "cni"}, "spec": {"selector": {"matchLabels": {"a": "b"}},
      "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "50m"}}}]}}}})");
  ASSERT_TRUE(ds.ok()) << ds.error().message;
  EXPECT_EQ(ds->template_.spec.containers[0].resources.requests.at("cpu"), "50m");
  auto rs = decode<replica_set>(R"({"metadata": {"name": "web"}, "spec": {"replicas": 3}})");
  ASSERT_TRUE(rs.ok());
  EXPECT_EQ(rs->replicas, std::optional<std::int64_t>(3));
  EXPECT_EQ(boost::json::parse(encode(*rs)).at("kind"), "ReplicaSet");
  auto sts = decode<stateful_set>(R"({"spec": {"replicas": "x"}})");
  ASSERT_FALSE(sts.ok());
  EXPECT_EQ(sts.error().message, "StatefulSet spec.replicas: expected an integer, got a string");
  auto csi = decode<csi_node>(
      R"({"metadata": {"name": "w1"}, "spec": {"drivers": [{"name": "csi.proxmox", "nodeID": "w1", "allocatable": {"count": 24}}]}})");
  ASSERT_TRUE(csi.ok());
  EXPECT_EQ(csi->drivers[0].allocatable_count, std::optional<std::int64_t>(24));
  auto sc = decode<storage_class>(
      R"({"metadata": {"name": "fast"}, "provisioner": "csi.proxmox", "volumeBindingMode": "WaitForFirstConsumer",
      "allowedTopologies": [{"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["pve1"]}]}]})");
  ASSERT_TRUE(sc.ok());
  EXPECT_EQ(sc->allowed_topologies[0].match_label_expressions[0].values[0], "pve1");
  auto va = decode<volume_attachment>(
      R"({"metadata": {"name": "va"}, "spec": {"attacher": "csi", "nodeName": "w1",
      "source": {"persistentVolumeName": "pv1"}}, "status": {"attached": true}})");
  ASSERT_TRUE(va.ok());
  EXPECT_EQ(va->persistent_volume_name, "pv1");
  EXPECT_TRUE(va->attached);
  auto pv = decode<persistent_volume>(
      R"({"metadata": {"name": "pv1"}, "spec": {"capacity": {"storage": "10Gi"},
      "csi": {"driver": "csi.proxmox", "volumeHandle": "h"},
      "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["pve1"]}]}]}}},
      "status": {"phase": "Bound"}})");
  ASSERT_TRUE(pv.ok()) << pv.error().message;
  EXPECT_EQ(pv->spec.node_affinity->node_selector_terms.size(), 1u);
  EXPECT_EQ(pv->phase, "Bound");
  auto pvc = decode<persistent_volume_claim>(
      R"({"metadata": {"name": "c"}, "spec": {"storageClassName": "", "resources": {"requests": {"storage": "1Gi"}}}})");
  ASSERT_TRUE(pvc.ok());
  EXPECT_EQ(pvc->spec.storage_class_name, std::optional<std::string>(""));
  auto csr = decode<certificate_signing_request>(
      R"({"metadata": {"name": "csr-1"}, "spec": {"request": "LS0t",
      "signerName": "kubernetes.io/kube-apiserver-client-kubelet", "usages": ["client auth"], "groups": ["system:bootstrappers"]},
      "status": {"conditions": [{"type": "Approved", "status": "True"}], "certificate": "LS0t"}})");
  ASSERT_TRUE(csr.ok()) << csr.error().message;
  EXPECT_EQ(csr->spec.request.value, "---");
  EXPECT_EQ(csr->status.certificate.value, "---");
  auto ns = decode<namespace_object>(
      R"({"metadata": {"name": "default"}, "status": {"phase": "Active"}})");
  ASSERT_TRUE(ns.ok());
  EXPECT_EQ(ns->phase, "Active");
  auto cm =
      decode<config_map>(R"({"metadata": {"name": "cluster-info"}, "data": {"kubeconfig": "x"}})");
  ASSERT_TRUE(cm.ok());
  EXPECT_EQ(cm->data.at("kubeconfig"), "x");
}

TEST(KubeCodec, listsCarryResourceVersionAndContinueToken) {
  auto l = decode_list<pod>(R"({"kind": "PodList", "apiVersion": "v1",
      "metadata": {"resourceVersion": "77", "continue": "tok", "remainingItemCount": 3},
      "items": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}]})");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->resource_version, "77");
  EXPECT_EQ(l->continue_token, "tok");
  EXPECT_EQ(l->remaining_item_count, std::optional<std::int64_t>(3));
  ASSERT_EQ(l->items.size(), 2u);
  EXPECT_EQ(l->items[1].metadata.name, "b");
  auto bad = decode_list<node>(R"({"items": [{"metadata": {"name": "a"}}, {"metadata": 5}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "NodeList items[1].metadata: expected an object, got a number");
}

TEST(KubeCodec, statusObjectsDecodeWithCauses) {
  auto s =
      decode<api_status>(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
      "message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests",
      "details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget web-pdb needs 2 healthy pods and has 2 currently"}]},"code":429})");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->code, 429);
  EXPECT_EQ(s->causes[0].reason, "DisruptionBudget");
}

}  // namespace
}  // namespace kp::kube
