#include "sim/kube/controllers/workload_pods.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <charconv>

#include "sim/kube/pdb.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

// Keys sorted at every level, so equal objects always give the same bytes.
void write_canonical(const json::value& v, std::string& out) {
  if (const auto* o = v.if_object()) {
    std::vector<std::string_view> keys;
    keys.reserve(o->size());
    for (const auto& kv : *o) keys.push_back(kv.key());
    std::sort(keys.begin(), keys.end());
    out += '{';
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (i) out += ',';
      out += json::serialize(json::value(keys[i]));
      out += ':';
      write_canonical(o->at(keys[i]), out);
    }
    out += '}';
  } else if (const auto* a = v.if_array()) {
    out += '[';
    for (std::size_t i = 0; i < a->size(); ++i) {
      if (i) out += ',';
      write_canonical((*a)[i], out);
    }
    out += ']';
  } else {
    out += json::serialize(v);
  }
}

std::uint32_t fnv1a(std::uint32_t h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

}  // namespace

bool controlled_by(const json::object& object, std::string_view owner_uid) {
  return !owner_uid.empty() && controller_uid(object) == owner_uid;
}

std::string_view controller_uid(const json::object& object) {
  if (const auto* refs = array_at(object, {"metadata", "ownerReferences"}))
    for (const auto& r : *refs) {
      const auto* ro = r.if_object();
      if (!ro) continue;
      const auto* c = ro->if_contains("controller");
      if (c && c->is_bool() && c->get_bool()) return string_at(*ro, {"uid"});
    }
  return {};
}

std::unordered_map<std::string, std::vector<object_ptr>> objects_by_controller(
    const object_store& store, const std::string& storage_key, std::string_view namespace_name) {
  std::unordered_map<std::string, std::vector<object_ptr>> out;
  const auto* all = store.objects(storage_key);
  if (!all) return out;
  std::string prefix = std::string(namespace_name) + "/";
  for (auto it = all->lower_bound(prefix); it != all->end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    auto uid = controller_uid(it->second->object);
    if (!uid.empty()) out[std::string(uid)].push_back(it->second);
  }
  return out;
}

json::object controller_reference(const json::object& owner, std::string_view api_version,
                                  std::string_view kind) {
  return json::object{{"apiVersion", api_version}, {"kind", kind},
                      {"name", meta_name(owner)},  {"uid", meta_uid(owner)},
                      {"controller", true},        {"blockOwnerDeletion", true}};
}

json::object pod_from_template(const json::object& owner, std::string_view owner_api_version,
                               std::string_view owner_kind, const json::object& pod_template,
                               std::string_view name) {
  json::object pod{{"apiVersion", "v1"}, {"kind", "Pod"}};
  json::object meta;
  if (const auto* tm = object_at(pod_template, {"metadata"})) meta = *tm;
  for (const char* k : {"name", "generateName", "namespace", "uid", "resourceVersion",
                        "creationTimestamp", "ownerReferences", "finalizers"})
    meta.erase(k);
  if (name.empty())
    meta["generateName"] = std::string(meta_name(owner)) + "-";
  else
    meta["name"] = name;
  meta["namespace"] = meta_namespace(owner);
  meta["ownerReferences"] = json::array{controller_reference(owner, owner_api_version, owner_kind)};
  pod["metadata"] = std::move(meta);
  if (const auto* spec = object_at(pod_template, {"spec"}))
    pod["spec"] = *spec;
  else
    pod["spec"] = json::object{};
  return pod;
}

std::string template_hash(const json::value& pod_template, std::int64_t collision_count) {
  std::string canonical;
  write_canonical(pod_template, canonical);
  auto h = fnv1a(2166136261u, canonical);
  if (collision_count >= 0) {
    auto c = static_cast<std::uint32_t>(collision_count);
    char le[4] = {static_cast<char>(c & 0xff), static_cast<char>((c >> 8) & 0xff),
                  static_cast<char>((c >> 16) & 0xff), static_cast<char>((c >> 24) & 0xff)};
    h = fnv1a(h, std::string_view(le, 4));
  }
  // Kubernetes writes the decimal digits through its "safe" alphabet (no vowels, no 0/1/3).
  static constexpr std::string_view alphabet = "bcdfghjklmnpqrstvwxz2456789";
  auto digits = std::to_string(h);
  std::string out;
  for (unsigned char c : digits) out += alphabet[c % alphabet.size()];
  return out;
}

json::object template_without_label(const json::object& pod_template, std::string_view label) {
  json::object out = pod_template;
  if (auto* meta = out.if_contains("metadata"); meta && meta->is_object())
    if (auto* labels = meta->get_object().if_contains("labels"); labels && labels->is_object()) {
      labels->get_object().erase(label);
      if (labels->get_object().empty()) meta->get_object().erase("labels");
    }
  return out;
}

bool pod_active(const json::object& pod) {
  return !is_pod_terminal(pod) && !has_deletion_timestamp(pod);
}

bool pod_ready(const json::object& pod) {
  return pod_healthy(pod);
}

bool pod_available(const json::object& pod, std::int64_t min_ready_seconds, sys_time now) {
  if (!pod_healthy(pod)) return false;
  if (min_ready_seconds <= 0) return true;
  if (const auto* cs = array_at(pod, {"status", "conditions"}))
    for (const auto& c : *cs)
      if (c.is_object() && string_at(c.get_object(), {"type"}) == "Ready") {
        auto since = parse_time(string_at(c.get_object(), {"lastTransitionTime"}));
        return since && *since + std::chrono::seconds(min_ready_seconds) <= now;
      }
  return false;
}

std::int64_t scaled_value(const json::value* field, std::int64_t total, bool round_up,
                          std::int64_t fallback) {
  if (!field || field->is_null()) return fallback;
  if (auto n = as_int(*field)) return *n;
  if (!field->is_string()) return fallback;
  std::string_view text = field->get_string();
  if (text.empty() || text.back() != '%') {
    std::int64_t n = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    return ec == std::errc{} && p == text.data() + text.size() ? n : fallback;
  }
  std::int64_t percent = 0;
  auto digits = text.substr(0, text.size() - 1);
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), percent);
  if (ec != std::errc{} || p != digits.data() + digits.size() || percent < 0) return fallback;
  auto scaled = percent * total;
  return round_up ? (scaled + 99) / 100 : scaled / 100;
}

std::int64_t int_at(const json::object& o, std::initializer_list<std::string_view> path,
                    std::int64_t fallback) {
  const auto* v = find_path(o, path);
  if (!v || v->is_null()) return fallback;
  return as_int(*v).value_or(fallback);
}

user_info controller_user(std::string_view controller_name) {
  return user_info{"system:serviceaccount:kube-system:" + std::string(controller_name),
                   "",
                   {"system:serviceaccounts", "system:serviceaccounts:kube-system"}};
}

}  // namespace kp::sim::kube
