// Firewall endpoints: VM options and rules, cluster security groups and their rules.
#include <cctype>

#include "sim/pve/pve_world.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {

std::string rules_digest(const std::vector<firewall_rule>& rules) {
  std::string text;
  for (const auto& r : rules) {
    for (const auto& [k, v] : r.fields) text += k + "=" + v + ";";
    text += "\n";
  }
  return sha1_hex(text);
}

std::string options_digest(const std::map<std::string, std::string>& options) {
  std::string text;
  for (const auto& [k, v] : options) text += k + ": " + v + "\n";
  return sha1_hex(text);
}

json::array render_rules(const std::vector<firewall_rule>& rules) {
  json::array out;
  const auto digest = rules_digest(rules);
  int pos = 0;
  for (const auto& r : rules) {
    json::object o{{"pos", pos++}, {"digest", digest}};
    for (const auto& [k, v] : r.fields) {
      if (k == "enable") {
        try {
          o[k] = std::stoi(v);
          continue;
        } catch (...) {
        }
      }
      o[k] = v;
    }
    out.push_back(std::move(o));
  }
  return out;
}

bool valid_group_name(const std::string& g, std::size_t max) {
  if (g.empty() || g.size() > max || !std::isalpha(static_cast<unsigned char>(g[0]))) return false;
  for (char ch : g)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_')) return false;
  return true;
}

// Validates the fields of a rule from request parameters.
result<firewall_rule> rule_from(const request_params& p, bool allow_group,
                                const firewall_rule* base) {
  firewall_rule r;
  if (base) r = *base;
  static const char* fields[] = {"type",    "action", "iface",    "enable", "macro",
                                 "proto",   "dport",  "sport",    "source", "dest",
                                 "comment", "log",    "icmp-type"};
  for (const char* f : fields)
    if (auto v = p.get(f)) r.fields[f] = *v;
  if (auto del = p.get("delete")) {
    std::string cur;
    for (char ch : *del + ",") {
      if (ch == ',' || ch == ';' || ch == ' ') {
        if (!cur.empty()) r.fields.erase(cur);
        cur.clear();
      } else {
        cur.push_back(ch);
      }
    }
  }
  const auto type = r.fields.count("type") ? r.fields["type"] : "";
  if (type.empty()) return make_error("param:type", "property is missing and it is not optional");
  if (type != "in" && type != "out" && !(allow_group && type == "group"))
    return make_error("param:type", "value '" + type +
                                        "' does not have a value in the enumeration 'in, out" +
                                        std::string(allow_group ? ", group'" : "'"));
  const auto action = r.fields.count("action") ? r.fields["action"] : "";
  if (action.empty())
    return make_error("param:action", "property is missing and it is not optional");
  if (type == "group") {
    if (!valid_group_name(action, 20))
      return make_error("param:action", "value does not match the regex pattern");
  } else if (action != "ACCEPT" && action != "DROP" && action != "REJECT") {
    return make_error("param:action", "value does not match the regex pattern");
  }
  if (auto it = r.fields.find("iface"); it != r.fields.end()) {
    const auto& v = it->second;
    bool ok = v.size() > 3 && v.rfind("net", 0) == 0;
    for (std::size_t i = 3; ok && i < v.size(); ++i)
      ok = std::isdigit(static_cast<unsigned char>(v[i]));
    if (!ok) return make_error("param:iface", "value does not match the regex pattern");
  }
  if (auto it = r.fields.find("enable");
      it != r.fields.end() && it->second != "0" && it->second != "1")
    return make_error("param:enable", "type check ('integer') failed - got '" + it->second + "'");
  return r;
}

std::optional<int> parse_pos(const std::string& text) {
  try {
    std::size_t used = 0;
    int v = std::stoi(text, &used);
    if (used == text.size() && v >= 0) return v;
  } catch (...) {
  }
  return std::nullopt;
}

}  // namespace

api_reply pve_world::get_vm_firewall_options(api_call& c) {
  auto vm = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!vm) return reply_from(vm.error());
  json::object o;
  for (const auto& [k, v] : (*vm)->firewall_options) {
    static const std::set<std::string> ints = {"enable",    "dhcp", "ipfilter",
                                               "macfilter", "ndp",  "radv"};
    if (ints.count(k))
      o[k] = std::stoi(v);
    else
      o[k] = v;
  }
  o["digest"] = options_digest((*vm)->firewall_options);
  return api_reply::ok(o);
}

