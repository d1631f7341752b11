// Every function of the Go provider's map, with the output its Go implementation gives.
#include <gtest/gtest.h>

#include "test/core/gotemplate/render.hpp"

namespace kp::gotemplate {
namespace {

using testing::render;

value sample() {
  value rec = value::record();
  rec.field("A", "").field("B", 0);
  return value::map({{"L", value::list({"a", "b"})},
                     {"M", value::map({{"b", 2}, {"a", 1}})},
                     {"Values", value::string_map({{"k", "v"}, {"SSHAuthorizedKeys", "k1,k2"}})},
                     {"Tags", value::strings({"tag1", "tag2"})},
                     {"EmptyRec", rec}});
}

std::string error_of(std::string_view text, const std::string& function) {
  std::string out = render(text, sample());
  auto at = out.find("at <" + function + ">: ");
  if (out.rfind("ERROR: ", 0) != 0 || at == std::string::npos) return "no error: " + out;
  return out.substr(at + function.size() + 7);
}

TEST(GotemplateProviderFunctions, DefaultCoalesceAndTernary) {
  EXPECT_EQ(
      render("{{ default \"d\" \"\" }}|{{ default \"d\" \"x\" }}|{{ .Missing | default \"d\" }}|"
             "{{ 0 | default 5 }}|{{ .L | default \"d\" }}",
             sample()),
      "d|x|d|5|[a b]");
  // Go's reflect.Call passes an empty variadic slice, so the provider's given[0] fails.
  EXPECT_EQ(error_of("{{ default \"d\" }}", "default"),
            "error calling default: runtime error: index out of range [0] with length 0");
  EXPECT_EQ(render("{{ coalesce \"\" 0 \"x\" \"y\" }}|{{ coalesce \"\" .Missing }}", sample()),
            "x|<no value>");
  EXPECT_EQ(render("{{ ternary \"a\" \"b\" true }}|{{ false | ternary \"y\" \"n\" }}"), "a|n");
  // Go converts constants to the parameter's type and names the argument.
  EXPECT_EQ(error_of("{{ ternary \"a\" \"b\" 1 }}", "1"), "expected bool; found 1");
}

TEST(GotemplateProviderFunctions, JsonAndYamlSerialisation) {
  EXPECT_EQ(render("{{ toJson .M }}|{{ .L | toJson }}|{{ toJson .Missing }}", sample()),
            "{\"a\":1,\"b\":2}|[\"a\",\"b\"]|null");
  EXPECT_EQ(render("{{ toPrettyJson .M }}", sample()), "{\n  \"a\": 1,\n  \"b\": 2\n}");
  EXPECT_EQ(render("{{ toYaml .M }}|{{ toYaml .L }}", sample()), "a: 1\nb: 2|- a\n- b");
  EXPECT_EQ(render("{{ toYaml (dict) }}", sample()).rfind("ERROR", 0), 0u);  // no dict in the set
  value nested = value::map({{"outer", value::map({{"list", value::list({"x"})}})}});
  EXPECT_EQ(render("{{ toYaml . }}", nested), "outer:\n    list:\n        - x");
  EXPECT_EQ(render("{{ toYamlPretty . }}", nested), "outer:\n  list:\n    - x");
}

TEST(GotemplateProviderFunctions, IndentNindentAndQuote) {
  EXPECT_EQ(render("{{ indent 2 \"a\\nb\" }}|{{ \"a\\nb\" | nindent 4 }}"),
            "  a\n  b|\n    a\n    b");
  EXPECT_EQ(render("{{ quote \"a\" 1 nil \"b\\\"c\" }}|{{ .Missing | quote }}|{{ .L | quote }}",
                   sample()),
            "\"a\" \"1\" \"b\\\"c\"||\"[a b]\"");
  EXPECT_EQ(error_of("{{ indent \"2\" \"x\" }}", "\"2\""), "expected integer; found \"2\"");
  EXPECT_EQ(error_of("{{ indent -1 \"x\" }}", "indent"),
            "error calling indent: strings: negative Repeat count");
}

TEST(GotemplateProviderFunctions, CaseAndTrimming) {
  EXPECT_EQ(
      render("{{ upper \"abc\xc3\xa9\" }}|{{ lower \"ABC\xc3\x89\" }}|{{ trim \"  a b \\n\\t\" }}"),
      "ABC\xc3\x89|abc\xc3\xa9|a b");
  EXPECT_EQ(
      render(
          "{{ trimSuffix \".com\" \"example.com\" }}|{{ \"example.com\" | trimSuffix \".org\" }}|"
          "{{ trimPrefix \"v\" \"v1.30\" }}|{{ \"v1.30\" | trimPrefix \"v\" }}"),
      "example|example.com|1.30|1.30");
}

TEST(GotemplateProviderFunctions, SplitJoinAndReplaceFollowTheProvidersArgumentOrder) {
  EXPECT_EQ(render("{{ split \"a,b,c\" \",\" }}|{{ index (split \"a,b\" \",\") 1 }}|{{ split \"\" "
                   "\",\" | len }}"),
            "[a b c]|b|1");
  EXPECT_EQ(render("{{ join (split \"a b\" \" \") \",\" }}|{{ join .Tags \" \" }}", sample()),
            "a,b|tag1 tag2");
  // strings.Join takes a []string: a []interface{} is refused, naming the argument.
  EXPECT_EQ(error_of("{{ join .L \",\" }}", ".L"),
            "wrong type for value; expected []string; got []interface {}");
  EXPECT_EQ(render("{{ replace \"-\" \"_\" \"a-b-c\" }}|{{ \"a-b\" | replace \"-\" \".\" }}|"
                   "{{ replace \"\" \"|\" \"ab\" }}"),
            "a_b_c|a.b||a|b|");
}

TEST(GotemplateProviderFunctions, RegularExpressions) {
  EXPECT_EQ(render("{{ regexFind \"[0-9]+\" \"abc123def456\" }}|{{ regexFind \"z\" \"abc\" }}"),
            "123|");
  EXPECT_EQ(render("{{ regexFindString `v([0-9]+)\\.([0-9]+)` \"v1.30.2\" 2 }}|"
                   "{{ regexFindString `v([0-9]+)` \"v1\" 5 }}|{{ regexFindString `x` \"v1\" 0 }}"),
            "30||");
  EXPECT_EQ(render("{{ regexReplaceAll \"a(x*)b\" \"-ab-axxb-\" \"${1}W\" }}|"
                   "{{ regexReplaceAll \"a(x*)b\" \"-ab-axxb-\" \"$1W\" }}|"
                   "{{ regexReplaceAll \"a*\" \"baaac\" \"X\" }}|"
                   "{{ regexReplaceAll \"(?i)K8S\" \"k8s K8s\" \"kube\" }}|"
                   "{{ regexReplaceAll `(?P<major>\\d+)\\.(\\d+)` \"v1.30\" \"$2.$1 $$\" }}"),
            "-W-xxW-|---|XbXcX|kube kube|v30.1 $");
  EXPECT_EQ(error_of("{{ regexFind \"(\" \"x\" }}", "regexFind")
                .rfind("error calling regexFind: error parsing regexp: ", 0),
            0u);
}

TEST(GotemplateProviderFunctions, LookupsGetAndGetValue) {
  EXPECT_EQ(render("{{ get .Values \"k\" }}|{{ get .Values \"missing\" }}|{{ get .Missing \"k\" }}",
                   sample()),
            "v||");
  EXPECT_EQ(render("{{ getValue \"a=1;b=2\" \"b\" }}|{{ getValue \"a=1\" \"z\" }}|{{ getValue "
                   "\"a=1=2\" \"a\" }}"),
            "2||1");
  EXPECT_EQ(error_of("{{ getValue \"a\" \"a\" }}", "getValue"),
            "error calling getValue: runtime error: index out of range [1] with length 1");
}

TEST(GotemplateProviderFunctions, PredicatesEmptyContainsAffixesAndKeys) {
  EXPECT_EQ(render("{{ empty \"\" }} {{ empty .L }} {{ empty 0 }} {{ empty .EmptyRec }} {{ empty "
                   ".Missing }} "
                   "{{ empty \"x\" }}",
                   sample()),
            "true false true true true false");
  EXPECT_EQ(render("{{ contains \"ell\" \"hello\" }} {{ \"hello\" | contains \"xyz\" }} "
                   "{{ hasPrefix \"he\" \"hello\" }} {{ \"hello\" | hasSuffix \"lo\" }} {{ "
                   "hasSuffix \"he\" \"hello\" }}"),
            "true false true true false");
  EXPECT_EQ(
      render("{{ hasKey .M \"a\" }} {{ hasKey .M \"z\" }} {{ hasKey .Missing \"a\" }}", sample()),
      "true false false");
  EXPECT_EQ(
      render("{{ hasTag .Tags \"tag2\" }} {{ hasTag .Tags \"tag3\" }} {{ hasTag .Tags \"\" }} "
             "{{ hasTag .Missing \"a\" }}",
             sample()),
      "true false false false");
}

TEST(GotemplateProviderFunctions, Base64) {
  EXPECT_EQ(render("{{ b64enc \"hello\" }}|{{ b64enc \"\" }}|{{ b64enc \"ab\" }}|{{ \"aGVsbG8=\" | "
                   "b64dec }}|"
                   "{{ b64dec \"YWI=\\n\" }}"),
            "aGVsbG8=||YWI=|hello|ab");
  EXPECT_EQ(error_of("{{ b64dec \"!!\" }}", "b64dec"),
            "error calling b64dec: illegal base64 data at input byte 0");
  EXPECT_EQ(error_of("{{ b64dec \"YWI\" }}", "b64dec"),
            "error calling b64dec: illegal base64 data at input byte 3");
}

TEST(GotemplateProviderFunctions, CidrhostGivesTheAddressOrTheNthHost) {
  EXPECT_EQ(render("{{ \"192.168.1.5/24\" | cidrhost }}"), "192.168.1.5");
  EXPECT_EQ(render("{{ cidrhost \"192.168.1.5/24\" 15 }}"), "192.168.1.15");
  EXPECT_EQ(render("{{ cidrhost \"10.12.112.0/20\" 16 }}|{{ cidrhost \"10.12.112.0/20\" -1 }}"),
            "10.12.112.16|10.12.127.255");
  EXPECT_EQ(render("{{ cidrhost \"fd60:172:16::/64\" 10 }}|{{ cidrhost \"fd60:172:16::1/64\" }}|"
                   "{{ cidrhost \"2001:db8::/120\" -2 }}"),
            "fd60:172:16::a|fd60:172:16::1|2001:db8::fe");
  EXPECT_EQ(error_of("{{ cidrhost \"10.0.0.0/24\" 300 }}", "cidrhost"),
            "error calling cidrhost: prefix of 24 does not accommodate a host numbered 300");
  EXPECT_EQ(error_of("{{ cidrhost \"10.0.0.0\" }}", "cidrhost"),
            "error calling cidrhost: invalid CIDR address: 10.0.0.0");
}

TEST(GotemplateProviderFunctions, CidrslaacBuildsTheEui64AddressKeepingThePrefixLength) {
  // The Go provider's own test cases.
  EXPECT_EQ(render("ipv6: {{ \"2001:db8:1::/64\" | cidrslaac \"00:1A:2B:3C:4D:5E\" }}"),
            "ipv6: 2001:db8:1:0:21a:2bff:fe3c:4d5e/64");
  EXPECT_EQ(render("ipv6: {{ \"2001:db8:1:2:3::/80\" | cidrslaac \"00:1A:2B:3C:4D:5E\" }}"),
            "ipv6: 2001:db8:1:2:3:2bff:fe3c:4d5e/80");
  EXPECT_EQ(render("ipv6: {{ \"2001:db8:1:2:3::/88\" | cidrslaac \"00:1A:2B:3C:4D:5E\" }}"),
            "ipv6: 2001:db8:1:2:3:ff:fe3c:4d5e/88");
  EXPECT_EQ(render("ipv6: {{ \"2001:db8:1:2:3::/112\" | cidrslaac \"00:1A:2B:3C:4D:5E\" }}"),
            "ipv6: 2001:db8:1:2:3::4d5e/112");
  EXPECT_EQ(render("{{ cidrslaac \"00-1a-2b-3c-4d-5e\" \"fd00::/64\" }}"),
            "fd00::21a:2bff:fe3c:4d5e/64");
  EXPECT_EQ(error_of("{{ cidrslaac \"00:1A:2B:3C:4D:5E\" \"2001:db8::/120\" }}", "cidrslaac"),
            "error calling cidrslaac: slaac generator requires a mask of /64 to /112");
  EXPECT_EQ(error_of("{{ cidrslaac \"zz\" \"2001:db8::/64\" }}", "cidrslaac"),
            "error calling cidrslaac: address zz: invalid MAC address");
}

}  // namespace
}  // namespace kp::gotemplate
