#include "sim/kube/selectors.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/text/trim.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {
// The one trim (core/text), as the owned strings a selector keeps.
std::string trim(std::string_view s) {
  return std::string(text::trim(s));
}

// A matchExpressions entry (key, operator, string values); nullopt for an operator other than
// In, NotIn, Exists, DoesNotExist and, in a node selector term, Gt and Lt.
std::optional<label_requirement> expression_requirement(const json::object& o,
                                                        bool node_operators) {
  label_requirement r;
  r.key = std::string(string_at(o, {"key"}));
  auto op = string_at(o, {"operator"});
  if (op == "In")
    r.operation = label_requirement::op::in;
  else if (op == "NotIn")
    r.operation = label_requirement::op::not_in;
  else if (op == "Exists")
    r.operation = label_requirement::op::exists;
  else if (op == "DoesNotExist")
    r.operation = label_requirement::op::not_exists;
  else if (node_operators && op == "Gt")
    r.operation = label_requirement::op::gt;
  else if (node_operators && op == "Lt")
    r.operation = label_requirement::op::lt;
  else
    return std::nullopt;
  if (const auto* vals = array_at(o, {"values"}))
    for (const auto& v : *vals)
      if (v.is_string()) r.values.emplace_back(v.get_string());
  return r;
}

// Splits at commas that are not inside parentheses.
std::vector<std::string> split_top(const std::string& text) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::vector<std::string> split_values(std::string_view inner) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= inner.size()) {
    auto comma = inner.find(',', start);
    auto part = trim(inner.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (!part.empty()) out.push_back(part);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

bool valid_key(const std::string& k) {
  if (k.empty() || k.size() > 317) return false;
  return std::all_of(k.begin(), k.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
           c == '/';
  });
}
}  // namespace

api_result<label_selector> label_selector::parse(const std::string& text) {
  label_selector sel;
  if (trim(text).empty()) return sel;
  for (auto& raw : split_top(text)) {
    auto part = trim(raw);
    if (part.empty()) return bad_request("unable to parse requirement: empty requirement");
    label_requirement r;
    auto bad = [&] { return bad_request("unable to parse requirement: <" + part + ">"); };
    if (part[0] == '!') {
      r.key = trim(std::string_view(part).substr(1));
      r.operation = label_requirement::op::not_exists;
    } else if (auto p = part.find(" notin "); p != std::string::npos) {
      r.key = trim(std::string_view(part).substr(0, p));
      auto rest = trim(std::string_view(part).substr(p + 7));
      if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') return bad();
      r.operation = label_requirement::op::not_in;
      r.values = split_values(std::string_view(rest).substr(1, rest.size() - 2));
    } else if (auto p2 = part.find(" in "); p2 != std::string::npos) {
      r.key = trim(std::string_view(part).substr(0, p2));
      auto rest = trim(std::string_view(part).substr(p2 + 4));
      if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') return bad();
      r.operation = label_requirement::op::in;
      r.values = split_values(std::string_view(rest).substr(1, rest.size() - 2));
    } else if (auto ne = part.find("!="); ne != std::string::npos) {
      r.key = trim(std::string_view(part).substr(0, ne));
      r.operation = label_requirement::op::not_equals;
      r.values = {trim(std::string_view(part).substr(ne + 2))};
    } else if (auto eq2 = part.find("=="); eq2 != std::string::npos) {
      r.key = trim(std::string_view(part).substr(0, eq2));
      r.values = {trim(std::string_view(part).substr(eq2 + 2))};
    } else if (auto eq = part.find('='); eq != std::string::npos) {
      r.key = trim(std::string_view(part).substr(0, eq));
      r.values = {trim(std::string_view(part).substr(eq + 1))};
    } else if (auto gt = part.find('>'); gt != std::string::npos) {
      r.key = trim(std::string_view(part).substr(0, gt));
      r.operation = label_requirement::op::gt;
      r.values = {trim(std::string_view(part).substr(gt + 1))};
    } else if (auto lt = part.find('<'); lt != std::string::npos) {
      r.key = trim(std::string_view(part).substr(0, lt));
      r.operation = label_requirement::op::lt;
      r.values = {trim(std::string_view(part).substr(lt + 1))};
    } else {
      r.key = part;
      r.operation = label_requirement::op::exists;
    }
    if (!valid_key(r.key)) return bad();
    sel.requirements_.push_back(std::move(r));
  }
  return sel;
}

