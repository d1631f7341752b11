#include "sim/lab/launch_timings.hpp"

#include <boost/json.hpp>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "core/parse_number.hpp"
#include "sim/lab/quantile.hpp"

namespace kp::lab {

namespace json = boost::json;

namespace {

// The message and field names the controller's nodeclaim actor writes
// (actors/nodeclaim/launch_steps.cpp); the lab reads the controller only as a process.
constexpr std::string_view line_message = "clone to ready";

std::optional<double> seconds_field(const json::object& fields, std::string_view key) {
  const auto* v = fields.if_contains(key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  auto d = parse_decimal(std::string_view(v->as_string()));
  if (!d || *d < 0) return std::nullopt;
  return d;
}

std::optional<vm_launch_timing> timing_of(std::string_view line) {
  // A cheap test first: most lines are not these.
  if (line.find(line_message) == std::string_view::npos) return std::nullopt;
  boost::system::error_code ec;
  auto v = json::parse(line, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const auto& o = v.as_object();
  const auto* message = o.if_contains("message");
  const auto* fields = o.if_contains("fields");
  if (message == nullptr || !message->is_string() || message->as_string() != line_message ||
      fields == nullptr || !fields->is_object()) {
    return std::nullopt;
  }
  const auto& f = fields->as_object();
  vm_launch_timing t;
  if (const auto* n = f.if_contains("nodeclaim"); n != nullptr && n->is_string())
    t.nodeclaim = std::string(n->as_string());
  const auto* mode = f.if_contains("clone-mode");
  if (mode == nullptr || !mode->is_string()) return std::nullopt;
  t.clone_mode = std::string(mode->as_string());
  auto clone = seconds_field(f, "clone-seconds");
  auto configure = seconds_field(f, "configure-seconds");
  auto boot = seconds_field(f, "boot-seconds");
  auto join = seconds_field(f, "join-seconds");
  auto total = seconds_field(f, "total-seconds");
  if (!clone || !configure || !boot || !join || !total) return std::nullopt;
  t.clone = *clone;
  t.configure = *configure;
  t.boot = *boot;
  t.join = *join;
  t.total = *total;
  return t;
}

step_figures figures(const std::vector<vm_launch_timing>& ts, double vm_launch_timing::*step) {
  std::vector<double> values;
  values.reserve(ts.size());
  for (const auto& t : ts) values.push_back(t.*step);
  return {quantile(values, 0.5), quantile(values, 0.95)};
}

std::string three_decimals(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

using step_row = std::pair<const char*, step_figures launch_timing_summary::*>;
constexpr step_row step_rows[] = {{"clone", &launch_timing_summary::clone},
                                  {"configure", &launch_timing_summary::configure},
                                  {"boot", &launch_timing_summary::boot},
                                  {"join", &launch_timing_summary::join},
                                  {"total", &launch_timing_summary::total}};

}  // namespace

std::vector<vm_launch_timing> parse_launch_timings(std::string_view text) {
  std::vector<vm_launch_timing> out;
  while (!text.empty()) {
    auto end = text.find('\n');
    auto line = text.substr(0, end);
    if (auto t = timing_of(line)) out.push_back(std::move(*t));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

result<std::vector<vm_launch_timing>> read_launch_timings(const std::string& log_path) {
  std::ifstream in(log_path);
  if (!in) return make_error("io", "cannot read " + log_path);
  std::stringstream s;
  s << in.rdbuf();
  return parse_launch_timings(s.str());
}

std::vector<launch_timing_summary> summarise_launch_timings(
    const std::vector<vm_launch_timing>& timings) {
  std::vector<launch_timing_summary> out;
  std::vector<std::string> modes{"linked", "full"};
  for (const auto& t : timings) {
    bool known = false;
    for (const auto& m : modes) known = known || m == t.clone_mode;
    if (!known) modes.push_back(t.clone_mode);
  }
  for (const auto& mode : modes) {
    std::vector<vm_launch_timing> of_mode;
    for (const auto& t : timings)
      if (t.clone_mode == mode) of_mode.push_back(t);
    if (of_mode.empty()) continue;
    launch_timing_summary s;
    s.clone_mode = mode;
    s.vms = of_mode.size();
    s.clone = figures(of_mode, &vm_launch_timing::clone);
    s.configure = figures(of_mode, &vm_launch_timing::configure);
    s.boot = figures(of_mode, &vm_launch_timing::boot);
    s.join = figures(of_mode, &vm_launch_timing::join);
    s.total = figures(of_mode, &vm_launch_timing::total);
    out.push_back(std::move(s));
  }
  return out;
}

std::string launch_timing_table(const std::vector<launch_timing_summary>& summaries) {
  if (summaries.empty()) return "";
  std::string s = "  clone -> Ready per VM (seconds, median / p95):\n";
  char line[160];
  std::snprintf(line, sizeof line, "    %-8s %5s %15s %15s %15s %15s %15s\n", "mode", "VMs",
                "clone", "configure", "boot", "join", "total");
  s += line;
  for (const auto& m : summaries) {
    std::string cells[5];
    for (std::size_t i = 0; i < 5; ++i) {
      const auto& f = m.*(step_rows[i].second);
      cells[i] = three_decimals(f.median) + " / " + three_decimals(f.p95);
    }
    std::snprintf(line, sizeof line, "    %-8s %5zu %15s %15s %15s %15s %15s\n",
                  m.clone_mode.c_str(), m.vms, cells[0].c_str(), cells[1].c_str(), cells[2].c_str(),
                  cells[3].c_str(), cells[4].c_str());
    s += line;
  }
  return s;
}

std::vector<std::string> launch_timing_key_values(const launch_timing_summary& m) {
  std::vector<std::string> out;
  const std::string mode = "clone_mode=\"" + m.clone_mode + "\"";
  out.push_back("clone_to_ready_vms{" + mode + "}=" + std::to_string(m.vms));
  for (const auto& [step, member] : step_rows) {
    const auto& f = m.*member;
    for (const auto& [stat, value] : {std::pair{"median", f.median}, std::pair{"p95", f.p95}}) {
      out.push_back("clone_to_ready_seconds{" + mode + ",step=\"" + step + "\",stat=\"" + stat +
                    "\"}=" + three_decimals(value));
    }
  }
  return out;
}

}  // namespace kp::lab
