#pragma once
// Parameter checks as Proxmox's JSONSchema makes them, with its messages. A failed check is an
// error with code "param:<name>", which reply_from() turns into 400 "Parameter verification
// failed." with {"errors": {"<name>": "<message>"}}.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace kp::sim::pve {

inline constexpr const char* property_missing = "property is missing and it is not optional";
inline constexpr const char* property_not_in_schema =
    "property is not defined in schema and the schema does not allow additional properties";

// "type check ('integer') failed - got 'x'"
std::string type_check_failed(std::string_view type, std::string_view got);
// "invalid format - <why>\n": format validators die with a newline, and Proxmox keeps it.
std::string invalid_format(std::string_view why);

// JSONSchema's integer test: an optional sign and digits (any length).
bool is_integer_text(std::string_view text);

// A pve-vmid: an integer spelled [1-9][0-9]{2,8} (100 .. 999999999).
result<int> check_vmid(const std::string& name, const std::string& text);
// An integer within [min, max] (max unset = no maximum).
result<std::int64_t> check_integer(const std::string& name, const std::string& text,
                                   std::optional<std::int64_t> min = std::nullopt,
                                   std::optional<std::int64_t> max = std::nullopt);
// A pve-configid ([a-z][a-z0-9_-]+, case-insensitive).
bool is_config_id(std::string_view id);

}  // namespace kp::sim::pve
