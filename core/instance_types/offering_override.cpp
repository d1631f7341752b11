#include "core/instance_types/offering_override.hpp"

#include <algorithm>

namespace kp::instance_types {
namespace {

namespace rn = model::resource_names;

// Each entry of `with` replaces the one of the same name in `base` (Go's lo.Assign).
model::resource_list assign(model::resource_list base, const model::resource_list& with) {
  for (const auto& [name, q] : with.items()) base.set(name, q);
  return base;
}

model::resource_list total(const overhead& o) {
  model::resource_list out = o.kube_reserved;
  out += o.system_reserved;
  out += o.eviction_threshold;
  return out;
}

}  // namespace

model::resource_list allocatable_with(const instance_type& type, const offering_override* o) {
  if (o == nullptr) return type.allocatable();
  const model::resource_list capacity = assign(type.capacity, o->capacity);
  model::resource_list out = capacity;
  // Each part of the overhead is overridden on its own: a host that only reserves more for the
  // kubelet keeps the type's system reservation and eviction threshold.
  out -= o->overhead
             ? total(overhead{
                   assign(type.overhead.kube_reserved, o->overhead->kube_reserved),
                   assign(type.overhead.system_reserved, o->overhead->system_reserved),
                   assign(type.overhead.eviction_threshold, o->overhead->eviction_threshold)})
             : total(type.overhead);
  std::int64_t hugepages = 0;
  for (const auto& [name, q] : capacity.items())
    if (name.starts_with("hugepages-")) hugepages += q.milli;
  if (hugepages > 0)
    out.set_milli(rn::memory, std::max<std::int64_t>(0, out.milli(rn::memory) - hugepages));
  return out;
}

model::resource_list offering_allocatable(const instance_type& type, const offering& offering) {
  return allocatable_with(type, offering.overrides ? &*offering.overrides : nullptr);
}

model::resource_list largest_allocatable(const instance_type& type) {
  if (!has_overrides(type)) return type.allocatable();
  model::resource_list out;
  bool any = false;
  for (const auto& o : type.offerings) {
    if (!o.available) continue;
    auto a = offering_allocatable(type, o);
    out = any ? model::resource_list::max(out, a) : a;
    any = true;
  }
  return any ? out : type.allocatable();
}

bool has_overrides(const instance_type& type) {
  return std::any_of(type.offerings.begin(), type.offerings.end(),
                     [](const offering& o) { return o.available && o.overrides.has_value(); });
}

}  // namespace kp::instance_types
