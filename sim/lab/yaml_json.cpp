#include "sim/lab/yaml_json.hpp"

#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <exception>

#include "core/parse_number.hpp"

namespace kp::lab {

namespace {

boost::json::value plain_scalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  // YAML's plain numbers: an optional sign, then an integer or a decimal with an exponent.
  std::string_view number(s);
  if (number.front() == '+') number.remove_prefix(1);
  if (!number.empty() && number.front() != '+' && (number.front() != '-' || number.size() > 1)) {
    if (auto v = parse_integer<std::int64_t>(number)) return *v;
    const bool numeric = number.find_first_not_of("0123456789.eE+-") == std::string_view::npos &&
                         number.find_first_of("0123456789") != std::string_view::npos;
    if (numeric) {
      if (auto v = parse_decimal(number)) return *v;
    }
  }
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
