// Firewall endpoints: VM options and rules, cluster security groups and their rules.
#include "sim/pve/firewall_api.hpp"

#include <cctype>

#include "sim/pve/api_router.hpp"
#include "sim/pve/number_text.hpp"
#include "sim/pve/parameter_checks.hpp"
#include "sim/pve/qemu_rules.hpp"

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
      auto number = k == "enable" ? parse_number<std::int64_t>(v) : std::nullopt;
      if (number)
        o[k] = *number;
      else
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
  if (auto del = p.get("delete"))
    for (const auto& key : split_list(*del)) r.fields.erase(key);
  const auto type = r.fields.count("type") ? r.fields["type"] : "";
  if (type.empty()) return make_error("param:type", property_missing);
  if (type != "in" && type != "out" && !(allow_group && type == "group"))
    return make_error("param:type", "value '" + type +
                                        "' does not have a value in the enumeration 'in, out" +
                                        std::string(allow_group ? ", group'" : "'"));
  const auto action = r.fields.count("action") ? r.fields["action"] : "";
  if (action.empty()) return make_error("param:action", property_missing);
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
  auto v = parse_number<int>(text);
  if (v && *v >= 0) return v;
  return std::nullopt;
}

}  // namespace

firewall_api::firewall_api(world_model& world) : world_(world) {
  for (const auto& g : world_.topo().firewall_groups) {
    auto& st = groups_[g.name];
    st.comment = g.comment;
    for (const auto& r : g.rules) st.rules.push_back({r.fields});
  }
}

void firewall_api::add_routes(api_router& router) {
  const std::string vm = "/nodes/{node}/qemu/{vmid}/firewall";
  router.add("GET", vm + "/options", [this](api_call& c) { return get_vm_firewall_options(c); });
  router.add("PUT", vm + "/options", [this](api_call& c) { return put_vm_firewall_options(c); });
  router.add("GET", vm + "/rules", [this](api_call& c) { return get_vm_firewall_rules(c); });
  router.add("POST", vm + "/rules", [this](api_call& c) { return post_vm_firewall_rule(c); });
  router.add("GET", vm + "/rules/{pos}", [this](api_call& c) { return get_vm_firewall_rule(c); });
  router.add("PUT", vm + "/rules/{pos}", [this](api_call& c) { return put_vm_firewall_rule(c); });
  router.add("DELETE", vm + "/rules/{pos}",
             [this](api_call& c) { return delete_vm_firewall_rule(c); });
  const std::string groups = "/cluster/firewall/groups";
  router.add("GET", groups, [this](api_call& c) { return get_firewall_groups(c); });
  router.add("POST", groups, [this](api_call& c) { return post_firewall_group(c); });
  router.add("GET", groups + "/{group}", [this](api_call& c) { return get_firewall_group(c); });
  router.add("POST", groups + "/{group}",
             [this](api_call& c) { return post_firewall_group_rule(c); });
  router.add("DELETE", groups + "/{group}",
             [this](api_call& c) { return delete_firewall_group(c); });
}

api_reply firewall_api::get_vm_firewall_options(api_call& c) {
  auto vm = world_.vm_on_node(c.path["node"], c.path["vmid"]);
  if (!vm) return reply_from(vm.error());
  json::object o;
  for (const auto& [k, v] : (*vm)->firewall_options) {
    static const std::set<std::string> ints = {"enable",    "dhcp", "ipfilter",
                                               "macfilter", "ndp",  "radv"};
    auto number = ints.count(k) ? parse_number<std::int64_t>(v) : std::nullopt;
    if (number)
      o[k] = *number;
    else
      o[k] = v;
  }
  o["digest"] = options_digest((*vm)->firewall_options);
  return api_reply::ok(o);
}

api_reply firewall_api::put_vm_firewall_options(api_call& c) {
  auto vm = world_.vm_on_node(c.path["node"], c.path["vmid"]);
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
  if (auto del = c.params.get("delete"))
    for (const auto& key : split_list(*del)) next.erase(key);
  opts = std::move(next);
  return api_reply::ok(nullptr);
}

api_reply firewall_api::get_vm_firewall_rules(api_call& c) {
  auto vm = world_.vm_on_node(c.path["node"], c.path["vmid"]);
  if (!vm) return reply_from(vm.error());
  return api_reply::ok(render_rules((*vm)->firewall_rules));
}

