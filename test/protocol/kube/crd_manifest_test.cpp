// The CRD manifests under chart/karpenter-proxmox/crds/ parse, are structural, keep their
// defaults valid, carry the expected printer columns and operators, and accept the example
// objects under chart/karpenter-proxmox/examples/ (checked with a small OpenAPI validator:
// types, required, enum, pattern, bounds, unknown fields).
#include <gtest/gtest.h>
#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "core/parse_number.hpp"

namespace {

namespace fs = std::filesystem;

fs::path chart_dir() {
  const char* src = std::getenv("KP_SOURCE_DIR");
  return fs::path(src ? src : ".") / "chart" / "karpenter-proxmox";
}

bool is_int(const std::string& s) {
  if (s.empty()) return false;
  std::size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// Returns "" when `value` satisfies `schema`, else the first problem with its path.
std::string validate(const YAML::Node& value, const YAML::Node& schema, const std::string& path) {
  if (schema["x-kubernetes-int-or-string"] && schema["x-kubernetes-int-or-string"].as<bool>()) {
    if (!value.IsScalar()) return path + ": expected an integer or a string";
  } else if (schema["type"]) {
    const auto type = schema["type"].as<std::string>();
    if (type == "object" && !value.IsMap()) return path + ": expected an object";
    if (type == "array" && !value.IsSequence()) return path + ": expected an array";
    if (type == "string" && !value.IsScalar()) return path + ": expected a string";
    if (type == "integer" && !(value.IsScalar() && is_int(value.Scalar())))
      return path + ": expected an integer";
    if (type == "boolean" &&
        !(value.IsScalar() && (value.Scalar() == "true" || value.Scalar() == "false"))) {
      return path + ": expected a boolean";
    }
  }
  if (schema["allOf"]) {
    for (const auto& sub : schema["allOf"]) {
      auto err = validate(value, sub, path);
      if (!err.empty()) return err;
    }
  }
  if (value.IsScalar()) {
    const auto& s = value.Scalar();
    if (schema["enum"]) {
      bool found = false;
      for (const auto& e : schema["enum"]) found = found || e.Scalar() == s;
      if (!found) return path + ": \"" + s + "\" is not one of the allowed values";
    }
    if (schema["pattern"]) {
      // Kubernetes checks patterns with Go's regexp (RE2 syntax), unanchored.
      const RE2 pattern(schema["pattern"].as<std::string>());
      if (!pattern.ok()) return path + ": pattern does not compile: " + pattern.error();
      if (!RE2::PartialMatch(s, pattern))
        return path + ": \"" + s + "\" does not match " + schema["pattern"].as<std::string>();
    }
    if (schema["minLength"] && s.size() < schema["minLength"].as<std::size_t>())
      return path + ": too short";
    if (schema["maxLength"] && s.size() > schema["maxLength"].as<std::size_t>())
      return path + ": too long";
    if (is_int(s)) {
      auto n = kp::parse_integer<long long>(s.front() == '+' ? s.substr(1) : s);
      if (!n) return path + ": out of range";
      if (schema["minimum"] && *n < schema["minimum"].as<long long>())
        return path + ": below minimum";
      if (schema["maximum"] && *n > schema["maximum"].as<long long>())
        return path + ": above maximum";
    }
  }
  if (value.IsSequence()) {
    if (schema["minItems"] && value.size() < schema["minItems"].as<std::size_t>())
      return path + ": too few items";
    if (schema["maxItems"] && value.size() > schema["maxItems"].as<std::size_t>())
      return path + ": too many items";
    for (std::size_t i = 0; i < value.size(); ++i) {
      auto err = validate(value[i], schema["items"], path + "[" + std::to_string(i) + "]");
      if (!err.empty()) return err;
    }
  }
  if (value.IsMap()) {
    if (schema["required"]) {
      for (const auto& r : schema["required"]) {
        if (!value[r.Scalar()]) return path + "." + r.Scalar() + ": is required";
      }
    }
    for (const auto& kv : value) {
      const auto key = kv.first.Scalar();
      YAML::Node sub;
      if (schema["properties"] && schema["properties"][key]) {
        sub = schema["properties"][key];
      } else if (schema["additionalProperties"]) {
        sub = schema["additionalProperties"];
      } else if (schema["properties"] || !(schema["x-kubernetes-preserve-unknown-fields"])) {
        if (path == "" && (key == "apiVersion" || key == "kind")) continue;
        if (schema["properties"] || path.empty()) return path + "." + key + ": unknown field";
        continue;  // metadata: {type: object} accepts anything
      }
      auto err = validate(kv.second, sub, path + "." + key);
      if (!err.empty()) return err;
    }
  }
  return "";
}

// Every schema node has a type (or is int-or-string), and every default satisfies its schema.
void check_structural(const YAML::Node& schema, const std::string& path) {
  ASSERT_TRUE(schema.IsMap()) << path;
  if (!schema["x-kubernetes-int-or-string"]) {
    ASSERT_TRUE(schema["type"]) << path << " has no type";
  }
  if (schema["default"]) {
    EXPECT_EQ(validate(schema["default"], schema, path), "") << "default of " << path;
  }
  if (schema["properties"]) {
    for (const auto& kv : schema["properties"])
      check_structural(kv.second, path + "." + kv.first.Scalar());
  }
  if (schema["items"]) check_structural(schema["items"], path + "[]");
  if (schema["additionalProperties"] && schema["additionalProperties"].IsMap()) {
    check_structural(schema["additionalProperties"], path + "{}");
  }
}

struct crd_info {
  YAML::Node doc;
  YAML::Node schema;
};

std::map<std::string, crd_info> load_crds() {
  std::map<std::string, crd_info> out;
  for (const auto& entry : fs::directory_iterator(chart_dir() / "crds")) {
    if (entry.path().extension() != ".yaml") continue;
    auto doc = YAML::LoadFile(entry.path().string());
    const auto version = doc["spec"]["versions"][0];
    const std::string gvk = doc["spec"]["group"].as<std::string>() + "/" +
                            version["name"].as<std::string>() + "/" +
                            doc["spec"]["names"]["kind"].as<std::string>();
    out[gvk] = {doc, version["schema"]["openAPIV3Schema"]};
  }
  return out;
}

TEST(CrdManifests, allSevenCrdsParseWithTheirScopeAndStatus) {
  const auto crds = load_crds();
  // The Go provider's chart ships NodeOverlay and CapacityBuffer too.
  const std::set<std::string> expected = {
      "karpenter.sh/v1/NodePool",
      "karpenter.sh/v1/NodeClaim",
      "karpenter.sh/v1alpha1/NodeOverlay",
      "autoscaling.x-k8s.io/v1beta1/CapacityBuffer",
      "karpenter.proxmox.sinextra.dev/v1alpha1/ProxmoxNodeClass",
      "karpenter.proxmox.sinextra.dev/v1alpha1/ProxmoxTemplate",
      "karpenter.proxmox.sinextra.dev/v1alpha1/ProxmoxUnmanagedTemplate"};
  std::set<std::string> found;
  for (const auto& [gvk, crd] : crds) {
    found.insert(gvk);
    const bool buffer = gvk == "autoscaling.x-k8s.io/v1beta1/CapacityBuffer";
    EXPECT_EQ(crd.doc["apiVersion"].as<std::string>(), "apiextensions.k8s.io/v1") << gvk;
    EXPECT_EQ(crd.doc["kind"].as<std::string>(), "CustomResourceDefinition") << gvk;
    EXPECT_EQ(crd.doc["spec"]["scope"].as<std::string>(), buffer ? "Namespaced" : "Cluster") << gvk;
    EXPECT_EQ(crd.doc["metadata"]["name"].as<std::string>(),
              crd.doc["spec"]["names"]["plural"].as<std::string>() + "." +
                  crd.doc["spec"]["group"].as<std::string>());
    const auto v = crd.doc["spec"]["versions"][0];
    EXPECT_TRUE(v["served"].as<bool>() && v["storage"].as<bool>()) << gvk;
    EXPECT_TRUE(v["subresources"]["status"].IsMap()) << gvk;
    EXPECT_EQ(crd.doc["spec"]["names"]["categories"][0].as<std::string>(),
              buffer ? "autoscaling" : "karpenter");
  }
  EXPECT_EQ(found, expected);
}

TEST(CrdManifests, schemasAreStructuralAndDefaultsAreValid) {
  for (const auto& [gvk, crd] : load_crds()) {
    SCOPED_TRACE(gvk);
    check_structural(crd.schema, "");
  }
}

TEST(CrdManifests, requirementOperatorsIncludeGteAndLte) {
  const auto crds = load_crds();
  const auto pool_ops =
      crds.at("karpenter.sh/v1/NodePool")
          .schema["properties"]["spec"]["properties"]["template"]["properties"]["spec"]
                 ["properties"]["requirements"]["items"]["properties"]["operator"]["enum"];
  const auto claim_ops = crds.at("karpenter.sh/v1/NodeClaim")
                             .schema["properties"]["spec"]["properties"]["requirements"]["items"]
                                    ["properties"]["operator"]["enum"];
  for (const auto& ops : {pool_ops, claim_ops}) {
    std::set<std::string> names;
    for (const auto& o : ops) names.insert(o.Scalar());
    EXPECT_EQ(names, (std::set<std::string>{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt",
                                            "Gte", "Lte"}));
  }
}

TEST(CrdManifests, printerColumnsMatchKarpenters) {
  const auto crds = load_crds();
  auto names = [](const crd_info& c) {
    std::vector<std::string> out;
    for (const auto& col : c.doc["spec"]["versions"][0]["additionalPrinterColumns"])
      out.push_back(col["name"].Scalar());
    return out;
  };
  EXPECT_EQ(names(crds.at("karpenter.sh/v1/NodeClaim")),
            (std::vector<std::string>{"Type", "Capacity", "Zone", "Node", "Ready", "Age", "ImageID",
                                      "ID", "NodePool", "NodeClass", "Drifted"}));
  EXPECT_EQ(
      names(crds.at("karpenter.sh/v1/NodePool")),
      (std::vector<std::string>{"NodeClass", "Nodes", "Ready", "Age", "Weight", "CPU", "Memory"}));
  EXPECT_EQ(names(crds.at("karpenter.proxmox.sinextra.dev/v1alpha1/ProxmoxNodeClass")),
            (std::vector<std::string>{"Zones", "Balance", "Template", "Metadata", "Disk", "Ready",
                                      "Age"}));
}

TEST(CrdManifests, everyExampleValidatesAgainstItsCrd) {
  const auto crds = load_crds();
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(chart_dir() / "examples")) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    auto obj = YAML::LoadFile(entry.path().string());
    const std::string gvk =
        obj["apiVersion"].as<std::string>() + "/" + obj["kind"].as<std::string>();
    ASSERT_TRUE(crds.count(gvk)) << gvk;
    EXPECT_EQ(validate(obj, crds.at(gvk).schema, ""), "");
    ++checked;
  }
  EXPECT_GE(checked, 2);
}

