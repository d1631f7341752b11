#include "core/instance_types/right_sized.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace kp::instance_types {
namespace {

constexpr std::int64_t kMi = 1024 * 1024;
constexpr std::int64_t kGi = 1024 * kMi;
constexpr std::int64_t kStep = right_sized_memory_step_mib;
constexpr std::string_view kVcpu = "VCPU-";
constexpr std::string_view kMb = "MB";

error invalid(std::string_view name, const std::string& why) {
  return make_error("invalid_instance_type",
                    "instance type \"" + std::string(name) + "\" is not a right-sized (" +
                        std::string(right_sized_family) + ") type: " + why);
}

// A run of decimal digits at the start of `text`, consumed; nullopt when there is none or it
// does not fit.
std::optional<std::int64_t> take_number(std::string_view& text) {
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{}) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return v;
}

// Memory Kubernetes sees: the VM's memory less ceil(memory * percent), as
// apply_memory_overhead_percent computes it.
std::int64_t visible_memory(std::int64_t bytes, double percent) {
  if (percent <= 0) return bytes;
  return bytes - static_cast<std::int64_t>(std::ceil(static_cast<double>(bytes) * percent));
}

}  // namespace

std::string right_sized_name(const vm_size& size) {
  return std::string(right_sized_family) + "." + std::to_string(size.vcpus) + std::string(kVcpu) +
         std::to_string(size.memory_mib) + std::string(kMb);
}

bool is_right_sized_name(std::string_view name) {
  return name.size() > right_sized_family.size() && name.starts_with(right_sized_family) &&
         name[right_sized_family.size()] == '.';
}

result<vm_size> parse_right_sized_name(std::string_view name) {
  if (!is_right_sized_name(name))
    return invalid(name, "the name must start with \"" + std::string(right_sized_family) + ".\"");
  std::string_view rest = name.substr(right_sized_family.size() + 1);
  const std::string format = "expected " + std::string(right_sized_family) + ".<vCPU>" +
                             std::string(kVcpu) + "<MiB>" + std::string(kMb);
  vm_size size;
  auto cpus = take_number(rest);
  if (!cpus || !rest.starts_with(kVcpu)) return invalid(name, format);
  rest.remove_prefix(kVcpu.size());
  auto mib = take_number(rest);
  if (!mib || rest != kMb) return invalid(name, format);
  size.vcpus = *cpus;
  size.memory_mib = *mib;
  if (size.vcpus < 1 || size.vcpus > right_sized_max_vcpus)
    return invalid(name, "vCPUs must be between 1 and " + std::to_string(right_sized_max_vcpus));
  if (size.memory_mib < kStep || size.memory_mib % kStep != 0)
    return invalid(name, "memory must be a positive multiple of " + std::to_string(kStep) + " MiB");
  if (size.memory_mib > right_sized_max_memory_mib)
    return invalid(name,
                   "memory must be at most " + std::to_string(right_sized_max_memory_mib) + " MiB");
  return size;
}

instance_type right_sized_type(const vm_size& size, double memory_overhead_percent) {
  instance_type t = vm_instance_type(right_sized_name(size), size.vcpus, size.memory_mib * kMi);
  apply_memory_overhead_percent(t, memory_overhead_percent);
  return t;
}

double right_sized_price(const vm_size& size) {
  return synthetic_price(size.vcpus, size.memory_mib * kMi);
}

// The ladders below are vm_instance_type's: kube-reserved 20/50/100m CPU by vCPUs and
// 128/192/256/384Mi memory by whole GiB, system-reserved 10m/64Mi, eviction 100Mi.
std::int64_t right_sized_allocatable_cpu_milli(std::int64_t vcpus) {
  std::int64_t kube = vcpus < 1 ? 10 : vcpus < 2 ? 20 : vcpus < 4 ? 50 : 100;
  return vcpus * 1000 - kube - 10;
}

std::int64_t right_sized_allocatable_memory_bytes(std::int64_t memory_mib,
                                                  double memory_overhead_percent) {
  std::int64_t bytes = memory_mib * kMi;
  std::int64_t gib = bytes / kGi;
  std::int64_t kube = gib < 1 ? 128 : gib < 2 ? 192 : gib < 4 ? 256 : 384;
  return visible_memory(bytes, memory_overhead_percent) - (kube + 64 + 100) * kMi;
}

std::int64_t right_sized_pods(std::int64_t memory_mib) {
  return memory_mib <= 1024 ? 32 : memory_mib <= 2048 ? 64 : 110;
}

std::optional<vm_size> smallest_right_size(const vm_need& need, double memory_overhead_percent) {
  if (need.pods > 110 || need.ephemeral_storage_bytes > 30 * kGi) return std::nullopt;
  if (memory_overhead_percent >= 1) return std::nullopt;
  vm_size size;
  // vCPUs: the reservation is at most 110m, so at most two steps past the plain quotient.
  size.vcpus = std::max<std::int64_t>(1, (need.cpu_milli + 999) / 1000);
  while (right_sized_allocatable_cpu_milli(size.vcpus) < need.cpu_milli) ++size.vcpus;
  if (size.vcpus > right_sized_max_vcpus) return std::nullopt;
  // Memory: start below the answer (the reservation is at least 292Mi) and step up.
  double lower = static_cast<double>(std::max<std::int64_t>(0, need.memory_bytes) + 292 * kMi) /
                 (1 - std::max(0.0, memory_overhead_percent));
  auto mib = static_cast<std::int64_t>(lower / static_cast<double>(kMi));
  mib = std::max(kStep, mib / kStep * kStep);
  if (need.pods > 64)
    mib = std::max<std::int64_t>(mib, 2048 + kStep);
  else if (need.pods > 32)
    mib = std::max<std::int64_t>(mib, 1024 + kStep);
  if (mib > right_sized_max_memory_mib) return std::nullopt;
  while (right_sized_allocatable_memory_bytes(mib, memory_overhead_percent) < need.memory_bytes) {
    mib += kStep;
    if (mib > right_sized_max_memory_mib) return std::nullopt;
  }
  size.memory_mib = mib;
  return size;
}

std::optional<instance_type> resolve_instance_type(const std::vector<instance_type>& types,
                                                   std::string_view name,
                                                   double memory_overhead_percent) {
  for (const auto& t : types)
    if (t.name == name) return t;
  auto size = parse_right_sized_name(name);
  if (!size) return std::nullopt;
  return right_sized_type(*size, memory_overhead_percent);
}

}  // namespace kp::instance_types
