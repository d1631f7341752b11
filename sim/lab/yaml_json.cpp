#include "sim/lab/yaml_json.hpp"

#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <charconv>
#include <exception>
#include <regex>

namespace kp::lab {

namespace {

boost::json::value plain_scalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  static const std::regex integer("[-+]?[0-9]+");
  static const std::regex floating("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (std::regex_match(s, integer)) {
    std::int64_t v = 0;
    auto begin = s.data() + (s[0] == '+' ? 1 : 0);
    auto [p, ec] = std::from_chars(begin, s.data() + s.size(), v);
    if (ec == std::errc() && p == s.data() + s.size()) return v;
  }
  if (std::regex_match(s, floating)) return std::stod(s);
  return boost::json::string(s);
}

boost::json::value convert(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      // yaml-cpp tags plain scalars "?" and quoted ones "!".
      return n.Tag() == "!" ? boost::json::value(boost::json::string(n.Scalar()))
                            : plain_scalar(n.Scalar());
    case YAML::NodeType::Sequence: {
      boost::json::array a;
      for (const auto& item : n) a.push_back(convert(item));
      return a;
    }
    case YAML::NodeType::Map: {
      boost::json::object o;
      for (const auto& kv : n) o[kv.first.as<std::string>()] = convert(kv.second);
      return o;
    }
  }
  return nullptr;
}

}  // namespace

result<std::vector<boost::json::value>> yaml_documents_to_json(const std::string& text) {
  std::vector<boost::json::value> out;
  try {
    for (const auto& doc : YAML::LoadAll(text)) {
      if (!doc || doc.IsNull()) continue;
      out.push_back(convert(doc));
    }
  } catch (const std::exception& e) {
    return make_error("invalid_yaml", std::string("not valid YAML: ") + e.what());
  }
  return out;
}

}  // namespace kp::lab
