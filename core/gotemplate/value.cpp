#include "core/gotemplate/value.hpp"

#include <algorithm>
#include <bit>
#include <cctype>

namespace kp::gotemplate {

namespace {

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const value::list_data& empty_list() {
  static const value::list_data e;
  return e;
}

const value::map_data& empty_map() {
  static const value::map_data e;
  return e;
}

}  // namespace

value::value(list_data items) : v_(std::make_shared<list_data>(std::move(items))) {}

value value::list(std::initializer_list<value> items) {
  return value(list_data(items));
}

value value::strings(const std::vector<std::string>& items) {
  list_data l;
  l.reserve(items.size());
  for (const auto& s : items) l.emplace_back(s);
  value v(std::move(l));
  v.string_list_ = true;
  return v;
}

value value::nil_pointer() {
  value v;
  v.nil_pointer_ = true;
  return v;
}

value value::pointer_to(value target) {
  if (target.is_null()) return nil_pointer();
  target.pointer_ = true;
  return target;
}

value value::missing() {
  value v;
  v.v_ = missing_tag{};
  return v;
}

value value::map(std::initializer_list<std::pair<std::string, value>> entries) {
  value v;
  v.v_ = std::make_shared<map_data>();
  for (const auto& [k, e] : entries) v.set(k, e);
  return v;
}

value value::string_map(std::initializer_list<std::pair<std::string, std::string>> entries) {
  value v;
  auto data = std::make_shared<map_data>();
  data->flavour = map_flavour::string_map;
  v.v_ = std::move(data);
  for (const auto& [k, e] : entries) v.set(k, e);
  return v;
}

value value::from_string_map(const std::map<std::string, std::string>& entries) {
  value v = string_map();
  auto& m = v.mutable_map();
  m.entries.reserve(entries.size());
  for (const auto& [k, e] : entries) {
    // std::map iterates in byte order already, so appending keeps the entries sorted.
    m.entries.push_back(entry{k, value(e), k, k, false, false});
  }
  return v;
}

value value::record() {
  value v;
  auto data = std::make_shared<map_data>();
  data->flavour = map_flavour::record;
  v.v_ = std::move(data);
  return v;
}

value::map_data& value::mutable_map() {
  if (!is_map()) v_ = std::make_shared<map_data>();  // a builder call turns null into a map
  auto& p = std::get<std::shared_ptr<map_data>>(v_);
  if (p.use_count() > 1) p = std::make_shared<map_data>(*p);
  return *p;
}

value& value::set(std::string key, value v) {
  return field(std::move(key), std::move(v), {});
}

value& value::field(std::string name, value v, field_options options) {
  map_data& m = mutable_map();
  entry e;
  e.yaml_key = options.yaml_name.empty() ? lowercase(name) : std::move(options.yaml_name);
  e.json_key = options.json_name.empty() ? name : std::move(options.json_name);
  e.yaml_omit_empty = options.yaml_omit_empty.value_or(options.omit_empty);
  e.json_omit_empty = options.json_omit_empty.value_or(options.omit_empty);
  e.pointer = options.pointer;
  e.key = std::move(name);
  e.val = options.pointer ? pointer_to(std::move(v)) : std::move(v);
  if (m.flavour == map_flavour::record) {
    auto it = std::find_if(m.entries.begin(), m.entries.end(),
                           [&](const entry& x) { return x.key == e.key; });
    if (it != m.entries.end()) {
      *it = std::move(e);
    } else {
      m.entries.push_back(std::move(e));
    }
    return *this;
  }
  // Go maps have no tags: keys are their own YAML and JSON names.
  e.yaml_key = e.key;
  e.json_key = e.key;
  auto it = std::lower_bound(m.entries.begin(), m.entries.end(), e.key,
                             [](const entry& x, const std::string& k) { return x.key < k; });
  if (it != m.entries.end() && it->key == e.key) {
    *it = std::move(e);
  } else {
    m.entries.insert(it, std::move(e));
  }
  return *this;
}

value& value::push_back(value v) {
  if (!is_list()) {
    v_ = std::make_shared<list_data>();
    string_list_ = false;
  }
  if (!v.is_string()) string_list_ = false;
  auto& p = std::get<std::shared_ptr<list_data>>(v_);
  if (p.use_count() > 1) p = std::make_shared<list_data>(*p);
  p->push_back(std::move(v));
  return *this;
}

bool value::is_record() const {
  return is_map() && as_map().flavour == map_flavour::record;
}

const value::list_data& value::as_list() const {
  if (!is_list()) return empty_list();
  return *std::get<std::shared_ptr<list_data>>(v_);
}

const value::map_data& value::as_map() const {
  if (!is_map()) return empty_map();
  return *std::get<std::shared_ptr<map_data>>(v_);
}

const value* value::find(std::string_view key) const {
  if (!is_map()) return nullptr;
  const auto& m = as_map();
  if (m.flavour == map_flavour::record) {
    for (const auto& e : m.entries) {
      if (e.key == key) return &e.val;
    }
    return nullptr;
  }
  auto it = std::lower_bound(m.entries.begin(), m.entries.end(), key,
                             [](const entry& x, std::string_view k) { return x.key < k; });
  if (it != m.entries.end() && it->key == key) return &it->val;
  return nullptr;
}

std::size_t value::size() const {
  if (is_list()) return as_list().size();
  if (is_map()) return as_map().entries.size();
  if (is_string()) return as_string().size();
  return 0;
}

bool value::truthy() const {
  if (pointer_) return true;  // Go: a non-nil pointer is true, whatever it points to
  switch (type()) {
    case kind::null:
      return false;
    case kind::boolean:
      return as_bool();
    case kind::integer:
      return as_int() != 0;
    case kind::floating:
      return as_double() != 0;
    case kind::string:
      return !as_string().empty();
    case kind::list:
      return !as_list().empty();
    case kind::map:
      return is_record() || !as_map().entries.empty();
  }
  return false;
}

bool value::empty() const {
  if (pointer_) return false;
  if (is_record()) {
    return std::all_of(as_map().entries.begin(), as_map().entries.end(),
                       [](const entry& e) { return e.val.empty(); });
  }
  // The provider's empty []string fields are nil slices (zero); any other list or map is
  // non-nil and so not zero.
  if (is_string_list()) return size() == 0;
  if (is_list() || is_map()) return false;
  if (is_double()) return std::bit_cast<std::uint64_t>(as_double()) == 0;  // -0.0 is not zero
  return !truthy();
}

std::string value::type_name() const {
  if (pointer_) {
    value target = *this;
    target.pointer_ = false;
    return "*" + target.type_name();
  }
  switch (type()) {
    case kind::null:
      return "interface {}";
    case kind::boolean:
      return "bool";
    case kind::integer:
      return "int";
    case kind::floating:
      return "float64";
    case kind::string:
      return "string";
    case kind::list:
      return string_list_ ? "[]string" : "[]interface {}";
    case kind::map:
      switch (as_map().flavour) {
        case map_flavour::string_map:
          return "map[string]string";
        case map_flavour::record:
          return "struct";
        case map_flavour::any_map:
          break;
      }
      return "map[string]interface {}";
  }
  return "?";
}

bool operator==(const value& a, const value& b) {
  if (a.type() != b.type() || a.is_missing() != b.is_missing()) return false;
  switch (a.type()) {
    case value::kind::null:
      return true;
    case value::kind::boolean:
      return a.as_bool() == b.as_bool();
    case value::kind::integer:
      return a.as_int() == b.as_int();
    case value::kind::floating:
      return a.as_double() == b.as_double();
    case value::kind::string:
      return a.as_string() == b.as_string();
    case value::kind::list:
      return a.as_list() == b.as_list();
    case value::kind::map: {
      const auto& x = a.as_map().entries;
      const auto& y = b.as_map().entries;
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (x[i].key != y[i].key || !(x[i].val == y[i].val)) return false;
      }
      return true;
    }
  }
  return false;
}

}  // namespace kp::gotemplate
