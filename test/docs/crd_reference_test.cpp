// docs/crd-reference.md against the CRDs the chart installs: every spec field of
// ProxmoxNodeClass, ProxmoxTemplate and ProxmoxUnmanagedTemplate has a row, and the row shows
// the schema's default. scripts/crd-reference.py regenerates the tables.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

#include "test/docs/doc_text.hpp"

namespace kp {
namespace {

struct field {
  std::string path;  // spec.placementStrategy.zoneBalance, spec.network[].bridge
  std::string default_value;
};

std::string scalar_text(const YAML::Node& n) {
  if (n.IsScalar()) return n.as<std::string>();
  YAML::Emitter out;
  out << YAML::Flow << n;
  return out.c_str();
}

void walk(const YAML::Node& schema, const std::string& path, std::vector<field>& out) {
  field f{path, schema["default"] ? scalar_text(schema["default"]) : ""};
  out.push_back(f);
  if (auto props = schema["properties"]) {
    for (const auto& p : props) walk(p.second, path + "." + p.first.as<std::string>(), out);
  }
  if (auto items = schema["items"]; items && items["properties"]) {
    for (const auto& p : items["properties"]) {
      walk(p.second, path + "[]." + p.first.as<std::string>(), out);
    }
  }
}

std::vector<field> spec_fields(const std::string& crd_file) {
  auto crd = YAML::LoadFile(kp::test::source_dir() + "/chart/karpenter-proxmox/crds/" + crd_file);
  std::vector<field> out;
  for (const auto& version : crd["spec"]["versions"]) {
    walk(version["schema"]["openAPIV3Schema"]["properties"]["spec"], "spec", out);
  }
  return out;
}

// The table row of `path`: the line starting with "| `path` |".
std::string row_of(const std::string& page, const std::string& kind, const std::string& path) {
  auto section = page.find("<!-- fields: " + kind + " -->");
  if (section == std::string::npos) return "";
  auto end = page.find("<!-- end fields -->", section);
  auto at = page.find("| `" + path + "` |", section);
  if (at == std::string::npos || at > end) return "";
  return page.substr(at, page.find('\n', at) - at);
}

TEST(CrdReference, EverySpecFieldOfTheProxmoxKindsHasARowWithItsDefault) {
  const auto page = kp::test::read_source_file("docs/crd-reference.md");
  ASSERT_FALSE(page.empty()) << "docs/crd-reference.md is missing";
  const std::map<std::string, std::string> kinds = {
      {"ProxmoxNodeClass", "karpenter.proxmox.sinextra.dev_proxmoxnodeclasses.yaml"},
      {"ProxmoxTemplate", "karpenter.proxmox.sinextra.dev_proxmoxtemplates.yaml"},
      {"ProxmoxUnmanagedTemplate",
       "karpenter.proxmox.sinextra.dev_proxmoxunmanagedtemplates.yaml"}};
  for (const auto& [kind, file] : kinds) {
    auto fields = spec_fields(file);
    ASSERT_GT(fields.size(), 2u) << file;
    for (const auto& f : fields) {
      if (f.path == "spec") continue;
      auto row = row_of(page, kind, f.path);
      ASSERT_FALSE(row.empty()) << kind << " field " << f.path
                                << " has no row; run scripts/crd-reference.py";
      if (!f.default_value.empty()) {
        EXPECT_NE(row.find(f.default_value), std::string::npos)
            << kind << " " << f.path << ": the row does not show the default " << f.default_value;
      }
    }
  }
}

}  // namespace
}  // namespace kp
