// Our CRDs carry the rules of the upstream ones (Karpenter v1.14.1, the Go provider v0.12.0), so
// a cluster that keeps either set accepts the same objects and the same status writes.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::map<std::string, YAML::Node> crds_by_kind() {
  const char* src = std::getenv("KP_SOURCE_DIR");
  std::map<std::string, YAML::Node> out;
  for (const auto& e :
       fs::directory_iterator(fs::path(src ? src : ".") / "chart" / "karpenter-proxmox" / "crds")) {
    if (e.path().extension() != ".yaml") continue;
    auto doc = YAML::LoadFile(e.path().string());
    out[doc["spec"]["names"]["kind"].as<std::string>()] = doc;
  }
  return out;
}

YAML::Node schema(const YAML::Node& crd) {
  return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
}

// Follows "a.b.c" through properties; "[]" steps into items. (A YAML::Node assigned with `=`
// overwrites what it refers to, so the walk rebinds with reset.)
YAML::Node at(const YAML::Node& start_node, const std::string& path) {
  YAML::Node node;
  node.reset(start_node);
  std::size_t start = 0;
  while (start <= path.size()) {
    auto dot = path.find('.', start);
    auto key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const YAML::Node& here = node;
    YAML::Node next = key == "[]" ? here["items"] : here["properties"][key];
    if (!next) return next;
    node.reset(next);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node;
}

std::vector<std::string> strings(const YAML::Node& seq) {
  std::vector<std::string> out;
  for (const auto& v : seq) out.push_back(v.as<std::string>());
  return out;
}

std::vector<std::string> rules(const YAML::Node& node) {
  std::vector<std::string> out;
  for (const auto& r : node["x-kubernetes-validations"]) out.push_back(r["rule"].as<std::string>());
  return out;
}

TEST(CrdStrictness, EveryConditionNeedsAReasonAndAMessageLikeMetav1Condition) {
  const auto crds = crds_by_kind();
  for (const char* kind : {"NodePool", "NodeOverlay", "CapacityBuffer", "ProxmoxNodeClass",
                           "ProxmoxTemplate", "ProxmoxUnmanagedTemplate"}) {
    SCOPED_TRACE(kind);
    auto conditions = at(schema(crds.at(kind)), "status.conditions");
    ASSERT_TRUE(conditions);
    auto item = conditions["items"];
    EXPECT_EQ(strings(item["required"]), (std::vector<std::string>{"lastTransitionTime", "message",
                                                                   "reason", "status", "type"}));
    EXPECT_EQ(item["properties"]["reason"]["pattern"].as<std::string>(),
              "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$");
    EXPECT_EQ(item["properties"]["reason"]["minLength"].as<int>(), 1);
    EXPECT_EQ(item["properties"]["message"]["maxLength"].as<int>(), 32768);
  }
  // Karpenter's NodeClaim lets a reason be empty and a message be absent.
  auto claim = at(schema(crds.at("NodeClaim")), "status.conditions");
  EXPECT_EQ(strings(claim["items"]["required"]),
            (std::vector<std::string>{"lastTransitionTime", "status", "type"}));
  EXPECT_EQ(claim["items"]["properties"]["reason"]["pattern"].as<std::string>(),
            "^([A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?|)$");
  // Karpenter's kinds key their conditions by type; the Go provider's do not.
  for (const char* kind : {"NodePool", "NodeClaim", "NodeOverlay", "CapacityBuffer"}) {
    auto c = at(schema(crds.at(kind)), "status.conditions");
    EXPECT_EQ(c["x-kubernetes-list-type"].as<std::string>(), "map") << kind;
    EXPECT_EQ(strings(c["x-kubernetes-list-map-keys"]), std::vector<std::string>{"type"}) << kind;
  }
  EXPECT_FALSE(
      at(schema(crds.at("ProxmoxNodeClass")), "status.conditions")["x-kubernetes-list-type"]);
}

TEST(CrdStrictness, RequirementsTaintsAndBudgetsHaveUpstreamsListTypesAndRules) {
  const auto crds = crds_by_kind();
  for (const auto& [kind, base] : std::vector<std::pair<std::string, std::string>>{
           {"NodePool", "spec.template.spec."}, {"NodeClaim", "spec."}}) {
    SCOPED_TRACE(kind);
    auto s = schema(crds.at(kind));
    auto req = at(s, base + "requirements");
    EXPECT_EQ(req["x-kubernetes-list-type"].as<std::string>(), "atomic");
    auto values = at(s, base + "requirements.[].values");
    EXPECT_EQ(values["x-kubernetes-list-type"].as<std::string>(), "atomic");
    EXPECT_EQ(values["maxLength"].as<int>(), 63);  // where upstream puts them: on the array
    EXPECT_EQ(values["pattern"].as<std::string>(), "^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$");
    auto key_rules = rules(at(s, base + "requirements.[].key"));
    EXPECT_NE(std::find(key_rules.begin(), key_rules.end(), "self != \"kubernetes.io/hostname\""),
              key_rules.end());
    EXPECT_EQ(key_rules.size(), kind == "NodePool" ? 3u : 2u);
    for (const char* t : {"taints", "startupTaints"}) {
      EXPECT_EQ(at(s, base + t)["x-kubernetes-list-type"].as<std::string>(), "atomic") << t;
      EXPECT_EQ(at(s, base + t + ".[].value")["pattern"].as<std::string>(),
                "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\\/))?"
                "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
          << t;
    }
  }
  auto pool = schema(crds.at("NodePool"));
  EXPECT_EQ(at(pool, "spec.disruption.budgets")["x-kubernetes-list-type"].as<std::string>(),
            "atomic");
  auto reasons = at(pool, "spec.disruption.budgets.[].reasons");
  EXPECT_EQ(reasons["x-kubernetes-list-type"].as<std::string>(), "set");
  EXPECT_EQ(reasons["maxItems"].as<int>(), 50);
  EXPECT_EQ(rules(at(pool, "spec.template.metadata.labels")).size(), 3u);
  EXPECT_EQ(at(pool, "spec.template.metadata.labels")["x-kubernetes-map-type"].as<std::string>(),
            "atomic");
  EXPECT_EQ(rules(at(pool, "spec.template.spec.nodeClassRef")),
            (std::vector<std::string>{"self.group == oldSelf.group", "self.kind == oldSelf.kind"}));
  EXPECT_EQ(rules(at(pool, "spec")).size(), 3u);
  // As Karpenter v1.14.1 (and v0.12's identical copy): consolidateAfter is required in a written
  // disruption, and only an absent disruption defaults to 0s.
  EXPECT_EQ(at(pool, "spec.disruption")["required"][0].as<std::string>(), "consolidateAfter");
  EXPECT_FALSE(at(pool, "spec.disruption.consolidateAfter")["default"]);
  EXPECT_EQ(at(pool, "spec.disruption")["default"]["consolidateAfter"].as<std::string>(), "0s");
}

TEST(CrdStrictness, NodePoolsScaleThroughReplicasAndCountNodes) {
  const auto crds = crds_by_kind();
  auto version = crds.at("NodePool")["spec"]["versions"][0];
  EXPECT_EQ(version["subresources"]["scale"]["specReplicasPath"].as<std::string>(),
            ".spec.replicas");
  EXPECT_EQ(version["subresources"]["scale"]["statusReplicasPath"].as<std::string>(),
            ".status.nodes");
  for (const auto& col : version["additionalPrinterColumns"]) {
    if (col["name"].as<std::string>() == "Nodes") {
      EXPECT_EQ(col["jsonPath"].as<std::string>(), ".status.nodes");
    }
  }
}

TEST(CrdStrictness, TheProviderKindsMatchTheGoProvidersSchema) {
  const auto crds = crds_by_kind();
  for (const char* kind : {"ProxmoxNodeClass", "ProxmoxTemplate", "ProxmoxUnmanagedTemplate"}) {
    SCOPED_TRACE(kind);
    auto s = schema(crds.at(kind));
    EXPECT_FALSE(s["required"]) << "upstream does not require spec at the root";
    auto resources = at(s, "status.resources");
    EXPECT_TRUE(resources["additionalProperties"]["x-kubernetes-int-or-string"].as<bool>());
    EXPECT_FALSE(resources["properties"]);
  }
  auto nc = schema(crds.at("ProxmoxNodeClass"));
  auto size = at(nc, "spec.bootDevice.size");
  EXPECT_TRUE(size["x-kubernetes-int-or-string"].as<bool>());
  EXPECT_EQ(size["allOf"][1]["pattern"].as<std::string>(), "^\\d+(T|G|Ti|Gi)$");
  EXPECT_EQ(at(nc, "spec.securityGroups.[].interface")["pattern"].as<std::string>(), "net[0-9]+");
  auto disk = at(nc, "spec.additionalDisks.[]");
  EXPECT_EQ(strings(disk["required"]), (std::vector<std::string>{"size"}));
  EXPECT_EQ(at(disk, "size")["allOf"][1]["pattern"].as<std::string>(), "^\\d+(T|G|Ti|Gi)$")
      << "the same sizes as bootDevice.size";
  EXPECT_EQ(at(disk, "storage")["maxLength"].as<int>(), 30);
  EXPECT_TRUE(at(disk, "storage")["pattern"]);
  EXPECT_EQ(
      strings(at(disk, "cache")["enum"]),
      (std::vector<std::string>{"none", "writethrough", "writeback", "unsafe", "directsync"}));
  for (const char* flag : {"discard", "iothread", "ssd"}) {
    EXPECT_EQ(at(disk, flag)["type"].as<std::string>(), "boolean") << flag;
  }
  EXPECT_TRUE(at(nc, "spec.additionalDisks")["maxItems"]);
  auto pci = at(nc, "spec.pciDevices.[]");
  EXPECT_EQ(strings(pci["required"]), (std::vector<std::string>{"mapping", "resourceName"}));
  for (const char* f : {"mapping", "resourceName", "mdev"}) {
    EXPECT_TRUE(at(pci, f)["pattern"]) << f;
    EXPECT_TRUE(at(pci, f)["maxLength"]) << f;
  }
  EXPECT_EQ(at(pci, "count")["minimum"].as<int>(), 1);
  EXPECT_EQ(at(pci, "count")["default"].as<int>(), 1);
  EXPECT_EQ(at(pci, "pcie")["type"].as<std::string>(), "boolean");
  EXPECT_EQ(at(nc, "spec.pciDevices")["maxItems"].as<int>(), 16) << "hostpci0..hostpci15";
  auto tmpl = schema(crds.at("ProxmoxTemplate"));
  for (const char* f : {"name", "address4", "address6", "gateway4", "gateway6"}) {
    EXPECT_EQ(at(tmpl, std::string("spec.network.[].") + f)["minLength"].as<int>(), 1) << f;
  }
  EXPECT_EQ(at(tmpl, "spec.network.[].dnsServers")["minItems"].as<int>(), 1);
  EXPECT_EQ(at(tmpl, "spec.region")["minLength"].as<int>(), 1);
  EXPECT_EQ(at(schema(crds.at("ProxmoxUnmanagedTemplate")), "spec.region")["minLength"].as<int>(),
            1);
}

}  // namespace
