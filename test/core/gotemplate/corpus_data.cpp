#include "test/core/gotemplate/corpus_data.hpp"

#include <boost/json.hpp>

namespace kp::gotemplate::testing {

namespace {

namespace json = boost::json;

result<value> convert(const json::value& j);

// The name and options of a `yaml:"..."` or `json:"..."` struct tag.
void apply_tag(const std::string& tag, const std::string& key, std::string& name, bool& omit) {
  auto at = tag.find(key + ":\"");
  if (at == std::string::npos) return;
  auto start = at + key.size() + 2;
  auto end = tag.find('"', start);
  std::string spec = tag.substr(start, end - start);
  auto comma = spec.find(',');
  name = spec.substr(0, comma);
  if (comma != std::string::npos && spec.find("omitempty", comma) != std::string::npos) {
    omit = true;
  }
}

result<value> convert_typed(const std::string& kind, const json::value& j) {
  if (kind == "$strings") {
    std::vector<std::string> items;
    for (const auto& e : j.as_array()) items.emplace_back(e.as_string());
    return value::strings(items);
  }
  if (kind == "$stringmap") {
    value m = value::string_map();
    for (const auto& [k, e] : j.as_object()) m.set(std::string(k), std::string(e.as_string()));
    return m;
  }
  if (kind == "$struct") {
    value r = value::record();
    for (const auto& f : j.as_array()) {
      const auto& parts = f.as_array();
      std::string name(parts.at(0).as_string());
      const json::value& raw = parts.at(1);
      bool pointer = raw.is_object() && raw.as_object().size() == 1 &&
                     (raw.as_object().contains("$ptr") || raw.as_object().contains("$nilptr"));
      auto v = convert(raw);
      if (!v) return v;
      field_options options;
      options.pointer = pointer;
      if (parts.size() > 2) {
        std::string tag(parts.at(2).as_string());
        bool omit_yaml = false;
        bool omit_json = false;
        apply_tag(tag, "yaml", options.yaml_name, omit_yaml);
        apply_tag(tag, "json", options.json_name, omit_json);
        options.yaml_omit_empty = omit_yaml;
        options.json_omit_empty = omit_json;
      }
      r.field(name, *v, options);
    }
    return r;
  }
  if (kind == "$ptr") {
    auto target = convert(j);
    if (target) *target = value::pointer_to(*target);
    return target;
  }
  if (kind == "$nilptr") return value::nil_pointer();
  if (kind == "$int64" || kind == "$int32" || kind == "$uint32")
    return value(j.to_number<std::int64_t>());
  return make_error("corpus", "unknown typed value " + kind);
}

result<value> convert(const json::value& j) {
  switch (j.kind()) {
    case json::kind::null:
      return value();
    case json::kind::bool_:
      return value(j.as_bool());
    case json::kind::int64:
      return value(j.as_int64());
    case json::kind::uint64:
      return value(static_cast<std::int64_t>(j.as_uint64()));
    case json::kind::double_:
      return value(j.as_double());
    case json::kind::string:
      return value(std::string(j.as_string()));
    case json::kind::array: {
      value::list_data items;
      for (const auto& e : j.as_array()) {
        auto v = convert(e);
        if (!v) return v;
        items.push_back(std::move(*v));
      }
      return value(std::move(items));
    }
    case json::kind::object: {
      const auto& o = j.as_object();
      if (o.size() == 1 && o.begin()->key().starts_with("$")) {
        return convert_typed(std::string(o.begin()->key()), o.begin()->value());
      }
      value m = value::map();
      for (const auto& [k, e] : o) {
        auto v = convert(e);
        if (!v) return v;
        m.set(std::string(k), std::move(*v));
      }
      return m;
    }
  }
  return value();
}

}  // namespace

result<value> parse_corpus_data(const std::string& text) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return value();
  boost::system::error_code ec;
  json::value j = json::parse(text, ec);
  if (ec) return make_error("corpus", "data is not JSON: " + ec.message());
  try {
    return convert(j);
  } catch (const std::exception& e) {
    return make_error("corpus", std::string("bad typed data: ") + e.what());
  }
}

}  // namespace kp::gotemplate::testing
