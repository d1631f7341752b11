#include "core/ownership/iso_name.hpp"

#include <charconv>
#include <cstdio>

#include "core/ownership/fnv1a.hpp"

namespace kp::ownership {
namespace {

constexpr std::string_view prefix = "kp-";
constexpr std::string_view suffix = ".iso";

// The file part of a volume id ("local:iso/x.iso" -> "x.iso").
std::string_view file_of(std::string_view name) {
  auto slash = name.rfind('/');
  if (slash != std::string_view::npos) return name.substr(slash + 1);
  auto colon = name.rfind(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

bool hex_digits(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::string cluster_tag(std::string_view cluster_name) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08llx",
                static_cast<unsigned long long>(fnv1a64(cluster_name) & 0xffffffffull));
  return buf;
}

std::string iso_file_name(std::string_view cluster_name, std::uint32_t vmid,
                          std::string_view nodeclaim) {
  std::string out(prefix);
  out.append(cluster_tag(cluster_name)).append("-").append(std::to_string(vmid)).append("-");
  out.append(nodeclaim).append(suffix);
  return out;
}

std::optional<iso_name> parse_iso_name(std::string_view name) {
  auto file = file_of(name);
  if (file.size() <= prefix.size() + suffix.size() || file.substr(0, prefix.size()) != prefix ||
      file.substr(file.size() - suffix.size()) != suffix) {
    return std::nullopt;
  }
  file = file.substr(prefix.size(), file.size() - prefix.size() - suffix.size());
  iso_name out;
  if (file.size() < 9 || file[8] != '-' || !hex_digits(file.substr(0, 8))) return std::nullopt;
  out.cluster_tag = std::string(file.substr(0, 8));
  file.remove_prefix(9);
  auto dash = file.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == file.size()) return std::nullopt;
  auto digits = file.substr(0, dash);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out.vmid);
  if (ec != std::errc{} || end != digits.data() + digits.size() || out.vmid == 0) {
    return std::nullopt;
  }
  out.nodeclaim = std::string(file.substr(dash + 1));
  return out;
}

bool is_our_iso(std::string_view volid, std::string_view cluster_name, std::uint32_t vmid,
                std::string_view nodeclaim) {
  auto file = file_of(volid);
  if (file == "user-data-" + std::to_string(vmid) + ".iso") return true;
  auto parsed = parse_iso_name(file);
  return parsed && parsed->cluster_tag == cluster_tag(cluster_name) && parsed->vmid == vmid &&
         parsed->nodeclaim == nodeclaim;
}

}  // namespace kp::ownership
