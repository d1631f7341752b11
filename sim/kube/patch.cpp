#include "sim/kube/patch.hpp"

#include "sim/kube/json_util.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <map>
#include <vector>

namespace kp::sim::kube {
namespace json = boost::json;

void apply_merge_patch(json::value& target, const json::value& patch) {
  if (!patch.is_object()) {
    target = patch;
    return;
  }
  if (!target.is_object()) target = json::object{};
  auto& t = target.get_object();
  for (const auto& kv : patch.get_object()) {
    if (kv.value().is_null()) {
      t.erase(kv.key());
    } else {
      auto it = t.find(kv.key());
      if (it == t.end()) {
        json::value fresh;
        apply_merge_patch(fresh, kv.value());
        t[kv.key()] = std::move(fresh);
      } else {
        apply_merge_patch(it->value(), kv.value());
      }
    }
  }
}

// ---------------------------------------------------------------- JSON patch (RFC 6902)
namespace {

api_error patch_invalid(const std::string& message) {
  api_error e;
  e.code = 422;
  e.reason = "Invalid";
  e.message = message;
  return e;
}

std::vector<std::string> split_pointer(const std::string& ptr, bool& ok) {
  std::vector<std::string> out;
  ok = true;
  if (ptr.empty()) return out;
  if (ptr[0] != '/') {
    ok = false;
    return out;
  }
  std::string cur;
  for (std::size_t i = 1; i <= ptr.size(); ++i) {
    if (i == ptr.size() || ptr[i] == '/') {
      out.push_back(cur);
      cur.clear();
    } else if (ptr[i] == '~' && i + 1 < ptr.size() && (ptr[i + 1] == '0' || ptr[i + 1] == '1')) {
      cur += ptr[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      cur += ptr[i];
    }
  }
  return out;
}

bool parse_index(const std::string& s, std::size_t& idx) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  if (s.size() > 1 && s[0] == '0') return false;
  auto v = parse_uint64(s);
  if (!v) return false;
  idx = static_cast<std::size_t>(*v);
  return true;
}

// The container holding the last token; nullptr when the path does not exist.
json::value* resolve_parent(json::value& root, const std::vector<std::string>& tokens) {
  json::value* cur = &root;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (auto* o = cur->if_object()) {
      auto it = o->find(tokens[i]);
      if (it == o->end()) return nullptr;
      cur = &it->value();
    } else if (auto* a = cur->if_array()) {
      std::size_t idx;
      if (!parse_index(tokens[i], idx) || idx >= a->size()) return nullptr;
      cur = &(*a)[idx];
    } else {
      return nullptr;
    }
  }
  return cur;
}

json::value* resolve(json::value& root, const std::vector<std::string>& tokens) {
  if (tokens.empty()) return &root;
  auto* parent = resolve_parent(root, tokens);
  if (!parent) return nullptr;
  if (auto* o = parent->if_object()) {
    auto it = o->find(tokens.back());
    return it == o->end() ? nullptr : &it->value();
  }
  if (auto* a = parent->if_array()) {
    std::size_t idx;
    if (!parse_index(tokens.back(), idx) || idx >= a->size()) return nullptr;
    return &(*a)[idx];
  }
  return nullptr;
}

api_status op_add(json::value& root, const std::vector<std::string>& tokens, json::value v,
                  const std::string& path) {
  if (tokens.empty()) {
    root = std::move(v);
    return api_ok{};
  }
  auto* parent = resolve_parent(root, tokens);
  if (!parent)
    return patch_invalid("add operation does not apply: doc is missing path: \"" + path + "\"");
  if (auto* o = parent->if_object()) {
    (*o)[tokens.back()] = std::move(v);
    return api_ok{};
  }
  if (auto* a = parent->if_array()) {
    if (tokens.back() == "-") {
      a->push_back(std::move(v));
      return api_ok{};
    }
    std::size_t idx;
    if (!parse_index(tokens.back(), idx) || idx > a->size())
      return patch_invalid("add operation does not apply: index out of bounds: \"" + path + "\"");
    a->insert(a->begin() + static_cast<std::ptrdiff_t>(idx), std::move(v));
    return api_ok{};
  }
  return patch_invalid("add operation does not apply: doc is missing path: \"" + path + "\"");
}

api_result<json::value> op_remove(json::value& root, const std::vector<std::string>& tokens,
                                  const std::string& path) {
  auto* parent = tokens.empty() ? nullptr : resolve_parent(root, tokens);
  auto missing =
      patch_invalid("remove operation does not apply: doc is missing path: \"" + path + "\"");
  if (!parent) return missing;
  if (auto* o = parent->if_object()) {
    auto it = o->find(tokens.back());
    if (it == o->end()) return missing;
    json::value v = it->value();
    o->erase(it);
    return v;
  }
  if (auto* a = parent->if_array()) {
    std::size_t idx;
    if (!parse_index(tokens.back(), idx) || idx >= a->size()) return missing;
    json::value v = (*a)[idx];
    a->erase(a->begin() + static_cast<std::ptrdiff_t>(idx));
    return v;
  }
  return missing;
}

}  // namespace

