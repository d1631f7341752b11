#pragma once
// Proxmox property strings and the value formats inside VM configs, as pure functions:
// `key=value,key2=value2` lists, CPU sets ("0-3,8-11"), netN, numaN, smbios1 (base64), drives,
// tags and memory. No JSON, no I/O: the client, the simulator and tests share them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace kp::proxmox {

// Ordered key/value pairs of a property string.
using property_list = std::vector<std::pair<std::string, std::string>>;

// Parses "a=1,b=2". A piece without '=' is the value of `default_key` (e.g. "virtio" is the
// model of a net device); without a default key it is an error. Duplicate keys are an error.
// Error code: "invalid_property_string".
result<property_list> parse_property_string(std::string_view text,
                                            std::string_view default_key = {});
std::string format_property_string(const property_list& properties);
// The value of `key`, if present.
std::optional<std::string> find_property(const property_list& properties, std::string_view key);

// CPU sets ("pve-cpuset", affinity): "0-3,8-11" or "0,5,8-11"; with separator ';' inside numaN
// values ("cpus=0-3;8-11"). Returns sorted distinct ids; a reversed range, garbage or an id above
// 16383 is "invalid_cpu_list".
result<std::vector<unsigned>> parse_cpu_list(std::string_view text, char separator = ',');
// The short normalised form Proxmox stores: runs become "a-b", singles "a".
std::string format_cpu_list(const std::vector<unsigned>& cpus, char separator = ',');

// netN: `[model=]virtio[=MAC],bridge=vmbr0[,firewall=1][,tag=N][,mtu=N][,queues=N][,rate=R]...`
struct net_device {
  std::string model;  // virtio, e1000, vmxnet3, ...
  std::string mac;    // "" lets Proxmox generate one
  std::string bridge;
  std::optional<bool> firewall;
  std::optional<bool> link_down;
  std::optional<unsigned> tag;
  std::optional<unsigned> mtu;
  std::optional<unsigned> queues;
  std::optional<std::string> rate;
  property_list other;  // keys we do not model, kept for round trips

  friend bool operator==(const net_device&, const net_device&) = default;
};
result<net_device> parse_net_device(std::string_view text);
std::string format_net_device(const net_device& device);

// numaN: `cpus=0-3;8-11[,hostnodes=0][,memory=4096][,policy=bind|preferred|interleave]`
struct numa_node {
  std::vector<unsigned> cpus;
  std::vector<unsigned> hostnodes;
  std::optional<std::uint64_t> memory_mib;
  std::string policy;

  friend bool operator==(const numa_node&, const numa_node&) = default;
};
result<numa_node> parse_numa_node(std::string_view text);
std::string format_numa_node(const numa_node& node);

// smbios1: text fields are plain text here; on the wire they are base64 when base64=1.
struct smbios1 {
  std::string uuid;
  std::string manufacturer;
  std::string product;
  std::string version;
  std::string serial;
  std::string sku;
  std::string family;

  friend bool operator==(const smbios1&, const smbios1&) = default;
};
// Decodes base64 fields when `base64=1` is present.
result<smbios1> parse_smbios1(std::string_view text);
// Writes base64=1 and base64-encodes every non-empty text field (Proxmox restricts the plain
// form to a small character set, so encoding always is the safe choice); uuid stays plain.
std::string format_smbios1(const smbios1& value);

// Drives (ideN, scsiN, virtioN, ...): `[file=]<volume>,media=cdrom,size=32G,...`
struct drive {
  std::string volume;  // local-lvm:vm-101-disk-0, local:iso/seed.iso, none, cloudinit volid
  property_list options;

  std::optional<std::string> option(std::string_view key) const {
    return find_property(options, key);
  }
  friend bool operator==(const drive&, const drive&) = default;
};
result<drive> parse_drive(std::string_view text);
std::string format_drive(const drive& value);

// Tags: input separated by ';', ',' or spaces; each must match [a-z0-9_][a-z0-9_+.-]*
// (any case). Result lower-cased, sorted and distinct, as Proxmox stores them.
result<std::vector<std::string>> parse_tags(std::string_view text);
std::string format_tags(const std::vector<std::string>& tags);  // normalised, joined by ';'

// memory: `[current=]<MiB>`.
result<std::uint64_t> parse_memory_mib(std::string_view text);

}  // namespace kp::proxmox