api_result<label_selector> label_selector::from_object(const json::object* selector) {
  label_selector sel;
  if (!selector) {
    sel.nothing_ = true;
    return sel;
  }
  if (const auto* ml = selector->if_contains("matchLabels"); ml && ml->is_object()) {
    for (const auto& kv : ml->get_object()) {
      if (!kv.value().is_string()) return bad_request("matchLabels values must be strings");
      sel.requirements_.push_back({std::string(kv.key()),
                                   label_requirement::op::equals,
                                   {std::string(kv.value().get_string())}});
    }
  }
  if (const auto* me = selector->if_contains("matchExpressions"); me && me->is_array()) {
    for (const auto& e : me->get_array()) {
      const auto* o = e.if_object();
      if (!o) return bad_request("matchExpressions entries must be objects");
      auto r = expression_requirement(*o, /*node_operators=*/false);
      if (!r)
        return bad_request("\"" + std::string(string_at(*o, {"operator"})) +
                           "\" is not a valid label selector operator");
      sel.requirements_.push_back(std::move(*r));
    }
  }
  return sel;
}

label_selector label_selector::from_node_requirements(const json::array& exprs) {
  label_selector sel;
  for (const auto& e : exprs) {
    const auto* o = e.if_object();
    if (!o) continue;
    auto r = expression_requirement(*o, /*node_operators=*/true);
    if (!r) {
      sel.nothing_ = true;  // an unknown operator matches nothing, as the scheduler treats it
      continue;
    }
    sel.requirements_.push_back(std::move(*r));
  }
  return sel;
}

bool label_selector::matches(const json::object* labels) const {
  if (nothing_) return false;
  for (const auto& r : requirements_) {
    const json::value* v = labels ? labels->if_contains(r.key) : nullptr;
    std::string value = v && v->is_string() ? std::string(v->get_string()) : std::string();
    bool present = v != nullptr;
    auto in = [&] { return std::find(r.values.begin(), r.values.end(), value) != r.values.end(); };
    switch (r.operation) {
      case label_requirement::op::equals:
      case label_requirement::op::in:
        if (!present || !in()) return false;
        break;
      case label_requirement::op::not_equals:
      case label_requirement::op::not_in:
        if (present && in()) return false;
        break;
      case label_requirement::op::exists:
        if (!present) return false;
        break;
      case label_requirement::op::not_exists:
        if (present) return false;
        break;
      case label_requirement::op::gt:
      case label_requirement::op::lt: {
        if (!present || r.values.size() != 1) return false;
        char* e1 = nullptr;
        char* e2 = nullptr;
        long long a = std::strtoll(value.c_str(), &e1, 10);
        long long b = std::strtoll(r.values[0].c_str(), &e2, 10);
        if (value.empty() || *e1 || r.values[0].empty() || *e2) return false;
        if (r.operation == label_requirement::op::gt ? !(a > b) : !(a < b)) return false;
        break;
      }
    }
  }
  return true;
}