api_status apply_json_patch(json::value& target, const json::value& patch) {
  if (!patch.is_array()) return bad_request("the JSON patch must be an array of operations");
  for (const auto& opv : patch.get_array()) {
    const auto* op = opv.if_object();
    if (!op) return bad_request("each JSON patch operation must be an object");
    auto get_str = [&](const char* k) -> std::string {
      const auto* v = op->if_contains(k);
      return v && v->is_string() ? std::string(v->get_string()) : std::string();
    };
    std::string kind = get_str("op");
    std::string path = get_str("path");
    bool ok = true;
    auto tokens = split_pointer(path, ok);
    if (!ok || !op->if_contains("path"))
      return bad_request("invalid JSON patch path \"" + path + "\"");
    if (kind == "add" || kind == "replace" || kind == "test") {
      const auto* value = op->if_contains("value");
      if (!value) return bad_request("JSON patch operation \"" + kind + "\" is missing value");
      if (kind == "add") {
        if (auto s = op_add(target, tokens, *value, path); !s) return s;
      } else if (kind == "replace") {
        auto* at = resolve(target, tokens);
        if (!at)
          return patch_invalid("replace operation does not apply: doc is missing key: " + path);
        *at = *value;
      } else {
        auto* at = resolve(target, tokens);
        if (!at || *at != *value) return patch_invalid("testing value " + path + " failed");
      }
    } else if (kind == "remove") {
      auto r = op_remove(target, tokens, path);
      if (!r) return r.error();
    } else if (kind == "move" || kind == "copy") {
      std::string from = get_str("from");
      bool ok2 = true;
      auto from_tokens = split_pointer(from, ok2);
      if (!ok2 || !op->if_contains("from"))
        return bad_request("invalid JSON patch from \"" + from + "\"");
      json::value v;
      if (kind == "move") {
        auto r = op_remove(target, from_tokens, from);
        if (!r) return r.error();
        v = std::move(r.value());
      } else {
        auto* at = resolve(target, from_tokens);
        if (!at)
          return patch_invalid("copy operation does not apply: doc is missing from path: " + from);
        v = *at;
      }
      if (auto s = op_add(target, tokens, std::move(v), path); !s) return s;
    } else {
      return bad_request("Unexpected kind of JSON patch operation: \"" + kind + "\"");
    }
  }
  return api_ok{};
}