TEST(CrdManifests, theValidatorRejectsBadObjects) {
  const auto crds = load_crds();
  const auto& pool = crds.at("karpenter.sh/v1/NodePool").schema;
  auto bad_op = YAML::Load(R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: x}
spec:
  template:
    spec:
      nodeClassRef: {group: g, kind: K, name: n}
      requirements: [{key: kubernetes.io/arch, operator: Near, values: [amd64]}]
)");
  EXPECT_NE(validate(bad_op, pool, "").find("operator"), std::string::npos);
  auto unknown = YAML::Load(
      "apiVersion: v\nkind: NodePool\nspec: {template: {spec: {nodeClassRef: {group: g, kind: K, "
      "name: n}, requirements: []}}, bogus: 1}\n");
  EXPECT_EQ(validate(unknown, pool, ""), ".spec.bogus: unknown field");
  const auto& nc = crds.at("karpenter.proxmox.sinextra.dev/v1alpha1/ProxmoxNodeClass").schema;
  auto bad_disk = YAML::Load(
      "spec: {instanceTemplateRef: {kind: ProxmoxTemplate, name: t}, bootDevice: {size: 30GB}}\n");
  EXPECT_NE(validate(bad_disk, nc, "").find("bootDevice.size"), std::string::npos);
  auto disks = YAML::Load(
      "spec: {instanceTemplateRef: {kind: ProxmoxTemplate, name: t}, additionalDisks: [{size: "
      "20Gi, storage: local-lvm, cache: none, discard: true, iothread: true, ssd: true}]}\n");
  EXPECT_EQ(validate(disks, nc, ""), "");
  auto no_size = YAML::Load(
      "spec: {instanceTemplateRef: {kind: ProxmoxTemplate, name: t}, additionalDisks: [{storage: "
      "local-lvm}]}\n");
  EXPECT_NE(validate(no_size, nc, "").find("additionalDisks"), std::string::npos);
  auto bad_cache = YAML::Load(
      "spec: {instanceTemplateRef: {kind: ProxmoxTemplate, name: t}, additionalDisks: [{size: "
      "20Gi, cache: fast}]}\n");
  EXPECT_NE(validate(bad_cache, nc, "").find("cache"), std::string::npos);
  auto gpu = YAML::Load(
      "spec: {instanceTemplateRef: {kind: ProxmoxTemplate, name: t}, pciDevices: [{mapping: gpu, "
      "resourceName: nvidia.com/gpu, count: 2, pcie: true}, {mapping: igpu, resourceName: "
      "gpu.intel.com/i915, mdev: i915-GVTg_V5_4}]}\n");
  EXPECT_EQ(validate(gpu, nc, ""), "");
  auto no_resource = YAML::Load(
      "spec: {instanceTemplateRef: {kind: ProxmoxTemplate, name: t}, pciDevices: [{mapping: "
      "gpu}]}\n");
  EXPECT_NE(validate(no_resource, nc, "").find("pciDevices"), std::string::npos);
  auto bare_name = YAML::Load(
      "spec: {instanceTemplateRef: {kind: ProxmoxTemplate, name: t}, pciDevices: [{mapping: "
      "gpu, resourceName: gpu}]}\n");
  EXPECT_NE(validate(bare_name, nc, "").find("resourceName"), std::string::npos);
  auto no_devices = YAML::Load(
      "spec: {instanceTemplateRef: {kind: ProxmoxTemplate, name: t}, pciDevices: [{mapping: "
      "gpu, resourceName: nvidia.com/gpu, count: 0}]}\n");
  EXPECT_NE(validate(no_devices, nc, "").find("count"), std::string::npos);
}