std::string field_label_value(const json::object& o, const std::string& kind,
                              const std::string& field) {
  if (field == "metadata.name") return std::string(meta_name(o));
  if (field == "metadata.namespace") return std::string(meta_namespace(o));
  if (kind == "Pod") {
    if (field == "spec.nodeName" || field == "spec.host")
      return std::string(string_at(o, {"spec", "nodeName"}));
    if (field == "spec.restartPolicy") return std::string(string_at(o, {"spec", "restartPolicy"}));
    if (field == "spec.schedulerName") return std::string(string_at(o, {"spec", "schedulerName"}));
    if (field == "spec.serviceAccountName")
      return std::string(string_at(o, {"spec", "serviceAccountName"}));
    if (field == "spec.hostNetwork") {
      const auto* v = find_path(o, {"spec", "hostNetwork"});
      return v && v->is_bool() && v->get_bool() ? "true" : "false";
    }
    if (field == "status.phase") return std::string(string_at(o, {"status", "phase"}));
    if (field == "status.podIP") return std::string(string_at(o, {"status", "podIP"}));
    if (field == "status.nominatedNodeName")
      return std::string(string_at(o, {"status", "nominatedNodeName"}));
  }
  if (kind == "Node" && field == "spec.unschedulable") {
    const auto* v = find_path(o, {"spec", "unschedulable"});
    return v && v->is_bool() && v->get_bool() ? "true" : "false";
  }
  if (kind == "Secret" && field == "type") return std::string(string_at(o, {"type"}));
  if (kind == "Event") {
    if (field == "involvedObject.name")
      return std::string(string_at(o, {"involvedObject", "name"}));
    if (field == "involvedObject.kind")
      return std::string(string_at(o, {"involvedObject", "kind"}));
    if (field == "involvedObject.uid") return std::string(string_at(o, {"involvedObject", "uid"}));
    if (field == "reason") return std::string(string_at(o, {"reason"}));
    if (field == "type") return std::string(string_at(o, {"type"}));
  }
  if (kind == "CertificateSigningRequest" && field == "spec.signerName")
    return std::string(string_at(o, {"spec", "signerName"}));
  return {};
}

namespace {
bool field_supported(const std::string& kind, const std::string& f) {
  if (f == "metadata.name" || f == "metadata.namespace") return true;
  if (kind == "Pod")
    return f == "spec.nodeName" || f == "spec.host" || f == "spec.restartPolicy" ||
           f == "spec.schedulerName" || f == "spec.serviceAccountName" || f == "spec.hostNetwork" ||
           f == "status.phase" || f == "status.podIP" || f == "status.nominatedNodeName";
  if (kind == "Node") return f == "spec.unschedulable";
  if (kind == "Secret") return f == "type";
  if (kind == "Event")
    return f == "involvedObject.name" || f == "involvedObject.kind" || f == "involvedObject.uid" ||
           f == "reason" || f == "type";
  if (kind == "CertificateSigningRequest") return f == "spec.signerName";
  return false;
}
}  // namespace

api_result<field_selector> field_selector::parse(const std::string& text, const std::string& kind) {
  field_selector sel;
  sel.kind_ = kind;
  if (trim(text).empty()) return sel;
  for (auto& raw : split_top(text)) {
    auto part = trim(raw);
    field_requirement r;
    if (auto ne = part.find("!="); ne != std::string::npos) {
      r.field = trim(std::string_view(part).substr(0, ne));
      r.value = trim(std::string_view(part).substr(ne + 2));
      r.negate = true;
    } else if (auto eq2 = part.find("=="); eq2 != std::string::npos) {
      r.field = trim(std::string_view(part).substr(0, eq2));
      r.value = trim(std::string_view(part).substr(eq2 + 2));
    } else if (auto eq = part.find('='); eq != std::string::npos) {
      r.field = trim(std::string_view(part).substr(0, eq));
      r.value = trim(std::string_view(part).substr(eq + 1));
    } else {
      return bad_request("invalid selector: '" + text + "'; can't understand '" + part + "'");
    }
    if (!field_supported(kind, r.field))
      return bad_request("field label not supported: " + r.field);
    sel.requirements_.push_back(std::move(r));
  }
  return sel;
}

bool field_selector::matches(const json::object& o) const {
  for (const auto& r : requirements_) {
    bool eq = field_label_value(o, kind_, r.field) == r.value;
    if (eq == r.negate) return false;
  }
  return true;
}

std::optional<std::string> field_selector::exact_name() const {
  for (const auto& r : requirements_)
    if (r.field == "metadata.name" && !r.negate) return r.value;
  return std::nullopt;
}

}  // namespace kp::sim::kube