// ---------------------------------------------------------------- strategic merge patch
namespace {

// patchMergeKey of the list fields of built-in kinds that clients patch. A field missing here is
// replaced wholesale, which is what the API does for lists without a merge strategy.
const char* merge_key_for(std::string_view field, const json::array& sample) {
  static const std::map<std::string_view, const char*> keys = {
      {"containers", "name"},
      {"initContainers", "name"},
      {"ephemeralContainers", "name"},
      {"volumes", "name"},
      {"env", "name"},
      {"volumeMounts", "mountPath"},
      {"volumeDevices", "devicePath"},
      {"conditions", "type"},
      {"ownerReferences", "uid"},
      {"addresses", "type"},
      {"imagePullSecrets", "name"},
      {"hostAliases", "ip"},
      {"topologySpreadConstraints", "topologyKey"},
      {"resourceClaims", "name"},
      {"containerStatuses", "name"},
      {"initContainerStatuses", "name"}};
  if (field == "ports") {
    for (const auto& e : sample)
      if (e.is_object() && e.get_object().contains("containerPort")) return "containerPort";
    return "port";
  }
  auto it = keys.find(field);
  return it == keys.end() ? nullptr : it->second;
}

bool is_primitive_merge_list(std::string_view field) {
  return field == "finalizers";
}

void smp_object(json::object& target, const json::object& patch);

void smp_list(json::value& target_value, const json::array& patch, std::string_view field) {
  if (!target_value.is_array()) target_value = json::array{};
  auto& target = target_value.get_array();
  if (is_primitive_merge_list(field)) {
    for (const auto& v : patch)
      if (std::find(target.begin(), target.end(), v) == target.end()) target.push_back(v);
    return;
  }
  const char* key = merge_key_for(field, patch);
  if (!key) {
    json::array replaced;
    for (const auto& v : patch)
      if (!(v.is_object() && v.get_object().contains("$patch"))) replaced.push_back(v);
    target = std::move(replaced);
    return;
  }
  // A {"$patch":"replace"} element replaces the list with the rest of the patch.
  for (const auto& v : patch) {
    if (v.is_object()) {
      const auto* p = v.get_object().if_contains("$patch");
      if (p && p->is_string() && p->get_string() == "replace") {
        json::array replaced;
        for (const auto& w : patch)
          if (!(w.is_object() && w.get_object().contains("$patch"))) replaced.push_back(w);
        target = std::move(replaced);
        return;
      }
    }
  }
  for (const auto& v : patch) {
    if (!v.is_object()) continue;
    const auto& po = v.get_object();
    const auto* kv = po.if_contains(key);
    if (!kv) continue;
    auto it = std::find_if(target.begin(), target.end(), [&](const json::value& t) {
      const auto* to = t.if_object();
      const auto* tk = to ? to->if_contains(key) : nullptr;
      return tk && *tk == *kv;
    });
    const auto* directive = po.if_contains("$patch");
    if (directive && directive->is_string() && directive->get_string() == "delete") {
      if (it != target.end()) target.erase(it);
      continue;
    }
    if (it == target.end()) {
      json::value fresh = json::object{};
      smp_object(fresh.get_object(), po);
      target.push_back(std::move(fresh));
    } else {
      smp_object(it->get_object(), po);
    }
  }
}

void smp_object(json::object& target, const json::object& patch) {
  for (const auto& kv : patch) {
    std::string_view key = kv.key();
    if (key == "$patch" || key == "$retainKeys") continue;
    if (key.rfind("$setElementOrder/", 0) == 0) continue;
    if (key.rfind("$deleteFromPrimitiveList/", 0) == 0) {
      auto field = key.substr(25);
      auto it = target.find(field);
      if (it != target.end() && it->value().is_array() && kv.value().is_array()) {
        auto& arr = it->value().get_array();
        for (const auto& d : kv.value().get_array())
          arr.erase(std::remove(arr.begin(), arr.end(), d), arr.end());
      }
      continue;
    }
    const auto& pv = kv.value();
    if (pv.is_null()) {
      target.erase(key);
      continue;
    }
    if (pv.is_object()) {
      const auto* d = pv.get_object().if_contains("$patch");
      if (d && d->is_string() && d->get_string() == "delete") {
        target.erase(key);
        continue;
      }
      if (d && d->is_string() && d->get_string() == "replace") {
        json::object replaced = pv.get_object();
        replaced.erase("$patch");
        target[key] = std::move(replaced);
        continue;
      }
      auto& slot = target[key];
      if (!slot.is_object()) slot = json::object{};
      smp_object(slot.get_object(), pv.get_object());
    } else if (pv.is_array()) {
      smp_list(target[key], pv.get_array(), key);
    } else {
      target[key] = pv;
    }
  }
}

}  // namespace

api_status apply_strategic_merge_patch(json::value& target, const json::value& patch) {
  if (!patch.is_object()) return bad_request("a strategic merge patch must be a JSON object");
  if (!target.is_object()) target = json::object{};
  smp_object(target.get_object(), patch.get_object());
  return api_ok{};
}

}  // namespace kp::sim::kube
