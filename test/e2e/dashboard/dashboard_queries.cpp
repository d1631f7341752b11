#include "test/e2e/dashboard/dashboard_queries.hpp"

#include <boost/json.hpp>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kp::e2e {
namespace {

namespace json = boost::json;

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':';
}
bool ident_char(char c) {
  return ident_start(c) || std::isdigit(static_cast<unsigned char>(c));
}

// The index just past the string literal that starts at `i`.
std::size_t skip_string(std::string_view s, std::size_t i) {
  const char quote = s[i++];
  while (i < s.size() && s[i] != quote) i += (s[i] == '\\' && quote != '`') ? 2 : 1;
  return std::min(i + 1, s.size());
}

// The index just past the bracket group that opens at `i` (strings inside skipped).
std::size_t skip_group(std::string_view s, std::size_t i) {
  const char open = s[i];
  const char close = open == '{' ? '}' : open == '[' ? ']' : ')';
  int depth = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '"' || c == '\'' || c == '`') {
      i = skip_string(s, i);
      continue;
    }
    if (c == open) ++depth;
    if (c == close && --depth == 0) return i + 1;
    ++i;
  }
  return i;
}

std::size_t skip_spaces(std::string_view s, std::size_t i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

const std::set<std::string_view> label_list_keywords{"by",       "without",    "on",
                                                     "ignoring", "group_left", "group_right"};
const std::set<std::string_view> operator_keywords{"and", "or", "unless", "bool", "offset"};
// Aggregations may put their by/without clause before the parenthesis: `sum by (le) (x)`.
const std::set<std::string_view> aggregations{
    "sum",   "min",          "max",     "avg",  "group",    "stddev", "stdvar",
    "count", "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio"};

void collect_panels(const json::value& panels, std::vector<std::string>& out) {
  if (!panels.is_array()) return;
  for (const auto& p : panels.as_array()) {
    if (!p.is_object()) continue;
    if (auto* targets = p.as_object().if_contains("targets"); targets && targets->is_array()) {
      for (const auto& t : targets->as_array()) {
        if (auto* expr = t.as_object().if_contains("expr"); expr && expr->is_string())
          out.emplace_back(expr->as_string());
      }
    }
    if (auto* nested = p.as_object().if_contains("panels")) collect_panels(*nested, out);
  }
}

}  // namespace

std::vector<std::string> dashboard_queries(const json::value& dashboard) {
  std::vector<std::string> out;
  const auto& d = dashboard.as_object();
  if (auto* panels = d.if_contains("panels")) collect_panels(*panels, out);
  if (auto* templating = d.if_contains("templating"); templating && templating->is_object()) {
    if (auto* list = templating->as_object().if_contains("list"); list && list->is_array()) {
      for (const auto& v : list->as_array()) {
        auto* def = v.as_object().if_contains("definition");
        if (def == nullptr || !def->is_string()) continue;
        std::string_view text = def->as_string();
        // label_values(metric_selector, label): the selector is the query.
        const std::string_view prefix = "label_values(";
        if (text.substr(0, prefix.size()) != prefix) continue;
        auto comma = text.rfind(',');
        if (comma == std::string_view::npos || comma < prefix.size()) continue;
        out.emplace_back(text.substr(prefix.size(), comma - prefix.size()));
      }
    }
  }
  return out;
}

std::set<std::string> promql_metric_names(std::string_view s) {
  std::set<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '"' || c == '\'' || c == '`') {
      i = skip_string(s, i);
    } else if (c == '{' || c == '[') {
      i = skip_group(s, i);
    } else if (c == '$') {
      ++i;
      while (i < s.size() && ident_char(s[i])) ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      while (i < s.size() && (ident_char(s[i]) || s[i] == '.')) ++i;  // 0.95, 1e3, 5m
    } else if (ident_start(c)) {
      const auto start = i;
      while (i < s.size() && ident_char(s[i])) ++i;
      const auto word = s.substr(start, i - start);
      const auto next = skip_spaces(s, i);
      const bool call = next < s.size() && s[next] == '(';
      if (label_list_keywords.count(word)) {
        if (call) i = skip_group(s, next);
      } else if (!call && !operator_keywords.count(word) && !aggregations.count(word)) {
        out.emplace(word);
      }
    } else {
      ++i;
    }
  }
  return out;
}

std::set<std::string> grafana_variables(std::string_view s) {
  std::set<std::string> out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '$') continue;
    std::size_t j = i + 1;
    const bool braced = j < s.size() && s[j] == '{';
    if (braced) ++j;
    const auto start = j;
    while (j < s.size() && ident_char(s[j])) ++j;
    auto name = std::string(s.substr(start, j - start));
    if (!name.empty() && name.rfind("__", 0) != 0) out.insert(name);
    i = j;
  }
  return out;
}

json::value load_chart_dashboard() {
  const char* source = std::getenv("KP_SOURCE_DIR");
  const std::string path = std::string(source ? source : ".") +
                           "/chart/karpenter-proxmox/dashboards/karpenter-proxmox.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

}  // namespace kp::e2e