TEST(CrdManifests, theNodeClassTakesKproximatesFieldsAndRefusesBadOnesNamingThem) {
  const auto crds = load_crds();
  const auto& nc = crds.at("karpenter.proxmox.sinextra.dev/v1alpha1/ProxmoxNodeClass").schema;
  auto good = YAML::Load(R"(
spec:
  instanceTemplateRef: {kind: ProxmoxUnmanagedTemplate, name: t}
  metadataOptions: {type: guestAgent, joinCommand: "kube-join server={{ .Kubernetes.Endpoint }}"}
  nodeLabels: {kp-host: "{{ .TargetHost }}"}
  sshKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG me@laptop", "ecdsa-sha2-nistp256 AAAAE2V= x"]
)");
  EXPECT_EQ(validate(good, nc, ""), "");
  auto bad_type = YAML::Load(
      "spec: {instanceTemplateRef: {kind: ProxmoxTemplate, name: t}, metadataOptions: {type: "
      "qemu}}\n");
  EXPECT_NE(validate(bad_type, nc, "").find("metadataOptions.type"), std::string::npos);
  auto bad_key = YAML::Load(
      "spec: {instanceTemplateRef: {kind: ProxmoxTemplate, name: t}, sshKeys: [\"AAAA me\"]}\n");
  EXPECT_NE(validate(bad_key, nc, "").find("sshKeys"), std::string::npos);
  auto bad_label = YAML::Load(
      "spec: {instanceTemplateRef: {kind: ProxmoxTemplate, name: t}, nodeLabels: {a: [1]}}\n");
  EXPECT_NE(validate(bad_label, nc, "").find("nodeLabels"), std::string::npos);
}

}  // namespace
