#include "config/instance_types_file.hpp"

#include <boost/json.hpp>
#include <charconv>
#include <map>

#include "config/text_file.hpp"

namespace kp::config {
namespace {

namespace bj = boost::json;

error invalid(const std::string& message) {
  return make_error("invalid_instance_types", message);
}

// A JSON number as the quantity text it spells: integers exactly, fractions in their shortest
// round-trip form.
std::string number_text(const bj::value& v) {
  if (v.is_int64()) return std::to_string(v.get_int64());
  if (v.is_uint64()) return std::to_string(v.get_uint64());
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.get_double());
  return ec == std::errc{} ? std::string(buf, end) : std::string();
}

// `where` names the field ("instance type a capacity"); absent or null is an empty list.
result<model::resource_list> resource_list_from(const bj::value* v, const std::string& where) {
  model::resource_list out;
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_object()) return invalid(where + " must be an object of quantities");
  for (const auto& [key, q] : v->get_object()) {
    const std::string name(key);
    std::string text;
    if (q.is_string())
      text = std::string(q.get_string());
    else if (q.is_number())
      text = number_text(q);
    else
      return invalid(where + "." + name + " must be a quantity");
    auto parsed = model::parse_quantity(text);
    if (!parsed) return invalid(where + "." + name + ": " + parsed.error().message);
    out.set(name, *parsed);
  }
  return out;
}

result<instance_types::overhead> overhead_from(const bj::value* v, const std::string& where) {
  instance_types::overhead out;
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_object()) return invalid(where + " overhead must be an object");
  const auto& o = v->get_object();
  auto kr = resource_list_from(o.if_contains("KubeReserved"), where + " overhead.KubeReserved");
  if (!kr) return kr.error();
  auto sr = resource_list_from(o.if_contains("SystemReserved"), where + " overhead.SystemReserved");
  if (!sr) return sr.error();
  auto et =
      resource_list_from(o.if_contains("EvictionThreshold"), where + " overhead.EvictionThreshold");
  if (!et) return et.error();
  out = {std::move(*kr), std::move(*sr), std::move(*et)};
  return out;
}

// `hosts`: {"<host>": {"capacity": {...}, "overhead": {...}}}, the host's offering overrides.
result<std::map<std::string, instance_types::offering_override>> host_overrides_from(
    const bj::value* v, const std::string& where) {
  std::map<std::string, instance_types::offering_override> out;
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_object()) return invalid(where + " hosts must be an object by host name");
  for (const auto& [key, entry] : v->get_object()) {
    const std::string host(key);
    const std::string at = where + " hosts." + host;
    if (!entry.is_object()) return invalid(at + " must be an object");
    const auto& o = entry.get_object();
    for (const auto& [field, unused] : o)
      if (field != "capacity" && field != "overhead")
        return invalid(at + " has an unknown field \"" + std::string(field) +
                       "\" (capacity and overhead are known)");
    instance_types::offering_override override_;
    auto capacity = resource_list_from(o.if_contains("capacity"), at + " capacity");
    if (!capacity) return capacity.error();
    override_.capacity = std::move(*capacity);
    if (const auto* oh = o.if_contains("overhead"); oh && !oh->is_null()) {
      auto overhead = overhead_from(oh, at);
      if (!overhead) return overhead.error();
      override_.overhead = std::move(*overhead);
    }
    out.emplace(host, std::move(override_));
  }
  return out;
}

