#pragma once
// Proxmox's value formats: property strings ("[default=]v,key=v"), tag lists, CPU sets and
// disk sizes, with the normalisation Proxmox applies before it stores a value.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace kp::sim::pve {

using property_list = std::vector<std::pair<std::string, std::string>>;

// Splits "a=1,b=2" into ordered pairs; a part without '=' is stored under `default_key`. For net
// devices (default_key "model") the first part stays whole ("virtio=BC:24:11:..", model + MAC).
property_list parse_property_string(std::string_view text, std::string_view default_key);
std::string format_property_string(const property_list& props, std::string_view default_key);
// The value of `key` in a property string, or "" (the default key for the leading bare part).
std::string property_value(std::string_view text, std::string_view key,
                           std::string_view default_key);
// Replaces or appends key=value.
std::string with_property(std::string_view text, std::string_view key, std::string_view value,
                          std::string_view default_key);

// pve-tag-list: split on ';', ',' or spaces; each tag [a-z0-9_][a-z0-9_\-+.]*; stored lower-case,
// de-duplicated, sorted, joined with ';'.
result<std::string> normalize_tags(std::string_view input);

// pve-cpuset "0,1,2,3,8-11" -> ids; `separators` lists what splits parts (',' for affinity,
// ';' inside numaN cpus).
result<std::vector<int>> parse_cpu_list(std::string_view input, std::string_view separators = ",");
// Short sorted form: {0,1,2,3,8} -> "0-3,8".
std::string format_cpu_list(std::vector<int> cpus, char separator = ',');
result<std::string> normalize_cpuset(std::string_view input);

// Disk size "10G", "+2G", "512M", "1T", plain bytes. `relative` is set for a leading '+'.
result<std::uint64_t> parse_disk_size(std::string_view text, bool* relative = nullptr);
// Bytes as Proxmox prints them in size=: the largest unit that divides evenly (G, M, K).
std::string format_disk_size(std::uint64_t bytes);

}  // namespace kp::sim::pve