api_reply pve_world::put_vm_firewall_options(api_call& c) {
  auto vm = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!vm) return reply_from(vm.error());
  auto& opts = (*vm)->firewall_options;
  if (auto d = c.params.get("digest"); d && *d != options_digest(opts))
    return api_reply::fail(
        500, "detected modified configuration - file changed by other user? Try again.");
  static const std::set<std::string> bools = {"enable",    "dhcp", "ipfilter",
                                              "macfilter", "ndp",  "radv"};
  static const std::set<std::string> policies = {"policy_in", "policy_out"};
  static const std::set<std::string> levels = {"log_level_in", "log_level_out"};
  std::map<std::string, std::string> next = opts;
  for (const auto& [k, v] : c.params.items()) {
    if (k == "node" || k == "vmid" || k == "digest" || k == "delete") continue;
    if (bools.count(k)) {
      auto b = c.params.get_bool(k);
      if (!b) return api_reply::param(k, "type check ('boolean') failed - got '" + v + "'");
      next[k] = *b ? "1" : "0";
    } else if (policies.count(k)) {
      if (v != "ACCEPT" && v != "DROP" && v != "REJECT")
        return api_reply::param(
            k, "value '" + v + "' does not have a value in the enumeration 'ACCEPT, REJECT, DROP'");
      next[k] = v;
    } else if (levels.count(k) || k == "ipfilter") {
      next[k] = v;
    } else {
      return api_reply::param(
          k,
          "property is not defined in schema and the schema does not allow additional properties");
    }
  }
  if (auto del = c.params.get("delete")) {
    std::string cur;
    for (char ch : *del + ",") {
      if (ch == ',' || ch == ';' || ch == ' ') {
        if (!cur.empty()) next.erase(cur);
        cur.clear();
      } else {
        cur.push_back(ch);
      }
    }
  }
  opts = std::move(next);
  return api_reply::ok(nullptr);
}

api_reply pve_world::get_vm_firewall_rules(api_call& c) {
  auto vm = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!vm) return reply_from(vm.error());
  return api_reply::ok(render_rules((*vm)->firewall_rules));
}

api_reply pve_world::post_vm_firewall_rule(api_call& c) {
  auto vm = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!vm) return reply_from(vm.error());
  auto& rules = (*vm)->firewall_rules;
  if (auto d = c.params.get("digest"); d && *d != rules_digest(rules))
    return api_reply::fail(
        500, "detected modified configuration - file changed by other user? Try again.");
  auto r = rule_from(c.params, true, nullptr);
  if (!r) return reply_from(r.error());
  std::size_t pos = 0;  // new rules go on top unless pos says otherwise
  if (auto p = c.params.get("pos")) {
    auto v = parse_pos(*p);
    if (!v) return api_reply::param("pos", "type check ('integer') failed - got '" + *p + "'");
    pos = std::min<std::size_t>(static_cast<std::size_t>(*v), rules.size());
  }
  rules.insert(rules.begin() + static_cast<std::ptrdiff_t>(pos), *r);
  return api_reply::ok(nullptr);
}

api_reply pve_world::get_vm_firewall_rule(api_call& c) {
  auto vm = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!vm) return reply_from(vm.error());
  auto pos = parse_pos(c.path["pos"]);
  auto& rules = (*vm)->firewall_rules;
  if (!pos || static_cast<std::size_t>(*pos) >= rules.size())
    return api_reply::fail(500, "no rule at position " + c.path["pos"]);
  auto all = render_rules(rules);
  return api_reply::ok(all[static_cast<std::size_t>(*pos)]);
}

