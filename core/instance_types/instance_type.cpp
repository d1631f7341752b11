#include "core/instance_types/instance_type.hpp"

#include <cmath>
#include <set>

#include "core/instance_types/json_value.hpp"
#include "core/model/labels.hpp"

namespace kp::instance_types {
namespace {

namespace rn = model::resource_names;
constexpr std::int64_t kMi = 1024 * 1024;
constexpr std::int64_t kGi = 1024 * kMi;

model::quantity bytes(std::int64_t b) {
  return model::quantity{b * 1000, model::quantity_format::binary_si};
}
model::quantity milli_cpu(std::int64_t m) {
  return model::quantity{m, model::quantity_format::decimal_si};
}
model::quantity units(std::int64_t v) {
  return model::quantity::from_units(v);
}

std::string family_of(const std::string& name) {
  auto dot = name.find('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

void add_default_requirements(instance_type& t) {
  using model::selector_operator;
  t.requirements = {
      {std::string(model::labels::arch), selector_operator::in, {"amd64"}, std::nullopt},
      {std::string(model::labels::os), selector_operator::in, {"linux"}, std::nullopt},
  };
}

// The kube-reserved ladder of the Go provider, with memory compared in GiB as intended.
model::resource_list kube_reserved(std::int64_t cpus, std::int64_t memory_bytes) {
  std::int64_t cpu_m = cpus < 1 ? 10 : cpus < 2 ? 20 : cpus < 4 ? 50 : 100;
  std::int64_t gib = memory_bytes / kGi;
  std::int64_t mem_mi = gib < 1 ? 128 : gib < 2 ? 192 : gib < 4 ? 256 : 384;
  return {{std::string(rn::cpu), milli_cpu(cpu_m)}, {std::string(rn::memory), bytes(mem_mi * kMi)}};
}

}  // namespace

model::resource_list instance_type::allocatable() const {
  model::resource_list out = capacity;
  out -= overhead.kube_reserved;
  out -= overhead.system_reserved;
  out -= overhead.eviction_threshold;
  std::int64_t hugepages = 0;
  for (const auto& [name, q] : capacity.items())
    if (name.starts_with("hugepages-")) hugepages += q.milli;
  if (hugepages > 0) {
    std::int64_t mem = out.milli(rn::memory) - hugepages;
    out.set_milli(rn::memory, mem < 0 ? 0 : mem);
  }
  return out;
}

double synthetic_price(std::int64_t cpus, std::int64_t memory_bytes) {
  return 0.025 * static_cast<double>(cpus) + 0.001 * static_cast<double>(memory_bytes) / 1e9;
}

std::string generic_name(int cpus, int memory_factor) {
  const char* family = "e";
  switch (memory_factor) {
    case 2:
      family = "c";
      break;
    case 3:
      family = "t";
      break;
    case 4:
      family = "s";
      break;
    case 8:
      family = "m";
      break;
    case 16:
      family = "x";
      break;
  }
  return std::string(family) + "1." + std::to_string(cpus) + "VCPU-" +
         std::to_string(cpus * memory_factor) + "GB";
}

std::vector<instance_type> builtin_instance_types() {
  std::vector<instance_type> out;
  for (int cpus : {1, 2, 4, 8, 16}) {
    for (int factor : {2, 3, 4, 8}) {
      instance_type t;
      t.name = generic_name(cpus, factor);
      t.family = family_of(t.name);
      std::int64_t gib = static_cast<std::int64_t>(cpus) * factor;
      t.vm_cpus = cpus;
      t.vm_memory_bytes = gib * kGi;
      std::int64_t pods = gib <= 1 ? 32 : gib <= 2 ? 64 : 110;
      t.capacity = {{std::string(rn::cpu), units(cpus)},
                    {std::string(rn::memory), bytes(t.vm_memory_bytes)},
                    {std::string(rn::ephemeral_storage), bytes(30 * kGi)},
                    {std::string(rn::pods), units(pods)}};
      t.overhead.kube_reserved = kube_reserved(cpus, t.vm_memory_bytes);
      t.overhead.system_reserved = {{std::string(rn::cpu), milli_cpu(10)},
                                    {std::string(rn::memory), bytes(64 * kMi)}};
      t.overhead.eviction_threshold = {{std::string(rn::memory), bytes(100 * kMi)}};
      add_default_requirements(t);
      out.push_back(std::move(t));
    }
  }
  return out;
}

void apply_memory_overhead_percent(std::vector<instance_type>& types, double percent) {
  if (percent <= 0) return;
  for (auto& t : types) {
    std::int64_t mem = t.vm_memory_bytes;
    auto cut = static_cast<std::int64_t>(std::ceil(static_cast<double>(mem) * percent));
    t.capacity.set_milli(rn::memory, (mem - cut) * 1000);
  }
}

void build_offerings(std::vector<instance_type>& types, const std::vector<zone_capacity>& zones) {
  std::set<std::string> regions;
  for (const auto& z : zones) regions.insert(z.region);
  for (auto& t : types) {
    t.offerings.clear();
    double price = synthetic_price(t.vm_cpus, t.vm_memory_bytes);
    if (t.capacity_type == model::labels::capacity_type_spot) price *= 0.5;
    for (const auto& z : zones) {
      offering o;
      o.region = z.region;
      o.zone = z.zone;
      o.capacity_type = t.capacity_type;
      o.price = price;
      o.available =
          z.schedulable && z.free_cpus >= t.vm_cpus && z.free_memory_bytes >= t.vm_memory_bytes;
      t.offerings.push_back(std::move(o));
    }
    std::erase_if(t.requirements, [](const model::node_selector_requirement& r) {
      return r.key == model::labels::region;
    });
    if (!regions.empty())
      t.requirements.push_back({std::string(model::labels::region), model::selector_operator::in,
                                std::vector<std::string>(regions.begin(), regions.end()),
                                std::nullopt});
  }
}

namespace {

result<model::resource_list> resource_list_from(const json_value* v, const std::string& where) {
  model::resource_list out;
  if (v == nullptr || v->type == json_value::kind::null) return out;
  if (v->type != json_value::kind::object)
    return make_error("invalid_instance_types", where + " must be an object of quantities");
  for (const auto& [name, q] : v->object) {
    if (q.type != json_value::kind::string && q.type != json_value::kind::number)
      return make_error("invalid_instance_types", where + "." + name + " must be a quantity");
    auto parsed = model::parse_quantity(q.text);
    if (!parsed)
      return make_error("invalid_instance_types",
                        where + "." + name + ": " + parsed.error().message);
    out.set(name, *parsed);
  }
  return out;
}

}  // namespace

result<std::vector<instance_type>> parse_instance_types_file(std::string_view text) {
  auto doc = parse_json(text);
  if (!doc)
    return make_error("invalid_instance_types", "instance types file: " + doc.error().message);
  if (doc->type != json_value::kind::array)
    return make_error("invalid_instance_types", "instance types file must be a JSON array");
  std::vector<instance_type> out;
  std::set<std::string> names;
  for (std::size_t i = 0; i < doc->array.size(); ++i) {
    const json_value& item = doc->array[i];
    std::string where = "item " + std::to_string(i);
    if (item.type != json_value::kind::object)
      return make_error("invalid_instance_types", where + " must be an object");
    const json_value* name = item.find("name");
    if (name == nullptr || name->type != json_value::kind::string || name->text.empty())
      return make_error("invalid_instance_types", where + " has no name");
    where = "instance type " + name->text;
    if (!names.insert(name->text).second)
      return make_error("invalid_instance_types", where + " is listed twice");
    instance_type t;
    t.name = name->text;
    t.family = family_of(t.name);
    auto cap = resource_list_from(item.find("capacity"), where + " capacity");
    if (!cap) return cap.error();
    t.capacity = std::move(*cap);
    if (t.capacity.milli(rn::cpu) <= 0 || t.capacity.milli(rn::memory) <= 0)
      return make_error("invalid_instance_types",
                        where + " needs a positive cpu and memory capacity");
    if (!t.capacity.has(rn::pods)) t.capacity.set(rn::pods, units(110));
    t.vm_cpus = (t.capacity.milli(rn::cpu) + 999) / 1000;
    t.vm_memory_bytes = t.capacity.milli(rn::memory) / 1000;
    if (const json_value* oh = item.find("overhead"); oh && oh->type != json_value::kind::null) {
      if (oh->type != json_value::kind::object)
        return make_error("invalid_instance_types", where + " overhead must be an object");
      auto kr = resource_list_from(oh->find("KubeReserved"), where + " overhead.KubeReserved");
      if (!kr) return kr.error();
      auto sr = resource_list_from(oh->find("SystemReserved"), where + " overhead.SystemReserved");
      if (!sr) return sr.error();
      auto et =
          resource_list_from(oh->find("EvictionThreshold"), where + " overhead.EvictionThreshold");
      if (!et) return et.error();
      t.overhead = {std::move(*kr), std::move(*sr), std::move(*et)};
    }
    if (const json_value* ct = item.find("capacitytype");
        ct && ct->type != json_value::kind::null) {
      if (ct->type != json_value::kind::string)
        return make_error("invalid_instance_types", where + " capacitytype must be a string");
      if (!ct->text.empty()) t.capacity_type = ct->text;
    }
    add_default_requirements(t);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace kp::instance_types
