// Proxmox property strings and the values inside VM configs (netN, numaN, smbios1, drives,
// CPU sets, tags, UPIDs) from any text: parsing never crashes, and what parses formats into
// text that parses back to the same value.
#include "protocol/proxmox/property_string.hpp"
#include "protocol/proxmox/upid.hpp"
#include "test/fuzz/fuzz_check.hpp"

using namespace kp::proxmox;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = kp::fuzz::text_of(data, size);
  if (auto p = parse_property_string(text, "model")) {
    auto again = parse_property_string(format_property_string(*p), "model");
    kp::fuzz::check(again.ok(), "property string reparses", format_property_string(*p));
    (void)find_property(*p, "bridge");
  }
  for (char separator : {',', ';'}) {
    if (auto cpus = parse_cpu_list(text, separator)) {
      auto printed = format_cpu_list(*cpus, separator);
      auto again = parse_cpu_list(printed, separator);
      kp::fuzz::check(again.ok() && *again == *cpus, "cpu list round trip", printed);
    }
  }
  if (auto net = parse_net_device(text)) {
    kp::fuzz::check(parse_net_device(format_net_device(*net)).ok(), "net device reparses",
                    format_net_device(*net));
  }
  if (auto numa = parse_numa_node(text)) {
    kp::fuzz::check(parse_numa_node(format_numa_node(*numa)).ok(), "numa node reparses",
                    format_numa_node(*numa));
  }
  if (auto smbios = parse_smbios1(text)) {
    kp::fuzz::check(parse_smbios1(format_smbios1(*smbios)).ok(), "smbios1 reparses",
                    format_smbios1(*smbios));
  }
  if (auto d = parse_drive(text)) {
    kp::fuzz::check(parse_drive(format_drive(*d)).ok(), "drive reparses", format_drive(*d));
  }
  if (auto tags = parse_tags(text)) {
    auto again = parse_tags(format_tags(*tags));
    kp::fuzz::check(again.ok() && *again == *tags, "tags round trip", format_tags(*tags));
  }
  (void)parse_upid(text);
  return 0;
}