api_reply pve_world::put_vm_firewall_rule(api_call& c) {
  auto vm = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!vm) return reply_from(vm.error());
  auto pos = parse_pos(c.path["pos"]);
  auto& rules = (*vm)->firewall_rules;
  if (!pos || static_cast<std::size_t>(*pos) >= rules.size())
    return api_reply::fail(500, "no rule at position " + c.path["pos"]);
  if (auto d = c.params.get("digest"); d && *d != rules_digest(rules))
    return api_reply::fail(
        500, "detected modified configuration - file changed by other user? Try again.");
  auto r = rule_from(c.params, true, &rules[static_cast<std::size_t>(*pos)]);
  if (!r) return reply_from(r.error());
  rules[static_cast<std::size_t>(*pos)] = *r;
  if (auto moveto = c.params.get("moveto")) {
    auto to = parse_pos(*moveto);
    if (to) {
      auto moved = rules[static_cast<std::size_t>(*pos)];
      rules.erase(rules.begin() + *pos);
      rules.insert(
          rules.begin() + std::min<std::ptrdiff_t>(*to, static_cast<std::ptrdiff_t>(rules.size())),
          moved);
    }
  }
  return api_reply::ok(nullptr);
}

api_reply pve_world::delete_vm_firewall_rule(api_call& c) {
  auto vm = vm_on_node(c.path["node"], c.path["vmid"]);
  if (!vm) return reply_from(vm.error());
  auto pos = parse_pos(c.path["pos"]);
  auto& rules = (*vm)->firewall_rules;
  if (!pos || static_cast<std::size_t>(*pos) >= rules.size())
    return api_reply::fail(500, "no rule at position " + c.path["pos"]);
  rules.erase(rules.begin() + *pos);
  return api_reply::ok(nullptr);
}

api_reply pve_world::get_firewall_groups(api_call&) {
  json::array out;
  for (const auto& [name, g] : firewall_groups) {
    json::object o{{"group", name}, {"digest", rules_digest(g.rules)}};
    if (!g.comment.empty()) o["comment"] = g.comment;
    out.push_back(std::move(o));
  }
  return api_reply::ok(out);
}

api_reply pve_world::post_firewall_group(api_call& c) {
  auto group = c.params.get("group");
  if (!group) return api_reply::param("group", "property is missing and it is not optional");
  if (!valid_group_name(*group, 18))
    return api_reply::param("group", "value does not match the regex pattern");
  if (auto rename = c.params.get("rename")) {
    auto it = firewall_groups.find(*rename);
    if (it == firewall_groups.end())
      return api_reply::fail(500, "Security group '" + *rename + "' does not exist");
    if (firewall_groups.count(*group))
      return api_reply::param("group", "Security group '" + *group + "' already exists");
    firewall_groups[*group] = it->second;
    firewall_groups.erase(*rename);
    return api_reply::ok(nullptr);
  }
  if (firewall_groups.count(*group)) {
    if (c.params.has("comment") && !c.params.has("rename") && c.params.has("digest")) {
      firewall_groups[*group].comment = c.params.get_or("comment", "");
      return api_reply::ok(nullptr);
    }
    return api_reply::param("group", "Security group '" + *group + "' already exists");
  }
  firewall_groups[*group].comment = c.params.get_or("comment", "");
  return api_reply::ok(nullptr);
}

api_reply pve_world::get_firewall_group(api_call& c) {
  auto it = firewall_groups.find(c.path["group"]);
  if (it == firewall_groups.end())
    return api_reply::fail(500, "no such security group '" + c.path["group"] + "'");
  return api_reply::ok(render_rules(it->second.rules));
}

api_reply pve_world::post_firewall_group_rule(api_call& c) {
  auto it = firewall_groups.find(c.path["group"]);
  if (it == firewall_groups.end())
    return api_reply::fail(500, "no such security group '" + c.path["group"] + "'");
  auto r = rule_from(c.params, false, nullptr);
  if (!r) return reply_from(r.error());
  it->second.rules.insert(it->second.rules.begin(), *r);
  return api_reply::ok(nullptr);
}

api_reply pve_world::delete_firewall_group(api_call& c) {
  auto it = firewall_groups.find(c.path["group"]);
  if (it == firewall_groups.end())
    return api_reply::fail(500, "no such security group '" + c.path["group"] + "'");
  if (!it->second.rules.empty())
    return api_reply::fail(500, "security group '" + it->first + "' is not empty");
  firewall_groups.erase(it);
  return api_reply::ok(nullptr);
}

}  // namespace kp::sim::pve
