#include "protocol/kube/model_translation.hpp"

#include <charconv>
#include <ctime>

#include "core/model/quantity.hpp"
#include "core/model/resource_list.hpp"

namespace kp::kube {
namespace {

// Parses a resource list, naming the object and the field of a malformed quantity.
result<model::resource_list> resources(const resource_list& raw, const std::string& where) {
  auto r = model::parse_resource_list(raw);
  if (!r) return make_error(r.error().code, where + ": " + r.error().message);
  return r;
}

std::string object_name(const object_meta& m) {
  return m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name;
}

result<model::node_selector_requirement> requirement(const node_selector_requirement& r,
                                                     const std::string& where) {
  auto op = model::parse_selector_operator(r.operator_);
  if (!op)
    return make_error("invalid_object",
                      where + ".operator: unknown operator \"" + r.operator_ + "\"");
  model::node_selector_requirement out;
  out.key = r.key;
  out.op = *op;
  out.values = r.values;
  if (r.min_values) out.min_values = static_cast<int>(*r.min_values);
  return out;
}

status requirements(const std::vector<node_selector_requirement>& in, const std::string& where,
                    std::vector<model::node_selector_requirement>& out) {
  for (std::size_t i = 0; i < in.size(); ++i) {
    auto r = requirement(in[i], where + "[" + std::to_string(i) + "]");
    if (!r) return r.error();
    out.push_back(std::move(*r));
  }
  return {};
}

result<model::node_selector_term> term(const node_selector_term& t, const std::string& where) {
  model::node_selector_term out;
  if (auto s =
          requirements(t.match_expressions, where + ".matchExpressions", out.match_expressions);
      !s)
    return s.error();
  if (auto s = requirements(t.match_fields, where + ".matchFields", out.match_fields); !s)
    return s.error();
  return out;
}

result<model::label_selector> selector(const label_selector& s, const std::string& where) {
  model::label_selector out;
  out.match_labels.insert(s.match_labels.begin(), s.match_labels.end());
  for (std::size_t i = 0; i < s.match_expressions.size(); ++i) {
    const auto& e = s.match_expressions[i];
    auto op = model::parse_selector_operator(e.operator_);
    if (!op || (*op != model::selector_operator::in && *op != model::selector_operator::not_in &&
                *op != model::selector_operator::exists &&
                *op != model::selector_operator::does_not_exist)) {
      return make_error("invalid_object", where + ".matchExpressions[" + std::to_string(i) +
                                              "].operator: unknown operator \"" + e.operator_ +
                                              "\"");
    }
    out.match_expressions.push_back({e.key, *op, e.values});
  }
  return out;
}

result<std::optional<model::label_selector>> optional_selector(
    const std::optional<label_selector>& s, const std::string& where) {
  if (!s) return std::optional<model::label_selector>{};
  auto r = selector(*s, where);
  if (!r) return r.error();
  return std::optional<model::label_selector>(std::move(*r));
}

result<model::pod_affinity_term> affinity_term(const pod_affinity_term& t,
                                               const std::string& where) {
  model::pod_affinity_term out;
  auto s = optional_selector(t.selector, where + ".labelSelector");
  if (!s) return s.error();
  out.selector = std::move(*s);
  auto ns = optional_selector(t.namespace_selector, where + ".namespaceSelector");
  if (!ns) return ns.error();
  out.namespace_selector = std::move(*ns);
  out.namespaces = t.namespaces;
  out.topology_key = t.topology_key;
  return out;
}

result<model::pod_affinity_rules> affinity_rules(const std::optional<pod_affinity>& a,
                                                 const std::string& where) {
  model::pod_affinity_rules out;
  if (!a) return out;
  for (std::size_t i = 0; i < a->required.size(); ++i) {
    auto t =
        affinity_term(a->required[i], where + ".requiredDuringSchedulingIgnoredDuringExecution[" +
                                          std::to_string(i) + "]");
    if (!t) return t.error();
    out.required.push_back(std::move(*t));
  }
  for (std::size_t i = 0; i < a->preferred.size(); ++i) {
    auto t = affinity_term(a->preferred[i].term,
                           where + ".preferredDuringSchedulingIgnoredDuringExecution[" +
                               std::to_string(i) + "].podAffinityTerm");
    if (!t) return t.error();
    out.preferred.push_back({static_cast<std::int32_t>(a->preferred[i].weight), std::move(*t)});
  }
  return out;
}

std::vector<model::taint> taints(const std::vector<taint>& in) {
  std::vector<model::taint> out;
  out.reserve(in.size());
  for (const auto& t : in) out.push_back({t.key, t.value, t.effect});
  return out;
}

std::vector<taint> api_taints(const std::vector<model::taint>& in) {
  std::vector<taint> out;
  out.reserve(in.size());
  for (const auto& t : in) out.push_back({t.key, t.value, t.effect, ""});
  return out;
}

result<model::container> container_of(const container& c, const std::string& where) {
  model::container out;
  out.name = c.name;
  auto req = resources(c.resources.requests, where + ".resources.requests");
  if (!req) return req.error();
  auto lim = resources(c.resources.limits, where + ".resources.limits");
  if (!lim) return lim.error();
  out.requests = std::move(*req);
  out.limits = std::move(*lim);
  for (const auto& p : c.ports) {
    if (p.host_port == 0) continue;
    out.host_ports.push_back({static_cast<std::int32_t>(p.host_port),
                              p.protocol.empty() ? "TCP" : p.protocol, p.host_ip});
  }
  out.restartable = c.restart_policy == "Always";
  return out;
}

std::vector<model::condition> conditions(const std::vector<condition>& in) {
  std::vector<model::condition> out;
  for (const auto& c : in) {
    out.push_back({c.type, c.status, c.reason, c.message,
                   parse_rfc3339_ms(c.last_transition_time).value_or(0)});
  }
  return out;
}

bool parse_int(std::string_view s, int& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

}  // namespace

std::optional<std::int64_t> parse_rfc3339_ms(const std::string& text) {
  // YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't') || text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  int year = 0, mon = 0, day = 0, hour = 0, min = 0, sec = 0;
  if (!parse_int(std::string_view(text).substr(0, 4), year) ||
      !parse_int(std::string_view(text).substr(5, 2), mon) ||
      !parse_int(std::string_view(text).substr(8, 2), day) ||
      !parse_int(std::string_view(text).substr(11, 2), hour) ||
      !parse_int(std::string_view(text).substr(14, 2), min) ||
      !parse_int(std::string_view(text).substr(17, 2), sec)) {
    return std::nullopt;
  }
  if (mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60)
    return std::nullopt;
  std::size_t i = 19;
  std::int64_t millis = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    int digits = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (digits < 3) millis = millis * 10 + (text[i] - '0');
      ++digits;
      ++i;
    }
    if (digits == 0) return std::nullopt;
    for (int d = digits; d < 3; ++d) millis *= 10;
  }
  std::int64_t offset_s = 0;
  if (i < text.size() && (text[i] == 'Z' || text[i] == 'z')) {
    ++i;
  } else if (i + 6 == text.size() && (text[i] == '+' || text[i] == '-') && text[i + 3] == ':') {
    int oh = 0, om = 0;
    if (!parse_int(std::string_view(text).substr(i + 1, 2), oh) ||
        !parse_int(std::string_view(text).substr(i + 4, 2), om)) {
      return std::nullopt;
    }
    offset_s = (oh * 3600 + om * 60) * (text[i] == '+' ? 1 : -1);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  // Days from civil (proleptic Gregorian), so no time-zone database or locale is involved.
  const int y = year - (mon <= 2);
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (mon + (mon > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const std::int64_t days = static_cast<std::int64_t>(era) * 146097 + doe - 719468;
  const std::int64_t seconds = days * 86400 + hour * 3600 + min * 60 + sec - offset_s;
  return seconds * 1000 + millis;
}

std::string format_rfc3339(std::int64_t unix_ms) {
  const std::time_t seconds =
      static_cast<std::time_t>(unix_ms >= 0 ? unix_ms / 1000 : (unix_ms - 999) / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

result<std::vector<model::container>> containers_of(const std::vector<container>& in,
                                                    const std::string& where) {
  std::vector<model::container> out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    auto c = container_of(in[i], where + "[" + std::to_string(i) + "]");
    if (!c) return c.error();
    out.push_back(std::move(*c));
  }
  return out;
}

result<std::vector<model::topology_spread_constraint>> spread_of(
    const std::vector<topology_spread_constraint>& in, const std::string& where) {
  std::vector<model::topology_spread_constraint> out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto& c = in[i];
    const std::string cw = where + " spec.topologySpreadConstraints[" + std::to_string(i) + "]";
    model::topology_spread_constraint m;
    m.max_skew = static_cast<std::int32_t>(c.max_skew);
    m.topology_key = c.topology_key;
    if (c.when_unsatisfiable == "ScheduleAnyway") {
      m.when = model::when_unsatisfiable::schedule_anyway;
    } else if (c.when_unsatisfiable == "DoNotSchedule" || c.when_unsatisfiable.empty()) {
      m.when = model::when_unsatisfiable::do_not_schedule;
    } else {
      return make_error("invalid_object",
                        cw + ".whenUnsatisfiable: unknown value \"" + c.when_unsatisfiable + "\"");
    }
    auto s = optional_selector(c.label_selector, cw + ".labelSelector");
    if (!s) return s.error();
    m.selector = std::move(*s);
    if (c.min_domains) m.min_domains = static_cast<std::int32_t>(*c.min_domains);
    m.node_affinity_policy = c.node_affinity_policy == "Ignore" ? model::inclusion_policy::ignore
                                                                : model::inclusion_policy::honor;
    m.node_taints_policy = c.node_taints_policy == "Honor" ? model::inclusion_policy::honor
                                                           : model::inclusion_policy::ignore;
    m.match_label_keys = c.match_label_keys;
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<model::toleration> tolerations_of(const std::vector<toleration>& in) {
  std::vector<model::toleration> out;
  out.reserve(in.size());
  for (const auto& t : in)
    out.push_back({t.key, t.operator_, t.value, t.effect, t.toleration_seconds});
  return out;
}

// `pod_name` names the PVCs of generic ephemeral volumes.
std::vector<model::pod_volume> volumes_of(const std::vector<volume>& in,
                                          const std::string& pod_name) {
  std::vector<model::pod_volume> out;
  out.reserve(in.size());
  for (const auto& v : in) {
    model::pod_volume mv;
    mv.name = v.name;
    mv.claim_name = v.persistent_volume_claim;
    if (v.ephemeral) mv.claim_name = pod_name + "-" + v.name;  // generic ephemeral volume's PVC
    out.push_back(std::move(mv));
  }
  return out;
}

std::vector<model::owner_reference> owners_of(const std::vector<owner_reference>& in) {
  std::vector<model::owner_reference> out;
  out.reserve(in.size());
  for (const auto& o : in) out.push_back({o.kind, o.name, o.uid, o.controller.value_or(false)});
  return out;
}

// The model of one part: through `memo` when given (shared with every pod whose API object
// shares the part), translated afresh otherwise.
template <class In, class Out, class Translate>
result<model::shared_vector<Out>> part_model(part_translations<In, Out>* memo,
                                             const shared_vector<In>& in, Translate translate) {
  auto wrapped = [&]() -> result<std::vector<Out>> { return translate(in.items()); };
  if (memo != nullptr) return memo->of(in, wrapped);
  auto made = wrapped();
  if (!made) return made.error();
  return model::shared_vector<Out>(std::move(*made));
}

model::shared_label_map labels_model(pod_part_models* parts, const string_map& in) {
  if (parts != nullptr) return parts->labels.of(in);
  return model::label_map(in.begin(), in.end());
}

template <class T>
auto as_result(T value) -> result<T> {
  return value;
}

// What cannot fail to translate: identity, labels, ownership, tolerations, volumes, priority and
// state, everything a reader needs to name, drain or count a pod.
void read_pod_state(const pod& p, pod_part_models* parts, model::pod& out) {
  out.name = p.metadata.name;
  out.namespace_ = p.metadata.namespace_;
  out.uid = p.metadata.uid;
  out.labels = labels_model(parts, p.metadata.labels);
  out.annotations = labels_model(parts, p.metadata.annotations);
  out.node_selector = labels_model(parts, p.spec.node_selector);
  out.tolerations =
      *part_model(parts != nullptr ? &parts->tolerations : nullptr, p.spec.tolerations,
                  [](const auto& in) { return as_result(tolerations_of(in)); });
  // A generic ephemeral volume's claim is named after the pod: such a list is the pod's own.
  const bool ephemeral = std::any_of(p.spec.volumes.begin(), p.spec.volumes.end(),
                                     [](const volume& v) { return v.ephemeral; });
  out.volumes =
      *part_model(parts != nullptr && !ephemeral ? &parts->volumes : nullptr, p.spec.volumes,
                  [&](const auto& in) { return as_result(volumes_of(in, p.metadata.name)); });
  out.owners = *part_model(parts != nullptr ? &parts->owners : nullptr, p.metadata.owner_references,
                           [](const auto& in) { return as_result(owners_of(in)); });
  out.priority = static_cast<std::int32_t>(p.spec.priority.value_or(0));
  out.priority_class_name = p.spec.priority_class_name;
  out.termination_grace_seconds = p.spec.termination_grace_period_seconds;
  out.creation_unix_ms = parse_rfc3339_ms(p.metadata.creation_timestamp).value_or(0);
  if (!p.status.start_time.empty()) out.start_unix_ms = parse_rfc3339_ms(p.status.start_time);
  out.node_name = p.spec.node_name;
  out.nominated_node_name = p.status.nominated_node_name;
  if (!p.status.phase.empty()) out.phase = p.status.phase;
  out.terminating = p.metadata.deletion_timestamp.has_value();
  if (out.terminating) out.deletion_unix_ms = parse_rfc3339_ms(*p.metadata.deletion_timestamp);
  for (const auto& c : p.status.conditions) {
    if (c.type == "PodScheduled" && c.status == "False" && c.reason == "Unschedulable")
      out.unschedulable = true;
  }
}

// What can fail (quantities, selector operators): resources, affinity and spread constraints.
status read_pod_requirements(const pod& p, pod_part_models* parts, model::pod& out) {
  const std::string where = "Pod " + object_name(p.metadata);
  auto* containers_memo = parts != nullptr ? &parts->containers : nullptr;
  auto containers = part_model(containers_memo, p.spec.containers, [&](const auto& in) {
    return containers_of(in, where + " spec.containers");
  });
  if (!containers) return containers.error();
  out.containers = std::move(*containers);
  auto init_containers = part_model(containers_memo, p.spec.init_containers, [&](const auto& in) {
    return containers_of(in, where + " spec.initContainers");
  });
  if (!init_containers) return init_containers.error();
  out.init_containers = std::move(*init_containers);
  auto overhead = resources(p.spec.overhead, where + " spec.overhead");
  if (!overhead) return overhead.error();
  out.overhead = std::move(*overhead);
  if (p.spec.affinity) {
    const auto& a = *p.spec.affinity;
    if (a.node_affinity) {
      if (a.node_affinity->required) {
        const auto& terms = a.node_affinity->required->node_selector_terms;
        for (std::size_t i = 0; i < terms.size(); ++i) {
          auto t =
              term(terms[i],
                   where +
                       " spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                       "nodeSelectorTerms[" +
                       std::to_string(i) + "]");
          if (!t) return t.error();
          out.affinity.required.push_back(std::move(*t));
        }
      }
      const auto& pref = a.node_affinity->preferred;
      for (std::size_t i = 0; i < pref.size(); ++i) {
        auto t = term(
            pref[i].preference,
            where + " spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[" +
                std::to_string(i) + "].preference");
        if (!t) return t.error();
        out.affinity.preferred.push_back(
            {static_cast<std::int32_t>(pref[i].weight), std::move(*t)});
      }
    }
    auto pa = affinity_rules(a.pod_affinity, where + " spec.affinity.podAffinity");
    if (!pa) return pa.error();
    out.pod_affinity = std::move(*pa);
    auto paa = affinity_rules(a.pod_anti_affinity, where + " spec.affinity.podAntiAffinity");
    if (!paa) return paa.error();
    out.pod_anti_affinity = std::move(*paa);
    if (parts != nullptr) {
      out.affinity = parts->affinities.node.of(std::move(out.affinity));
      out.pod_affinity = parts->affinities.pod.of(std::move(out.pod_affinity));
      out.pod_anti_affinity = parts->affinities.pod.of(std::move(out.pod_anti_affinity));
    }
  }
  auto spread =
      part_model(parts != nullptr ? &parts->spread : nullptr, p.spec.topology_spread_constraints,
                 [&](const auto& in) { return spread_of(in, where); });
  if (!spread) return spread.error();
  out.topology_spread = std::move(*spread);
  return {};
}

}  // namespace

result<model::pod> to_model(const pod& p, pod_part_models* parts) {
  model::pod out;
  read_pod_state(p, parts, out);
  if (auto read = read_pod_requirements(p, parts, out); !read) return read.error();
  return out;
}

model::pod to_model(const pod& p, pod_part_models* parts, std::optional<kp::error>& invalid) {
  model::pod out;
  read_pod_state(p, parts, out);
  if (auto read = read_pod_requirements(p, parts, out); !read) invalid = read.error();
  return out;
}

result<model::node> to_model(const node& n, const csi_node* csi) {
  const std::string where = "Node " + n.metadata.name;
  model::node out;
  out.name = n.metadata.name;
  out.uid = n.metadata.uid;
  out.provider_id = n.spec.provider_id;
  out.labels.insert(n.metadata.labels.begin(), n.metadata.labels.end());
  out.annotations.insert(n.metadata.annotations.begin(), n.metadata.annotations.end());
  out.taints = taints(n.spec.taints);
  auto cap = resources(n.status.capacity, where + " status.capacity");
  if (!cap) return cap.error();
  out.capacity = std::move(*cap);
  auto alloc = resources(n.status.allocatable, where + " status.allocatable");
  if (!alloc) return alloc.error();
  out.allocatable = std::move(*alloc);
  out.unschedulable = n.spec.unschedulable;
  for (const auto& c : n.status.conditions) {
    if (c.type == "Ready") out.ready = c.status == "True";
  }
  out.terminating = n.metadata.deletion_timestamp.has_value();
  out.creation_unix_ms = parse_rfc3339_ms(n.metadata.creation_timestamp).value_or(0);
  if (csi) {
    for (const auto& d : csi->drivers) {
      if (d.allocatable_count)
        out.volume_limits[d.name] = static_cast<std::int32_t>(*d.allocatable_count);
    }
  }
  return out;
}

result<model::nodepool> to_model(const node_pool& p) {
  const std::string where = "NodePool " + p.metadata.name;
  model::nodepool out;
  out.name = p.metadata.name;
  out.uid = p.metadata.uid;
  out.weight = static_cast<std::int32_t>(p.spec.weight.value_or(0));
  auto& t = out.template_;
  const auto& st = p.spec.template_;
  t.labels.insert(st.metadata.labels.begin(), st.metadata.labels.end());
  t.annotations.insert(st.metadata.annotations.begin(), st.metadata.annotations.end());
  if (auto s = requirements(st.spec.requirements, where + " spec.template.spec.requirements",
                            t.requirements);
      !s) {
    return s.error();
  }
  t.taints = taints(st.spec.taints);
  t.startup_taints = taints(st.spec.startup_taints);
  t.node_class = {st.spec.node_class_ref.group, st.spec.node_class_ref.kind,
                  st.spec.node_class_ref.name};
  if (!st.spec.expire_after.empty()) t.expire_after = st.spec.expire_after;
  t.termination_grace_period = st.spec.termination_grace_period;
  const auto& d = p.spec.disruption;
  if (!d.consolidation_policy.empty()) out.disruption.consolidation_policy = d.consolidation_policy;
  if (!d.consolidate_after.empty()) out.disruption.consolidate_after = d.consolidate_after;
  if (!d.budgets.empty()) {
    out.disruption.budgets.clear();
    for (const auto& b : d.budgets)
      out.disruption.budgets.push_back({b.nodes, b.schedule, b.duration, b.reasons});
  }
  auto limits = resources(p.spec.limits, where + " spec.limits");
  if (!limits) return limits.error();
  out.limits = std::move(*limits);
  out.replicas = p.spec.replicas;
  // Ready unless a Ready condition says otherwise (a pool nobody has judged yet is usable).
  for (const auto& c : p.status.conditions) {
    if (c.type == "Ready") out.ready = c.status == "True";
  }
  out.deleting = p.metadata.deletion_timestamp.has_value();
  return out;
}

result<model::nodeclaim> to_model(const node_claim& c, nodeclaim_part_models* parts) {
  const std::string where = "NodeClaim " + c.metadata.name;
  model::nodeclaim out;
  out.name = c.metadata.name;
  out.uid = c.metadata.uid;
  if (auto it = c.metadata.labels.find("karpenter.sh/nodepool"); it != c.metadata.labels.end())
    out.nodepool = it->second;
  auto map_model = [&](const string_map& in) -> model::shared_label_map {
    if (parts != nullptr) return parts->labels.of(in);
    return model::label_map(in.begin(), in.end());
  };
  out.labels = map_model(c.metadata.labels);
  out.annotations = map_model(c.metadata.annotations);
  std::vector<model::node_selector_requirement> reqs;
  if (auto s = requirements(c.spec.requirements, where + " spec.requirements", reqs); !s)
    return s.error();
  out.requirements = std::move(reqs);
  if (parts != nullptr && !out.requirements.empty())
    out.requirements = parts->requirements.of(std::move(out.requirements));
  out.taints = taints(c.spec.taints);
  out.startup_taints = taints(c.spec.startup_taints);
  auto req = resources(c.spec.resource_requests, where + " spec.resources.requests");
  if (!req) return req.error();
  out.requests = std::move(*req);
  out.node_class = {c.spec.node_class_ref.group, c.spec.node_class_ref.kind,
                    c.spec.node_class_ref.name};
  if (!c.spec.expire_after.empty()) out.expire_after = c.spec.expire_after;
  out.termination_grace_period = c.spec.termination_grace_period;
  out.creation_unix_ms = parse_rfc3339_ms(c.metadata.creation_timestamp).value_or(0);
  out.terminating = c.metadata.deletion_timestamp.has_value();
  out.node_name = c.status.node_name;
  out.provider_id = c.status.provider_id;
  out.image_id = c.status.image_id;
  auto cap = resources(c.status.capacity, where + " status.capacity");
  if (!cap) return cap.error();
  out.capacity = std::move(*cap);
  auto alloc = resources(c.status.allocatable, where + " status.allocatable");
  if (!alloc) return alloc.error();
  out.allocatable = std::move(*alloc);
  out.conditions = conditions(c.status.conditions);
  return out;
}

node_claim from_model(const model::nodeclaim& c) {
  node_claim out;
  out.metadata.name = c.name;
  out.metadata.labels.insert(c.labels.begin(), c.labels.end());
  out.metadata.annotations.insert(c.annotations.begin(), c.annotations.end());
  if (!c.nodepool.empty()) out.metadata.labels["karpenter.sh/nodepool"] = c.nodepool;
  for (const auto& r : c.requirements) {
    node_selector_requirement api{r.key, model::to_string(r.op), r.values, std::nullopt};
    if (r.min_values) api.min_values = *r.min_values;
    out.spec.requirements.push_back(std::move(api));
  }
  out.spec.taints = api_taints(c.taints);
  out.spec.startup_taints = api_taints(c.startup_taints);
  for (const auto& [name, q] : c.requests.items())
    out.spec.resource_requests[name] = model::to_string(q);
  out.spec.node_class_ref = {c.node_class.group, c.node_class.kind, c.node_class.name};
  out.spec.expire_after = c.expire_after;
  out.spec.termination_grace_period = c.termination_grace_period;
  return out;
}

result<std::vector<model::node_selector_requirement>> to_model(
    const std::vector<node_selector_requirement>& in, const std::string& where) {
  std::vector<model::node_selector_requirement> out;
  if (auto s = requirements(in, where, out); !s) return s.error();
  return out;
}

}  // namespace kp::kube
