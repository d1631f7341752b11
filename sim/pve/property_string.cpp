#include "sim/pve/property_string.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/text/trim.hpp"
#include "sim/pve/number_text.hpp"

namespace kp::sim::pve {

namespace {
std::vector<std::string_view> split_any(std::string_view text, std::string_view separators) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || separators.find(text[i]) != std::string_view::npos) {
      if (i > start) out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

}  // namespace

property_list parse_property_string(std::string_view text, std::string_view default_key) {
  property_list out;
  bool first = true;
  for (auto part : split_any(text, ",")) {
    auto eq = part.find('=');
    if (eq == std::string_view::npos) {
      out.emplace_back(std::string(default_key), std::string(part));
    } else if (first && default_key == "model") {
      // net devices: "virtio=MAC" is model=virtio with the MAC, keep it whole under the model.
      out.emplace_back(std::string(default_key), std::string(part));
    } else {
      out.emplace_back(std::string(part.substr(0, eq)), std::string(part.substr(eq + 1)));
    }
    first = false;
  }
  return out;
}

std::string format_property_string(const property_list& props, std::string_view default_key) {
  std::string out;
  for (const auto& [k, v] : props) {
    if (!out.empty()) out += ',';
    if (k == default_key) {
      out += v;
    } else {
      out += k + "=" + v;
    }
  }
  return out;
}

std::string property_value(std::string_view text, std::string_view key,
                           std::string_view default_key) {
  for (const auto& [k, v] : parse_property_string(text, default_key))
    if (k == key) return v;
  return "";
}

std::string with_property(std::string_view text, std::string_view key, std::string_view value,
                          std::string_view default_key) {
  auto props = parse_property_string(text, default_key);
  bool found = false;
  for (auto& [k, v] : props) {
    if (k == key) {
      v = std::string(value);
      found = true;
    }
  }
  if (!found) props.emplace_back(std::string(key), std::string(value));
  return format_property_string(props, default_key);
}

result<std::string> normalize_tags(std::string_view input) {
  std::set<std::string> tags;
  for (auto part : split_any(input, "; ,\t\n")) {
    std::string tag(part);
    std::transform(tag.begin(), tag.end(), tag.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    bool ok = !tag.empty() && (std::isalnum(static_cast<unsigned char>(tag[0])) || tag[0] == '_');
    for (char c : tag)
      ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '+' ||
                  c == '.');
    if (!ok) return make_error("invalid_tag", "invalid characters in tag");
    tags.insert(tag);
  }
  std::string out;
  for (const auto& t : tags) out += (out.empty() ? "" : ";") + t;
  return out;
}

result<std::vector<int>> parse_cpu_list(std::string_view input, std::string_view separators) {
  std::vector<int> out;
  for (auto raw : split_any(input, separators)) {
    auto part = text::trim(raw);
    auto dash = part.find('-');
    auto number = [](std::string_view s) -> int {
      if (s.empty() || s.size() > 6 || s.front() == '+') return -1;
      return parse_number<int>(s).value_or(-1);
    };
    int lo = number(dash == std::string_view::npos ? part : part.substr(0, dash));
    int hi = dash == std::string_view::npos ? lo : number(part.substr(dash + 1));
    if (lo < 0 || hi < 0 || hi < lo)
      return make_error("invalid_cpuset", "unable to parse cpuset option");
    for (int i = lo; i <= hi; ++i) out.push_back(i);
  }
  if (out.empty()) return make_error("invalid_cpuset", "unable to parse cpuset option");
  return out;
}

std::string format_cpu_list(std::vector<int> cpus, char separator) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += separator;
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

result<std::string> normalize_cpuset(std::string_view input) {
  auto cpus = parse_cpu_list(input, ",");
  if (!cpus) return cpus.error();
  return format_cpu_list(*cpus, ',');
}

result<std::uint64_t> parse_disk_size(std::string_view text, bool* relative) {
  if (relative) *relative = false;
  if (!text.empty() && text.front() == '+') {
    if (relative) *relative = true;
    text.remove_prefix(1);
  }
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  auto parsed = parse_number<double>(text.substr(0, i));
  if (!parsed) return make_error("invalid_size", "value does not match the regex pattern");
  double number = *parsed;
  std::string_view unit = text.substr(i);
  double factor = 1;
  if (unit == "K")
    factor = 1024.0;
  else if (unit == "M")
    factor = 1024.0 * 1024;
  else if (unit == "G")
    factor = 1024.0 * 1024 * 1024;
  else if (unit == "T")
    factor = 1024.0 * 1024 * 1024 * 1024;
  else if (!unit.empty())
    return make_error("invalid_size", "value does not match the regex pattern");
  // Beyond 2^62 bytes no storage holds it; the cast below would overflow.
  if (number * factor > 4.6e18) return make_error("invalid_size", "size is too large");
  return static_cast<std::uint64_t>(number * factor);
}

std::string format_disk_size(std::uint64_t bytes) {
  const std::uint64_t k = 1024;
  if (bytes && bytes % (k * k * k * k) == 0) return std::to_string(bytes / (k * k * k * k)) + "T";
  if (bytes && bytes % (k * k * k) == 0) return std::to_string(bytes / (k * k * k)) + "G";
  if (bytes && bytes % (k * k) == 0) return std::to_string(bytes / (k * k)) + "M";
  if (bytes && bytes % k == 0) return std::to_string(bytes / k) + "K";
  return std::to_string(bytes);
}

}  // namespace kp::sim::pve
