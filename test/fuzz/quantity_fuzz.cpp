// Quantities and resource lists from any text: parsing never crashes or wraps, what parses
// prints in a form that parses back to the same amount, and sums saturate instead of wrapping
// (a pod whose requests overflow is reported, never summed into a small number).
#include <map>
#include <string>

#include "core/model/pod.hpp"
#include "core/model/quantity.hpp"
#include "core/model/resource_list.hpp"
#include "test/fuzz/fuzz_check.hpp"

using namespace kp::model;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = kp::fuzz::text_of(data, size);
  if (auto q = parse_quantity(text)) {
    const auto printed = to_string(*q);
    auto again = parse_quantity(printed);
    kp::fuzz::check(again.ok() && again->milli == q->milli, "quantity round trip", printed);
    (void)q->value();
  }

  // Lines "name=quantity" as a resource list, then as the containers of one pod.
  std::map<std::string, std::string> raw;
  std::size_t start = 0;
  while (start < text.size() && raw.size() < 16) {
    auto end = text.find('\n', start);
    auto line = text.substr(start, end == std::string_view::npos ? end : end - start);
    auto eq = line.find('=');
    if (eq != std::string_view::npos) raw[std::string(line.substr(0, eq))] = line.substr(eq + 1);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  auto list = parse_resource_list(raw);
  if (!list) return 0;
  pod p;
  container c;
  c.requests = *list;
  p.containers = {c, c, c};
  p.init_containers = {c};
  p.overhead = *list;
  auto checked = checked_pod_requests(p);
  auto saturated = pod_requests(p);
  if (checked) kp::fuzz::check(*checked == saturated, "checked and saturating requests agree");
  resource_list sum = *list;
  sum += *list;
  sum -= *list;
  (void)sum.fits_in(*list);
  return 0;
}