// `reservations`: [{"id": "...", "region": "...", "host": "...", "count": N}]; core checks the
// values (instance_types::validate_reservations).
result<std::vector<instance_types::reservation>> reservations_from(const bj::value* v,
                                                                   const std::string& where) {
  std::vector<instance_types::reservation> out;
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_array()) return invalid(where + " reservations must be an array");
  const auto& items = v->get_array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string at = where + " reservations[" + std::to_string(i) + "]";
    if (!items[i].is_object()) return invalid(at + " must be an object");
    const auto& o = items[i].get_object();
    instance_types::reservation r;
    for (const auto& [key, field] : o) {
      const std::string name(key);
      std::string* text = name == "id"       ? &r.id
                          : name == "region" ? &r.region
                          : name == "host"   ? &r.host
                                             : nullptr;
      if (text != nullptr) {
        if (!field.is_string()) return invalid(at + "." + name + " must be a string");
        *text = std::string(field.get_string());
      } else if (name == "count") {
        if (field.is_int64())
          r.count = field.get_int64();
        else if (field.is_uint64())
          r.count = -1;  // too large: core refuses it as not positive
        else
          return invalid(at + ".count must be a whole number");
      } else {
        return invalid(at + " has an unknown field \"" + name +
                       "\" (id, region, host and count are known)");
      }
    }
    if (!o.contains("count")) return invalid(at + ".count is missing");
    out.push_back(std::move(r));
  }
  return out;
}

result<instance_types::declared_instance_type> item_from(const bj::value& item, std::size_t i) {
  const std::string position = "item " + std::to_string(i);
  if (!item.is_object()) return invalid(position + " must be an object");
  const auto& o = item.get_object();
  const auto* name = o.if_contains("name");
  if (name == nullptr || !name->is_string() || name->get_string().empty())
    return invalid(position + " has no name");
  instance_types::declared_instance_type out;
  out.name = std::string(name->get_string());
  const std::string where = "instance type " + out.name;
  auto capacity = resource_list_from(o.if_contains("capacity"), where + " capacity");
  if (!capacity) return capacity.error();
  out.capacity = std::move(*capacity);
  auto overhead = overhead_from(o.if_contains("overhead"), where);
  if (!overhead) return overhead.error();
  out.overhead = std::move(*overhead);
  if (const auto* ct = o.if_contains("capacitytype"); ct && !ct->is_null()) {
    if (!ct->is_string()) return invalid(where + " capacitytype must be a string");
    out.capacity_type = std::string(ct->get_string());
  }
  auto hosts = host_overrides_from(o.if_contains("hosts"), where);
  if (!hosts) return hosts.error();
  out.host_overrides = std::move(*hosts);
  auto reservations = reservations_from(o.if_contains("reservations"), where);
  if (!reservations) return reservations.error();
  out.reservations = std::move(*reservations);
  return out;
}

}  // namespace

result<std::vector<instance_types::instance_type>> parse_instance_types_file(
    std::string_view json) {
  boost::system::error_code ec;
  // Default limits: nesting deeper than 32 levels is refused, not recursed into.
  bj::value doc = bj::parse(bj::string_view(json.data(), json.size()), ec);
  if (ec) return invalid("instance types file is not JSON: " + ec.message());
  if (!doc.is_array()) return invalid("instance types file must be a JSON array");
  std::vector<instance_types::declared_instance_type> items;
  const auto& array = doc.get_array();
  items.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i) {
    auto item = item_from(array[i], i);
    if (!item) return item.error();
    items.push_back(std::move(*item));
  }
  return instance_types::from_declared(items);
}

result<std::vector<instance_types::instance_type>> load_instance_types(const settings& s) {
  std::vector<instance_types::instance_type> types;
  if (s.instance_types_file.empty()) {
    types = instance_types::builtin_instance_types();
  } else {
    const std::string origin = "INSTANCE_TYPES_FILE " + s.instance_types_file + ": ";
    auto text = read_text_file(s.instance_types_file);
    if (!text) return make_error(text.error().code, origin + text.error().message);
    auto parsed = parse_instance_types_file(*text);
    if (!parsed) return make_error(parsed.error().code, origin + parsed.error().message);
    types = std::move(*parsed);
  }
  instance_types::apply_memory_overhead_percent(types, s.vm_memory_overhead_percent);
  return types;
}

}  // namespace kp::config
