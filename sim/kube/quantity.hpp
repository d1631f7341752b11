#pragma once
// Resource quantities ("100m", "1.5Gi", "2e3") as the simulated scheduler and PDB logic need
// them: a value in base units (cores, bytes, counts). The simulator keeps its own tiny parser so
// it does not share bugs with the controller's exact one in core/model.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace kp::sim::kube {

std::optional<double> parse_quantity(std::string_view text);
// A JSON value that is a quantity string or a number.
std::optional<double> quantity_value(const boost::json::value& v);

using resource_amounts = std::map<std::string, double>;
// {"cpu":"1","memory":"1Gi"} → amounts; unparsable entries are skipped.
resource_amounts parse_resource_list(const boost::json::object* list);

}  // namespace kp::sim::kube
