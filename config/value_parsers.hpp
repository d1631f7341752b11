#pragma once
// Pure parsers for one setting value. Each error message says what was given and what is
// allowed; the caller prefixes which setting it was.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/settings.hpp"
#include "core/result.hpp"

namespace kp::config {

// Go's strconv.ParseBool: 1 t T TRUE true True 0 f F FALSE false False.
result<bool> parse_bool(std::string_view text);
// A decimal integer (optional sign) within [min, max].
result<std::int64_t> parse_integer(std::string_view text, std::int64_t min, std::int64_t max);
// A decimal number within [min, max].
result<double> parse_number(std::string_view text, double min, double max);
// One of `allowed` (exact, case-sensitive as Karpenter compares them); returns its index.
result<std::size_t> parse_choice(std::string_view text, const std::vector<std::string>& allowed);
// Kubernetes map syntax "Name=true,Other=false" over Karpenter's gates; unknown names fail.
result<feature_gates> parse_feature_gates(std::string_view text);
// "NodeRepair=false,ReservedCapacity=true,..." in Karpenter's order.
std::string format_feature_gates(const feature_gates& gates);
// Shortest text that reads back as the same number ("0.075", "1").
std::string format_number(double value);
// The names Karpenter knows, in its order.
const std::vector<std::string>& feature_gate_names();

}  // namespace kp::config
