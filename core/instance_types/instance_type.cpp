#include "core/instance_types/instance_type.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/instance_types/reservation.hpp"
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

instance_type vm_instance_type(std::string name, std::int64_t cpus, std::int64_t memory_bytes) {
  instance_type t;
  t.name = std::move(name);
  t.family = family_of(t.name);
  t.vm_cpus = cpus;
  t.vm_memory_bytes = memory_bytes;
  std::int64_t pods = memory_bytes <= kGi ? 32 : memory_bytes <= 2 * kGi ? 64 : 110;
  t.capacity = {{std::string(rn::cpu), units(cpus)},
                {std::string(rn::memory), bytes(memory_bytes)},
                {std::string(rn::ephemeral_storage), bytes(30 * kGi)},
                {std::string(rn::pods), units(pods)}};
  t.overhead.kube_reserved = kube_reserved(cpus, memory_bytes);
  t.overhead.system_reserved = {{std::string(rn::cpu), milli_cpu(10)},
                                {std::string(rn::memory), bytes(64 * kMi)}};
  t.overhead.eviction_threshold = {{std::string(rn::memory), bytes(100 * kMi)}};
  add_default_requirements(t);
  return t;
}

std::vector<instance_type> builtin_instance_types() {
  std::vector<instance_type> out;
  for (int cpus : {1, 2, 4, 8, 16})
    for (int factor : {2, 3, 4, 8})
      out.push_back(vm_instance_type(generic_name(cpus, factor), cpus,
                                     static_cast<std::int64_t>(cpus) * factor * kGi));
  return out;
}

void apply_memory_overhead_percent(instance_type& t, double percent) {
  if (percent <= 0) return;
  std::int64_t mem = std::max<std::int64_t>(t.vm_memory_bytes, 0);
  // At most the whole memory goes (a fraction of 1 or more leaves none, never a negative or
  // wrapped amount); the remainder saturates like any quantity too large for milli-units.
  double wanted = std::ceil(static_cast<double>(mem) * percent);
  auto cut = wanted >= static_cast<double>(mem) ? mem : static_cast<std::int64_t>(wanted);
  t.capacity.set_milli(rn::memory, model::quantity::from_units(mem - cut).milli);
}

void apply_memory_overhead_percent(std::vector<instance_type>& types, double percent) {
  for (auto& t : types) apply_memory_overhead_percent(t, percent);
}

void build_offerings(std::vector<instance_type>& types, const std::vector<zone_capacity>& zones) {
  std::set<std::string> regions;
  for (const auto& z : zones) regions.insert(z.region);
  for (auto& t : types) {
    t.offerings.clear();
    double price = synthetic_price(t.vm_cpus, t.vm_memory_bytes);
    if (t.capacity_type == model::labels::capacity_type_spot) price *= 0.5;
    if (t.capacity_type == model::labels::capacity_type_reserved) price *= reserved_price_factor;
    for (const auto& z : zones) {
      offering o;
      o.region = z.region;
      o.zone = z.zone;
      o.capacity_type = t.capacity_type;
      o.price = price;
      o.available =
          z.schedulable && z.free_cpus >= t.vm_cpus && z.free_memory_bytes >= t.vm_memory_bytes;
      if (auto it = t.host_overrides.find(z.zone); it != t.host_overrides.end())
        o.overrides = it->second;
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

result<std::vector<instance_type>> from_declared(const std::vector<declared_instance_type>& items) {
  std::vector<instance_type> out;
  std::set<std::string> names;
  std::map<std::string, std::string> reservation_ids;  // id -> the type declaring it
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& item = items[i];
    if (item.name.empty())
      return make_error("invalid_instance_types", "item " + std::to_string(i) + " has no name");
    const std::string where = "instance type " + item.name;
    if (!names.insert(item.name).second)
      return make_error("invalid_instance_types", where + " is listed twice");
    instance_type t;
    t.name = item.name;
    t.family = family_of(t.name);
    t.capacity = item.capacity;
    if (t.capacity.milli(rn::cpu) <= 0 || t.capacity.milli(rn::memory) <= 0)
      return make_error("invalid_instance_types",
                        where + " needs a positive cpu and memory capacity");
    if (!t.capacity.has(rn::pods)) t.capacity.set(rn::pods, units(110));
    t.vm_cpus = (t.capacity.milli(rn::cpu) + 999) / 1000;
    t.vm_memory_bytes = t.capacity.milli(rn::memory) / 1000;
    t.overhead = item.overhead;
    if (!item.capacity_type.empty()) t.capacity_type = item.capacity_type;
    if (t.capacity_type != model::labels::capacity_type_on_demand &&
        t.capacity_type != model::labels::capacity_type_spot &&
        t.capacity_type != model::labels::capacity_type_reserved)
      return make_error("invalid_instance_types", where + " capacitytype \"" + t.capacity_type +
                                                      "\" is not on-demand, spot or reserved");
    auto reservations = validate_reservations(t.name, t.capacity_type, item.reservations);
    if (!reservations) return reservations.error();
    t.reservations = std::move(*reservations);
    for (const auto& [host, o] : item.host_overrides)
      if (host.empty())
        return make_error("invalid_instance_types", where + " hosts has an empty host name");
    t.host_overrides = item.host_overrides;
    for (const auto& r : t.reservations)
      if (auto [it, fresh] = reservation_ids.emplace(r.id, t.name); !fresh)
        return make_error("invalid_instance_types", where + " reservation id \"" + r.id +
                                                        "\" is already used by instance type " +
                                                        it->second);
    add_default_requirements(t);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace kp::instance_types
