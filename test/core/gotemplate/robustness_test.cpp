// Malformed input must give an error value, never a crash, a hang or an escaping exception.
#include <gtest/gtest.h>

#include <random>

#include "core/gotemplate/template_set.hpp"

namespace kp::gotemplate {
namespace {

const char* const valid_template = R"tmpl(#cloud-config
hostname: {{ .Metadata.Hostname }}
{{- define "keys" }}{{ range $i, $k := . }}{{ if $i }},{{ end }}{{ $k | quote }}{{ end }}{{ end }}
keys: [{{ template "keys" (split (get .Values "keys") ",") }}]
{{- with .Values }}
{{- range $k, $v := . }}
  {{ $k }}: {{ $v | upper | printf "%q" }}
{{- else }}
  none: {{ "x" | b64enc }}
{{- end }}
{{- end }}
net: {{ cidrhost "10.0.0.0/24" 5 }} {{ "fd00::/64" | cidrslaac "00:11:22:33:44:55" }}
{{ if and (eq (len .Metadata.Tags) 2) (hasTag .Metadata.Tags "b") }}{{ toYaml .Metadata | nindent 2 }}{{ end }}
{{ regexReplaceAll "(a+)" "caaat" "${1}X" }} {{ slice "hello" 1 3 }} {{ index .Metadata.Tags 0 }}
{{/* comment */ -}}
{{ block "tail" . }}{{ .Metadata.Hostname | trimPrefix "n" | default "d" }}{{ end }}
)tmpl";

value data() {
  value md = value::record();
  md.field("Hostname", "node").field("Tags", value::strings({"a", "b"}));
  return value::map(
      {{"Metadata", md}, {"Values", value::string_map({{"keys", "k1,k2"}, {"z", "v"}})}});
}

// Parses and runs text; an error is fine, a crash or an exception is not.
bool survives(const std::string& text, const value& d) {
  try {
    auto t = template_set::parse("fuzz", text);
    if (!t) return !t.error().message.empty();
    t->set_limits({.max_template_depth = 50,
                   .max_nesting_depth = 500,
                   .max_output_bytes = 1 << 20,
                   .max_steps = 200000});
    auto r = t->execute(d);
    return r.ok() || !r.error().message.empty();
  } catch (...) {
    return false;
  }
}

TEST(GotemplateRobustness, TheSeedTemplateRendersCleanly) {
  auto r = render_template("fuzz", valid_template, data());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_NE(r->find("keys: [\"k1\",\"k2\"]"), std::string::npos) << *r;
  EXPECT_NE(r->find("net: 10.0.0.5 fd00::211:22ff:fe33:4455/64"), std::string::npos) << *r;
}

TEST(GotemplateRobustness, RandomByteStringsGiveErrorsNotCrashes) {
  std::mt19937 rng(20240601);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(0, 200);
  value d = data();
  for (int i = 0; i < 3000; ++i) {
    std::string s;
    int n = length(rng);
    if (i % 2 == 0) s = "{{";  // half of them start inside an action
    for (int k = 0; k < n; ++k) s.push_back(static_cast<char>(byte(rng)));
    ASSERT_TRUE(survives(s, d)) << "iteration " << i;
  }
}

TEST(GotemplateRobustness, RandomMutationsOfAValidTemplateGiveErrorsNotCrashes) {
  std::mt19937 rng(7);
  const std::vector<std::string> pieces = {
      "{{",   "}}",    "{{-",  "-}}",    " ",        "|",     "(",      ")",        "$",    "$x",
      ":=",   "=",     ".",    ".A",     ",",        "\"",    "`",      "'",        "end",  "if",
      "else", "range", "with", "define", "template", "block", "break",  "continue", "nil",  "-1",
      "0x",   "1e9",   "\\",   "/*",     "*/",       "\n",    "printf", "index",    "\xff", "\0"};
  value d = data();
  std::string base = valid_template;
  for (int i = 0; i < 4000; ++i) {
    std::string s = base;
    int edits = 1 + static_cast<int>(rng() % 6);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      std::size_t pos = rng() % s.size();
      switch (rng() % 4) {
        case 0:  // delete a span
          s.erase(pos, 1 + rng() % 8);
          break;
        case 1:  // insert a syntax piece
          s.insert(pos, pieces[rng() % pieces.size()]);
          break;
        case 2:  // replace one byte
          s[pos] = static_cast<char>(rng() % 256);
          break;
        default:  // duplicate a span
          s.insert(pos, s.substr(rng() % s.size(), rng() % 40));
          break;
      }
    }
    ASSERT_TRUE(survives(s, d)) << "iteration " << i << "\n" << s;
  }
}

TEST(GotemplateRobustness, RecursionAndDeepNestingEndInErrors) {
  value d = data();
  EXPECT_TRUE(
      survives("{{ define \"r\" }}{{ template \"r\" . }}{{ end }}{{ template \"r\" . }}", d));
  std::string withs;
  for (int i = 0; i < 200; ++i) withs += "{{ with . }}";
  for (int i = 0; i < 200; ++i) withs += "{{ end }}";
  EXPECT_TRUE(survives(withs, d));
  // Nesting under the parse limit, repeated through recursion, meets the execution limit.
  std::string nested = "{{ define \"n\" }}";
  for (int i = 0; i < 200; ++i) nested += "{{ if 1 }}";
  nested += "{{ template \"n\" }}";
  for (int i = 0; i < 200; ++i) nested += "{{ end }}";
  nested += "{{ end }}{{ template \"n\" }}";
  auto r = render_template("t", nested, d);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("exceeded maximum"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace kp::gotemplate
