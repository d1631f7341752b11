#pragma once
// Reads INSTANCE_TYPES_FILE, the Go provider's JSON array of
//   {"name": "...", "capacity": {"cpu": "2", "memory": "4Gi", ...},
//    "overhead": {"KubeReserved": {...}, "SystemReserved": {...}, "EvictionThreshold": {...}},
//    "capacitytype": "on-demand", "offerings": [...],
//    "reservations": [{"id": "...", "region": "...", "host": "...", "count": 2}],
//    "hosts": {"pve2": {"capacity": {"hugepages-2Mi": "1Gi"}, "overhead": {...}}}}
// with Boost.JSON into core's instance types, once at start. Quantities may be strings or JSON
// numbers; null stands for an absent field. Offerings in the file are ignored (recomputed from
// the hosts). The list replaces the built-in one.
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.hpp"
#include "core/instance_types/instance_type.hpp"
#include "core/result.hpp"

namespace kp::config {

// The types the text declares, made whole by core (instance_types::from_declared). Malformed
// input is an "invalid_instance_types" error naming the item or type and the field.
result<std::vector<instance_types::instance_type>> parse_instance_types_file(std::string_view json);

// INSTANCE_TYPES_FILE read and parsed, or the built-in types when the setting is empty; then
// VM_MEMORY_OVERHEAD_PERCENT taken off what Kubernetes sees. Errors start with
// "INSTANCE_TYPES_FILE <path>: ".
result<std::vector<instance_types::instance_type>> load_instance_types(const settings& s);

}  // namespace kp::config