api_reply firewall_api::post_vm_firewall_rule(api_call& c) {
  auto vm = world_.vm_on_node(c.path["node"], c.path["vmid"]);
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

result<firewall_api::rule_ref> firewall_api::rule_at(api_call& c) {
  auto vm = world_.vm_on_node(c.path["node"], c.path["vmid"]);
  if (!vm) return vm.error();
  auto pos = parse_pos(c.path["pos"]);
  auto& rules = (*vm)->firewall_rules;
  if (!pos || static_cast<std::size_t>(*pos) >= rules.size())
    return make_error("500", "no rule at position " + c.path["pos"]);
  return rule_ref{&rules, static_cast<std::size_t>(*pos)};
}

api_reply firewall_api::get_vm_firewall_rule(api_call& c) {
  auto at = rule_at(c);
  if (!at) return reply_from(at.error());
  auto all = render_rules(*at->rules);
  return api_reply::ok(all[at->pos]);
}

api_reply firewall_api::put_vm_firewall_rule(api_call& c) {
  auto at = rule_at(c);
  if (!at) return reply_from(at.error());
  auto& rules = *at->rules;
  const auto pos = at->pos;
  if (auto d = c.params.get("digest"); d && *d != rules_digest(rules))
    return api_reply::fail(
        500, "detected modified configuration - file changed by other user? Try again.");
  auto r = rule_from(c.params, true, &rules[pos]);
  if (!r) return reply_from(r.error());
  rules[pos] = *r;
  if (auto moveto = c.params.get("moveto")) {
    auto to = parse_pos(*moveto);
    if (to) {
      auto moved = rules[pos];
      rules.erase(rules.begin() + static_cast<std::ptrdiff_t>(pos));
      rules.insert(
          rules.begin() + std::min<std::ptrdiff_t>(*to, static_cast<std::ptrdiff_t>(rules.size())),
          moved);
    }
  }
  return api_reply::ok(nullptr);
}

api_reply firewall_api::delete_vm_firewall_rule(api_call& c) {
  auto at = rule_at(c);
  if (!at) return reply_from(at.error());
  at->rules->erase(at->rules->begin() + static_cast<std::ptrdiff_t>(at->pos));
  return api_reply::ok(nullptr);
}

api_reply firewall_api::get_firewall_groups(api_call&) {
  json::array out;
  for (const auto& [name, g] : groups_) {
    json::object o{{"group", name}, {"digest", rules_digest(g.rules)}};
    if (!g.comment.empty()) o["comment"] = g.comment;
    out.push_back(std::move(o));
  }
  return api_reply::ok(out);
}

api_reply firewall_api::post_firewall_group(api_call& c) {
  auto group = c.params.get("group");
  if (!group) return api_reply::param("group", property_missing);
  if (!valid_group_name(*group, 18))
    return api_reply::param("group", "value does not match the regex pattern");
  if (auto rename = c.params.get("rename")) {
    auto it = groups_.find(*rename);
    if (it == groups_.end())
      return api_reply::fail(500, "Security group '" + *rename + "' does not exist");
    if (groups_.count(*group))
      return api_reply::param("group", "Security group '" + *group + "' already exists");
    groups_[*group] = it->second;
    groups_.erase(*rename);
    return api_reply::ok(nullptr);
  }
  if (groups_.count(*group)) {
    if (c.params.has("comment") && !c.params.has("rename") && c.params.has("digest")) {
      groups_[*group].comment = c.params.get_or("comment", "");
      return api_reply::ok(nullptr);
    }
    return api_reply::param("group", "Security group '" + *group + "' already exists");
  }
  groups_[*group].comment = c.params.get_or("comment", "");
  return api_reply::ok(nullptr);
}

api_reply firewall_api::get_firewall_group(api_call& c) {
  auto it = groups_.find(c.path["group"]);
  if (it == groups_.end())
    return api_reply::fail(500, "no such security group '" + c.path["group"] + "'");
  return api_reply::ok(render_rules(it->second.rules));
}

api_reply firewall_api::post_firewall_group_rule(api_call& c) {
  auto it = groups_.find(c.path["group"]);
  if (it == groups_.end())
    return api_reply::fail(500, "no such security group '" + c.path["group"] + "'");
  auto r = rule_from(c.params, false, nullptr);
  if (!r) return reply_from(r.error());
  it->second.rules.insert(it->second.rules.begin(), *r);
  return api_reply::ok(nullptr);
}

api_reply firewall_api::delete_firewall_group(api_call& c) {
  auto it = groups_.find(c.path["group"]);
  if (it == groups_.end())
    return api_reply::fail(500, "no such security group '" + c.path["group"] + "'");
  if (!it->second.rules.empty())
    return api_reply::fail(500, "security group '" + it->first + "' is not empty");
  groups_.erase(it);
  return api_reply::ok(nullptr);
}

}  // namespace kp::sim::pve
