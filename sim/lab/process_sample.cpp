#include "sim/lab/process_sample.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/parse_number.hpp"

namespace kp::lab {

std::optional<process_sample> sample_process(pid_t pid) {
  process_sample s;
  s.at = std::chrono::steady_clock::now();
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  if (!status) return std::nullopt;
  std::string line;
  while (std::getline(status, line)) {
    // "VmHWM:\t   12345 kB"
    auto value = [&] {
      auto digits = line.find_first_of("0123456789");
      auto end =
          digits == std::string::npos ? digits : line.find_first_not_of("0123456789", digits);
      if (digits == std::string::npos) return 0L;
      return parse_integer<long>(std::string_view(line).substr(digits, end - digits)).value_or(0);
    };
    if (line.rfind("VmHWM:", 0) == 0) s.peak_rss_kib = value();
    if (line.rfind("VmRSS:", 0) == 0) s.rss_kib = value();
  }
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // The command name may contain spaces; fields count from the last ')'.
  auto close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; fields >> field; ++i) {
    if (i == 14) utime = parse_integer<long>(field).value_or(0);
    if (i == 15) {
      stime = parse_integer<long>(field).value_or(0);
      break;
    }
  }
  s.cpu_seconds = static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  return s;
}

double average_cores(const process_sample& from, const process_sample& to) {
  double wall = std::chrono::duration<double>(to.at - from.at).count();
  return wall > 0 ? (to.cpu_seconds - from.cpu_seconds) / wall : 0.0;
}

}  // namespace kp::lab
