// The CEL interpreter against every x-kubernetes-validations rule of the upstream CRDs
// (Karpenter v1.14.1 pkg/apis/crds, the Proxmox provider v0.12.0 pkg/apis/crds) and of ours, each
// with objects that pass and objects that fail, plus the language corners those rules lean on.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "sim/kube/cel/program.hpp"

namespace kp::sim::kube::cel {
namespace {

namespace json = boost::json;

// "true", "false", another value as JSON, or "error: <message>".
std::string run(const std::string& rule, const std::string& self, const std::string& old = "") {
  auto p = compile(rule);
  if (!p) return "compile error: " + p.error().message;
  json::value s = json::parse(self);
  json::value o = old.empty() ? json::value(nullptr) : json::parse(old);
  auto r = evaluate(p.value(), s, old.empty() ? nullptr : &o);
  if (!r) return "error: " + r.error().message;
  return json::serialize(r.value());
}

// ---- Karpenter v1.14.1: NodePool, NodeClaim, NodeOverlay, CapacityBuffer.
TEST(CelUpstreamRules, RequirementsWithInNeedValues) {
  const std::string rule = "self.all(x, x.operator == 'In' ? x.values.size() != 0 : true)";
  EXPECT_EQ(run(rule, R"([{"key":"a","operator":"In","values":["x"]}])"), "true");
  EXPECT_EQ(run(rule, R"([{"key":"a","operator":"In","values":[]}])"), "false");
  EXPECT_EQ(run(rule, R"([{"key":"a","operator":"Exists"}])"), "true");
  EXPECT_EQ(run(rule, "[]"), "true");
}

TEST(CelUpstreamRules, RequirementsWithNotInNeedValues) {
  const std::string rule = "self.all(x, x.operator == 'NotIn' ? x.values.size() != 0 : true)";
  EXPECT_EQ(run(rule, R"([{"key":"a","operator":"NotIn","values":["x"]}])"), "true");
  EXPECT_EQ(run(rule, R"([{"key":"a","operator":"NotIn","values":[]}])"), "false");
}

TEST(CelUpstreamRules, ComparisonOperatorsNeedOneNonNegativeInteger) {
  const std::string upstream =
      "self.all(x, (x.operator == 'Gt' || x.operator == 'Lt' || x.operator == 'Gte' || "
      "x.operator == 'Lte') ? (x.values.size() == 1 && int(x.values[0]) >= 0) : true)";
  const std::string ours =
      "self.all(x, (x.operator in ['Gt', 'Lt', 'Gte', 'Lte']) ? (x.values.size() == 1 && "
      "int(x.values[0]) >= 0) : true)";
  for (const auto& rule : {upstream, ours}) {
    EXPECT_EQ(run(rule, R"([{"key":"a","operator":"Gt","values":["3"]}])"), "true") << rule;
    EXPECT_EQ(run(rule, R"([{"key":"a","operator":"Lte","values":["-1"]}])"), "false");
    EXPECT_EQ(run(rule, R"([{"key":"a","operator":"Lt","values":["1","2"]}])"), "false");
    EXPECT_EQ(run(rule, R"([{"key":"a","operator":"In","values":["x","y"]}])"), "true");
    // A value that is no integer is an evaluation error, as in cel-go.
    EXPECT_EQ(run(rule, R"([{"key":"a","operator":"Gt","values":["abc"]}])").rfind("error: ", 0),
              0u);
  }
}

TEST(CelUpstreamRules, MinValuesNeedsAsManyValues) {
  const std::string rule =
      "self.all(x, (x.operator == 'In' && has(x.minValues)) ? x.values.size() >= x.minValues : "
      "true)";
  EXPECT_EQ(run(rule, R"([{"key":"a","operator":"In","values":["x","y"],"minValues":2}])"), "true");
  EXPECT_EQ(run(rule, R"([{"key":"a","operator":"In","values":["x"],"minValues":2}])"), "false");
  EXPECT_EQ(run(rule, R"([{"key":"a","operator":"In","values":["x"]}])"), "true");
}

TEST(CelUpstreamRules, RestrictedKarpenterLabelDomainOnAKey) {
  const std::string rule =
      R"cel(self in ["karpenter.sh/capacity-type", "karpenter.sh/nodepool"] || !self.find("^([^/]+)").endsWith("karpenter.sh"))cel";
  EXPECT_EQ(run(rule, R"("karpenter.sh/capacity-type")"), "true");
  EXPECT_EQ(run(rule, R"("karpenter.sh/other")"), "false");
  EXPECT_EQ(run(rule, R"("sub.karpenter.sh/other")"), "false");
  EXPECT_EQ(run(rule, R"("example.com/team")"), "true");
  EXPECT_EQ(run(rule, R"("team")"), "true");
}

TEST(CelUpstreamRules, RestrictedKarpenterLabelDomainOnLabelMaps) {
  const std::string rule =
      R"cel(self.all(x, x in ["karpenter.sh/capacity-type", "karpenter.sh/nodepool"] || !x.find("^([^/]+)").endsWith("karpenter.sh")))cel";
  EXPECT_EQ(run(rule, R"({"team":"a","karpenter.sh/nodepool":"p"})"), "true");
  EXPECT_EQ(run(rule, R"({"karpenter.sh/foo":"x"})"), "false");
}

TEST(CelUpstreamRules, RestrictedSingleLabels) {
  EXPECT_EQ(run(R"(self != "kubernetes.io/hostname")", R"("kubernetes.io/hostname")"), "false");
  EXPECT_EQ(run(R"(self != "kubernetes.io/hostname")", R"("zone")"), "true");
  EXPECT_EQ(run(R"(self != "karpenter.sh/nodepool")", R"("karpenter.sh/nodepool")"), "false");
  EXPECT_EQ(run(R"(self.all(x, x != "karpenter.sh/nodepool"))", R"({"karpenter.sh/nodepool":""})"),
            "false");
  EXPECT_EQ(run(R"(self.all(x, x != "kubernetes.io/hostname"))", R"({"a":"b"})"), "true");
}

TEST(CelUpstreamRules, NonEmptyGroup) {
  EXPECT_EQ(run("self != ''", R"("karpenter.proxmox.sinextra.dev")"), "true");
  EXPECT_EQ(run("self != ''", R"("")"), "false");
}

TEST(CelUpstreamRules, SpecIsImmutableAsATransitionRule) {
  auto p = compile("self == oldSelf");
  ASSERT_TRUE(p);
  EXPECT_TRUE(p.value().uses_old_self);
  EXPECT_EQ(run("self == oldSelf", R"({"a":[1,{"b":2}]})", R"({"a":[1,{"b":2}]})"), "true");
  EXPECT_EQ(run("self == oldSelf", R"({"a":[1,{"b":2}]})", R"({"a":[1,{"b":3}]})"), "false");
  EXPECT_EQ(run("self.group == oldSelf.group", R"({"group":"a","kind":"K"})",
                R"({"group":"b","kind":"K"})"),
            "false");
  EXPECT_EQ(run("self.kind == oldSelf.kind", R"({"group":"a","kind":"K"})",
                R"({"group":"b","kind":"K"})"),
            "true");
}

TEST(CelUpstreamRules, StaticAndDynamicNodePoolsCannotTransition) {
  const std::string rule = "has(self.replicas) == has(oldSelf.replicas)";
  EXPECT_EQ(run(rule, R"({"replicas":2})", R"({"replicas":1})"), "true");
  EXPECT_EQ(run(rule, R"({"replicas":2})", R"({})"), "false");
  EXPECT_EQ(run(rule, R"({})", R"({})"), "true");
}

TEST(CelUpstreamRules, StaticNodePoolsOnlyLimitNodesAndHaveNoWeight) {
  const std::string limits =
      "!has(self.replicas) || (!has(self.limits) || size(self.limits) == 0 || "
      "(size(self.limits) == 1 && 'nodes' in self.limits))";
  EXPECT_EQ(run(limits, R"({"replicas":1,"limits":{"nodes":"3"}})"), "true");
  EXPECT_EQ(run(limits, R"({"replicas":1,"limits":{"cpu":"3"}})"), "false");
  EXPECT_EQ(run(limits, R"({"replicas":1,"limits":{}})"), "true");
  EXPECT_EQ(run(limits, R"({"limits":{"cpu":"3"}})"), "true");
  const std::string weight = "!has(self.replicas) || !has(self.weight)";
  EXPECT_EQ(run(weight, R"({"replicas":1,"weight":3})"), "false");
  EXPECT_EQ(run(weight, R"({"weight":3})"), "true");
}

TEST(CelUpstreamRules, BudgetsScheduleNeedsDuration) {
  const std::string rule = "self.all(x, has(x.schedule) == has(x.duration))";
  EXPECT_EQ(run(rule, R"([{"nodes":"10%"},{"nodes":"1","schedule":"@daily","duration":"1h"}])"),
            "true");
  EXPECT_EQ(run(rule, R"([{"nodes":"1","schedule":"@daily"}])"), "false");
}

TEST(CelUpstreamRules, NodeOverlayPriceAndCapacity) {
  EXPECT_EQ(run("!has(self.price) || !has(self.priceAdjustment)",
                R"({"price":"1","priceAdjustment":"+1"})"),
            "false");
  EXPECT_EQ(run("!has(self.price) || !has(self.priceAdjustment)", R"({"price":"1"})"), "true");
  const std::string capacity =
      "self.all(x, !(x in ['cpu', 'memory', 'ephemeral-storage', 'pods']))";
  EXPECT_EQ(run(capacity, R"({"example.com/gpu":"1"})"), "true");
  EXPECT_EQ(run(capacity, R"({"cpu":"1"})"), "false");
}

TEST(CelUpstreamRules, CapacityBufferRefs) {
  const std::string either = "!(has(self.podTemplateRef) && has(self.scalableRef))";
  EXPECT_EQ(run(either, R"({"podTemplateRef":{"name":"a"},"scalableRef":{"name":"b"}})"), "false");
  EXPECT_EQ(run(either, R"({"scalableRef":{"name":"b"}})"), "true");
  const std::string sized = "!has(self.podTemplateRef) || has(self.replicas) || has(self.limits)";
  EXPECT_EQ(run(sized, R"({"podTemplateRef":{"name":"a"}})"), "false");
  EXPECT_EQ(run(sized, R"({"podTemplateRef":{"name":"a"},"replicas":2})"), "true");
}

// ---- The Proxmox provider v0.12.0 and our own CRDs.
TEST(CelProviderRules, MtuIsOneOrInRange) {
  for (const char* rule : {"self == 1 || ( self >= 576 && self <= 65520)",
                           "self == 1 || (self >= 576 && self <= 65520)"}) {
    EXPECT_EQ(run(rule, "1"), "true");
    EXPECT_EQ(run(rule, "1500"), "true");
    EXPECT_EQ(run(rule, "100"), "false");
    EXPECT_EQ(run(rule, "70000"), "false");
  }
}

TEST(CelProviderRules, TemplateNameOrTags) {
  EXPECT_EQ(run("has(self.templateName) || has(self.tags)", R"({"tags":["a"]})"), "true");
  EXPECT_EQ(run("has(self.templateName) || has(self.tags)", R"({})"), "false");
}

TEST(CelProviderRules, ImageGcThresholdsAndJoinCommand) {
  const std::string gc =
      "has(self.imageGCHighThresholdPercent) && has(self.imageGCLowThresholdPercent) ? "
      "self.imageGCHighThresholdPercent > self.imageGCLowThresholdPercent : true";
  EXPECT_EQ(run(gc, R"({"imageGCHighThresholdPercent":85,"imageGCLowThresholdPercent":80})"),
            "true");
  EXPECT_EQ(run(gc, R"({"imageGCHighThresholdPercent":70,"imageGCLowThresholdPercent":80})"),
            "false");
  EXPECT_EQ(run(gc, R"({"imageGCHighThresholdPercent":70})"), "true");
  const std::string join =
      "!has(self.joinCommand) || (has(self.type) && self.type == 'guestAgent')";
  EXPECT_EQ(run(join, R"({"joinCommand":"x","type":"guestAgent"})"), "true");
  EXPECT_EQ(run(join, R"({"joinCommand":"x","type":"cdrom"})"), "false");
  EXPECT_EQ(run(join, R"({"type":"cdrom"})"), "true");
}

TEST(CelProviderRules, RestrictedKubernetesAndK8sDomains) {
  const std::string k8s =
      R"cel(self.find("^([^/]+)").endsWith("kops.k8s.io") || !self.find("^([^/]+)").endsWith("k8s.io"))cel";
  EXPECT_EQ(run(k8s, R"("x.k8s.io/a")"), "false");
  EXPECT_EQ(run(k8s, R"("kops.k8s.io/a")"), "true");
  EXPECT_EQ(run(k8s, R"("a")"), "true");
  const std::string kube =
      R"cel(self.all(x, x in ["kubernetes.io/arch", "kubernetes.io/os"] || x.find("^([^/]+)").endsWith("node.kubernetes.io") || x.find("^([^/]+)").endsWith("node-restriction.kubernetes.io") || !x.find("^([^/]+)").endsWith("kubernetes.io")))cel";
  EXPECT_EQ(run(kube, R"({"kubernetes.io/arch":"amd64","team":"a"})"), "true");
  EXPECT_EQ(run(kube, R"({"node.kubernetes.io/exclude":"x"})"), "true");
  EXPECT_EQ(run(kube, R"({"kubernetes.io/other":"x"})"), "false");
}

// ---- Language corners.
TEST(CelLanguage, ErrorsAreAbsorbedByTheDecidingSideOfLogicalOperators) {
  EXPECT_EQ(run("self.missing == 1 || true", "{}"), "true");
  EXPECT_EQ(run("false && self.missing == 1", "{}"), "false");
  EXPECT_EQ(run("self.missing == 1 && false", "{}"), "false");
  EXPECT_EQ(run("self.missing == 1 || false", "{}"), "error: no such key: missing");
  EXPECT_EQ(run("self.all(x, x.missing) || true", "[{}]"), "true");
}

TEST(CelLanguage, ArithmeticComparisonsAndLiterals) {
  EXPECT_EQ(run("1 + 2 * 3 - 4 / 2 == 5 && 7 % 3 == 1", "null"), "true");
  EXPECT_EQ(run("9223372036854775807 + 1", "null"), "error: integer overflow");
  EXPECT_EQ(run("1 / 0", "null"), "error: division by zero");
  EXPECT_EQ(run("-9223372036854775808 < 0", "null"), "true");
  EXPECT_EQ(run("0x10 == 16 && 3u == 3u && 1.5 > 1.0 && 2 == 2.0", "null"), "true");
  EXPECT_EQ(run(R"('a' + "b" + '''c''' + r'\d' == "abc\\d")", "null"), "true");
  EXPECT_EQ(run(R"("\x41\u00e9" == "Aé" && size("é") == 1)", "null"), "true");
  EXPECT_EQ(run("[1, 2] + [3] == [1, 2, 3] && {'a': 1}['a'] == 1", "null"), "true");
  EXPECT_EQ(run("'b' > 'a' && true != false && !(1 > 2)", "null"), "true");
}

TEST(CelLanguage, MacrosOverListsAndMaps) {
  EXPECT_EQ(run("self.exists(x, x > 2)", "[1,2,3]"), "true");
  EXPECT_EQ(run("self.exists_one(x, x > 1)", "[1,2,3]"), "false");
  EXPECT_EQ(run("self.map(x, x * 2)", "[1,2]"), "[2,4]");
  EXPECT_EQ(run("self.filter(x, x % 2 == 1)", "[1,2,3]"), "[1,3]");
  EXPECT_EQ(run("self.map(x, x > 1, x * 10)", "[1,2,3]"), "[20,30]");
  EXPECT_EQ(run("self.all(k, k.startsWith('a'))", R"({"ab":1,"ac":2})"), "true");
  EXPECT_EQ(run("self.exists(k, self[k] == 2)", R"({"ab":1,"ac":2})"), "true");
}

TEST(CelLanguage, StringAndRegexFunctions) {
  EXPECT_EQ(run("self.matches('^[a-z]+$')", R"("abc")"), "true");
  EXPECT_EQ(run("self.find('[0-9]+')", R"("ab12cd345")"), R"("12")");
  EXPECT_EQ(run("self.findAll('[0-9]+')", R"("ab12cd345")"), R"(["12","345"])");
  EXPECT_EQ(run("self.find('x')", R"("abc")"), R"("")");
  EXPECT_EQ(run("self.contains('b') && self.startsWith('a') && self.endsWith('c')", R"("abc")"),
            "true");
  EXPECT_EQ(run("self.split('/')", R"("a/b/c")"), R"(["a","b","c"])");
  EXPECT_EQ(run("self.lowerAscii() + self.upperAscii()", R"("aB")"), R"("abAB")");
  EXPECT_EQ(run("string(12) + string(true) == '12true' && int('42') == 42", "null"), "true");
  EXPECT_EQ(run("self.indexOf('c')", R"("abc")"), "2");
}

TEST(CelLanguage, CompileRefusesWhatItCannotEvaluate) {
  EXPECT_FALSE(compile("self.quantity().isGreaterThan(1)"));
  EXPECT_FALSE(compile("nope == 1"));
  EXPECT_FALSE(compile("self.matches('[')"));
  EXPECT_FALSE(compile("self == "));
  EXPECT_FALSE(compile("(((1)"));
  EXPECT_FALSE(compile("has(self)"));
  auto e = compile("self.url() == 1");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("undeclared reference to 'url'"), std::string::npos)
      << e.error().message;
  // Deep nesting is refused, not a stack overflow.
  EXPECT_FALSE(compile(std::string(5000, '(') + "1" + std::string(5000, ')')));
  EXPECT_FALSE(compile(std::string(5000, '!') + "true"));
}

TEST(CelLanguage, FieldAccessOnAbsentKeysAndWrongTypesIsAnError) {
  EXPECT_EQ(run("self.a", "{}"), "error: no such key: a");
  EXPECT_EQ(run("self[3]", "[1]"), "error: index out of bounds: 3");
  EXPECT_EQ(run("self.size() == 1", "[1]"), "true");
  EXPECT_EQ(run("self + 1", R"("a")").rfind("error: no such overload", 0), 0u);
}

}  // namespace
}  // namespace kp::sim::kube::cel
