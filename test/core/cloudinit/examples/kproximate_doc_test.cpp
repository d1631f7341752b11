// docs/migrate-from-kproximate.md's complete example must stay usable: its YAML parses, its
// instance types file is accepted, its names agree with each other, with the CRD and with the
// kproximate example templates.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/instance_types_file.hpp"
#include "core/instance_types/instance_type.hpp"

namespace kp::cloudinit {
namespace {

namespace fs = std::filesystem;

fs::path source_root() {
  const char* root = std::getenv("KP_SOURCE_DIR");
  return root != nullptr ? root : ".";
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every document of every ```yaml block.
std::vector<YAML::Node> yaml_documents(const std::string& markdown) {
  std::vector<YAML::Node> docs;
  std::size_t pos = 0;
  while ((pos = markdown.find("```yaml\n", pos)) != std::string::npos) {
    pos += 8;
    std::size_t end = markdown.find("```", pos);
    for (auto& d : YAML::LoadAll(markdown.substr(pos, end - pos))) docs.push_back(d);
    pos = end + 3;
  }
  return docs;
}

YAML::Node find_kind(const std::vector<YAML::Node>& docs, const std::string& kind) {
  for (const auto& d : docs) {
    if (d["kind"] && d["kind"].Scalar() == kind) return d;
  }
  ADD_FAILURE() << "no " << kind << " in docs/migrate-from-kproximate.md";
  return YAML::Node();
}

TEST(KproximateDoc, TheCompleteExampleIsConsistentAndAccepted) {
  std::string md = read(source_root() / "docs" / "migrate-from-kproximate.md");
  ASSERT_FALSE(md.empty());
  std::vector<YAML::Node> docs;
  ASSERT_NO_THROW(docs = yaml_documents(md));
  ASSERT_GE(docs.size(), 5u);

  // The one instance type, as INSTANCE_TYPES_FILE reads it.
  YAML::Node cm = find_kind(docs, "ConfigMap");
  auto types = config::parse_instance_types_file(cm["data"]["instance-types.json"].Scalar());
  ASSERT_TRUE(types.ok()) << types.error().message;
  ASSERT_EQ(types->size(), 1u);
  EXPECT_EQ((*types)[0].vm_cpus, 2);
  EXPECT_EQ((*types)[0].vm_memory_bytes, std::int64_t{2} << 30);

  // The Helm values mount that ConfigMap where INSTANCE_TYPES_FILE points.
  YAML::Node values = docs[0];
  ASSERT_TRUE(values["extraEnvs"]);
  std::string file;
  for (const auto& env : values["extraEnvs"]) {
    if (env["name"].Scalar() == "INSTANCE_TYPES_FILE") file = env["value"].Scalar();
  }
  EXPECT_EQ(file, values["extraVolumeMounts"][0]["mountPath"].Scalar() + "/instance-types.json");
  EXPECT_EQ(values["extraVolumes"][0]["configMap"]["name"].Scalar(),
            cm["metadata"]["name"].Scalar());

  // The NodePool asks for that type and uses the node class, which uses the template.
  YAML::Node pool = find_kind(docs, "NodePool");
  EXPECT_EQ(pool["spec"]["limits"]["nodes"].Scalar(), "3");
  EXPECT_EQ(pool["spec"]["template"]["spec"]["requirements"][0]["values"][0].Scalar(),
            (*types)[0].name);
  YAML::Node node_class = find_kind(docs, "ProxmoxNodeClass");
  EXPECT_EQ(pool["spec"]["template"]["spec"]["nodeClassRef"]["name"].Scalar(),
            node_class["metadata"]["name"].Scalar());
  YAML::Node tmpl = find_kind(docs, "ProxmoxUnmanagedTemplate");
  EXPECT_EQ(node_class["spec"]["instanceTemplateRef"]["name"].Scalar(),
            tmpl["metadata"]["name"].Scalar());

  // The strategy is one the CRD accepts.
  YAML::Node crd =
      YAML::LoadFile((source_root() / "chart/karpenter-proxmox/crds/"
                                      "karpenter.proxmox.sinextra.dev_proxmoxnodeclasses.yaml")
                         .string());
  YAML::Node strategy = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
                           ["spec"]["properties"]["placementStrategy"]["properties"];
  bool known = false;
  for (const auto& v : strategy["zoneBalance"]["enum"]) {
    known |= v.Scalar() == node_class["spec"]["placementStrategy"]["zoneBalance"].Scalar();
  }
  EXPECT_TRUE(known);
  for (const auto& field : node_class["spec"]["placementStrategy"]) {
    EXPECT_TRUE(strategy[field.first.Scalar()]) << field.first.Scalar() << " is not in the CRD";
  }

  // The Secrets are the ones the kproximate example templates create.
  EXPECT_NE(md.find("create secret generic " +
                    node_class["spec"]["metadataOptions"]["templatesRef"]["name"].Scalar()),
            std::string::npos);
  YAML::Node values_secret =
      YAML::LoadFile((source_root() / "docs/templates/kproximate/values.yaml").string());
  EXPECT_EQ(node_class["spec"]["metadataOptions"]["valuesRef"]["name"].Scalar(),
            values_secret["metadata"]["name"].Scalar());
}

}  // namespace
}  // namespace kp::cloudinit
