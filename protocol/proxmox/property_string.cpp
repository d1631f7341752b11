#include "protocol/proxmox/property_string.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include "core/text/base64.hpp"
#include "core/text/trim.hpp"

namespace kp::proxmox {

namespace {

constexpr unsigned max_cpu_id = 16383;

kp::error bad(std::string_view what, std::string_view text, std::string_view why) {
  return make_error(
      "invalid_property_string",
      std::string(what) + " '" + std::string(text.substr(0, 200)) + "': " + std::string(why));
}

template <class Int>
bool parse_number(std::string_view s, Int& out) {
  s = text::trim(s);
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool parse_bool(std::string_view s, bool& out) {
  std::string v(text::trim(s));
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v == "1" || v == "on" || v == "yes" || v == "true") {
    out = true;
    return true;
  }
  if (v == "0" || v == "off" || v == "no" || v == "false") {
    out = false;
    return true;
  }
  return false;
}

}  // namespace

result<property_list> parse_property_string(std::string_view text, std::string_view default_key) {
  property_list out;
  std::string_view rest = text;
  bool more = !text.empty();
  while (more) {
    auto comma = rest.find(',');
    std::string_view piece = rest.substr(0, comma);
    more = comma != std::string_view::npos;
    if (more) rest.remove_prefix(comma + 1);
    if (piece.empty()) return bad("property string", text, "empty element");
    auto eq = piece.find('=');
    std::string key;
    std::string value;
    if (eq == std::string_view::npos) {
      if (default_key.empty()) return bad("property string", text, "element without '='");
      key = default_key;
      value = piece;
    } else {
      key = piece.substr(0, eq);
      value = piece.substr(eq + 1);
      if (key.empty()) return bad("property string", text, "empty key");
    }
    if (find_property(out, key)) {
      return bad("property string", text, "duplicate key '" + key + "'");
    }
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

std::string format_property_string(const property_list& properties) {
  std::string out;
  for (const auto& [key, value] : properties) {
    if (!out.empty()) out.push_back(',');
    out += key;
    out.push_back('=');
    out += value;
  }
  return out;
}

std::optional<std::string> find_property(const property_list& properties, std::string_view key) {
  for (const auto& [k, v] : properties) {
    if (k == key) return v;
  }
  return std::nullopt;
}

result<std::vector<unsigned>> parse_cpu_list(std::string_view text, char separator) {
  auto fail = [&](std::string_view why) {
    return make_error("invalid_cpu_list",
                      "'" + std::string(text.substr(0, 200)) + "': " + std::string(why));
  };
  std::set<unsigned> ids;
  std::string_view rest = text;
  bool more = true;
  while (more) {
    auto sep = rest.find(separator);
    std::string_view part = text::trim(rest.substr(0, sep));
    more = sep != std::string_view::npos;
    if (more) rest.remove_prefix(sep + 1);
    if (part.empty()) return fail("empty element");
    auto dash = part.find('-');
    unsigned first = 0;
    unsigned last = 0;
    if (dash == std::string_view::npos) {
      if (!parse_number(part, first)) return fail("not a CPU id");
      last = first;
    } else if (!parse_number(part.substr(0, dash), first) ||
               !parse_number(part.substr(dash + 1), last)) {
      return fail("not a CPU range");
    }
    if (last < first) return fail("reversed range");
    if (last > max_cpu_id) return fail("CPU id too large");
    for (unsigned id = first; id <= last; ++id) ids.insert(id);
  }
  return std::vector<unsigned>(ids.begin(), ids.end());
}

std::string format_cpu_list(const std::vector<unsigned>& cpus, char separator) {
  std::vector<unsigned> sorted(cpus);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out.push_back(separator);
    out += std::to_string(sorted[i]);
    if (j > i) out += "-" + std::to_string(sorted[j]);
    i = j + 1;
  }
  return out;
}

namespace {

bool is_net_option(std::string_view key) {
  static constexpr std::string_view keys[] = {"bridge", "firewall", "link_down", "macaddr",
                                              "model",  "mtu",      "queues",    "rate",
                                              "tag",    "trunks"};
  return std::find(std::begin(keys), std::end(keys), key) != std::end(keys);
}

}  // namespace

result<net_device> parse_net_device(std::string_view text) {
  auto props = parse_property_string(text, "model");
  if (!props) return props.error();
  net_device dev;
  for (auto& [key, value] : *props) {
    bool flag = false;
    unsigned n = 0;
    if (key == "model") {
      // A model named like an option ("mtu") would print as that option and not read back;
      // a second model would silently replace the first.
      if (is_net_option(value)) return bad("net device", text, "model " + value + " is an option");
      if (!dev.model.empty()) return bad("net device", text, "more than one model");
      dev.model = value;
    } else if (key == "macaddr") {
      dev.mac = value;
    } else if (key == "bridge") {
      dev.bridge = value;
    } else if (key == "firewall" || key == "link_down") {
      if (!parse_bool(value, flag)) return bad("net device", text, key + " is not a boolean");
      (key == "firewall" ? dev.firewall : dev.link_down) = flag;
    } else if (key == "tag" || key == "mtu" || key == "queues") {
      if (!parse_number(value, n)) return bad("net device", text, key + " is not a number");
      (key == "tag" ? dev.tag : key == "mtu" ? dev.mtu : dev.queues) = n;
    } else if (key == "rate") {
      dev.rate = value;
    } else if (!is_net_option(key) && dev.model.empty()) {
      // "virtio=BC:24:11:00:00:01": the model names itself as the key, the MAC is its value.
      dev.model = key;
      dev.mac = value;
    } else {
      dev.other.emplace_back(key, value);
    }
  }
  if (dev.model.empty()) return bad("net device", text, "no model");
  return dev;
}

std::string format_net_device(const net_device& d) {
  // Proxmox prints the model (with its MAC) first, then the other keys alphabetically.
  std::string out = d.model;
  if (!d.mac.empty()) out += "=" + d.mac;
  auto add = [&](std::string_view key, const std::string& value) {
    out += ",";
    out += key;
    out += "=";
    out += value;
  };
  if (!d.bridge.empty()) add("bridge", d.bridge);
  if (d.firewall) add("firewall", *d.firewall ? "1" : "0");
  if (d.link_down) add("link_down", *d.link_down ? "1" : "0");
  if (d.mtu) add("mtu", std::to_string(*d.mtu));
  if (d.queues) add("queues", std::to_string(*d.queues));
  if (d.rate) add("rate", *d.rate);
  if (d.tag) add("tag", std::to_string(*d.tag));
  for (const auto& [k, v] : d.other) add(k, v);
  return out;
}

result<numa_node> parse_numa_node(std::string_view text) {
  auto props = parse_property_string(text, "cpus");
  if (!props) return props.error();
  numa_node node;
  for (auto& [key, value] : *props) {
    if (key == "cpus") {
      auto cpus = parse_cpu_list(value, ';');
      if (!cpus) return bad("numa node", text, cpus.error().message);
      node.cpus = std::move(*cpus);
    } else if (key == "hostnodes") {
      auto hostnodes = parse_cpu_list(value, ';');
      if (!hostnodes) return bad("numa node", text, hostnodes.error().message);
      node.hostnodes = std::move(*hostnodes);
    } else if (key == "memory") {
      std::uint64_t mib = 0;
      if (!parse_number(value, mib)) return bad("numa node", text, "memory is not a number");
      node.memory_mib = mib;
    } else if (key == "policy") {
      if (value != "bind" && value != "preferred" && value != "interleave") {
        return bad("numa node", text, "policy must be bind, preferred or interleave");
      }
      node.policy = value;
    } else {
      return bad("numa node", text, "unknown key '" + key + "'");
    }
  }
  if (node.cpus.empty()) return bad("numa node", text, "no cpus");
  return node;
}

std::string format_numa_node(const numa_node& node) {
  std::string out = "cpus=" + format_cpu_list(node.cpus, ';');
  if (!node.hostnodes.empty()) out += ",hostnodes=" + format_cpu_list(node.hostnodes, ';');
  if (node.memory_mib) out += ",memory=" + std::to_string(*node.memory_mib);
  if (!node.policy.empty()) out += ",policy=" + node.policy;
  return out;
}

namespace {

struct smbios_field {
  std::string_view key;
  std::string smbios1::*member;
};
constexpr smbios_field smbios_text_fields[] = {
    {"family", &smbios1::family},   {"manufacturer", &smbios1::manufacturer},
    {"product", &smbios1::product}, {"serial", &smbios1::serial},
    {"sku", &smbios1::sku},         {"version", &smbios1::version},
};

}  // namespace

result<smbios1> parse_smbios1(std::string_view text) {
  // A bare value is the uuid (some writers store just the UUID).
  auto props = parse_property_string(text, "uuid");
  if (!props) return props.error();
  bool encoded = false;
  if (auto b = find_property(*props, "base64"); b && !parse_bool(*b, encoded)) {
    return bad("smbios1", text, "base64 is not a boolean");
  }
  smbios1 out;
  for (auto& [key, value] : *props) {
    if (key == "uuid") {
      out.uuid = value;
      continue;
    }
    if (key == "base64") continue;
    auto field = std::find_if(std::begin(smbios_text_fields), std::end(smbios_text_fields),
                              [&name = key](const smbios_field& f) { return f.key == name; });
    if (field == std::end(smbios_text_fields)) {
      return bad("smbios1", text, "unknown key '" + key + "'");
    }
    if (encoded) {
      auto decoded = text::base64_decode(value);
      if (!decoded) return bad("smbios1", text, key + " is not valid base64");
      out.*(field->member) = std::move(*decoded);
    } else {
      out.*(field->member) = value;
    }
  }
  return out;
}

std::string format_smbios1(const smbios1& value) {
  property_list props;
  if (!value.uuid.empty()) props.emplace_back("uuid", value.uuid);
  bool any_text = false;
  for (const auto& f : smbios_text_fields) any_text |= !(value.*(f.member)).empty();
  if (any_text) props.emplace_back("base64", "1");
  for (const auto& f : smbios_text_fields) {
    const std::string& text = value.*(f.member);
    if (!text.empty()) props.emplace_back(std::string(f.key), text::base64_encode(text));
  }
  return format_property_string(props);
}

result<drive> parse_drive(std::string_view text) {
  auto props = parse_property_string(text, "file");
  if (!props) return props.error();
  drive out;
  for (auto& [key, value] : *props) {
    if (key == "file" || key == "volume") {
      out.volume = value;
    } else {
      out.options.emplace_back(key, value);
    }
  }
  if (out.volume.empty()) return bad("drive", text, "no volume");
  return out;
}

std::string format_drive(const drive& value) {
  // The volume is the default key; one holding '=' must be named, or it would read back as a
  // key of its own.
  std::string out =
      value.volume.find('=') == std::string::npos ? value.volume : "file=" + value.volume;
  for (const auto& [k, v] : value.options) out += "," + k + "=" + v;
  return out;
}

result<std::vector<std::string>> parse_tags(std::string_view text) {
  std::set<std::string> tags;
  std::string current;
  auto flush = [&]() -> status {
    if (current.empty()) return {};
    auto valid_first = [](unsigned char c) { return std::isalnum(c) || c == '_'; };
    auto valid_rest = [](unsigned char c) {
      return std::isalnum(c) || c == '_' || c == '-' || c == '+' || c == '.';
    };
    if (!valid_first(static_cast<unsigned char>(current[0])) ||
        !std::all_of(current.begin(), current.end(),
                     [&](char c) { return valid_rest(static_cast<unsigned char>(c)); })) {
      return make_error("invalid_tag", "invalid characters in tag '" + current + "'");
    }
    std::transform(current.begin(), current.end(), current.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    tags.insert(current);
    current.clear();
    return {};
  };
  for (char c : text) {
    if (c == ';' || c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      if (auto s = flush(); !s) return s.error();
    } else {
      current.push_back(c);
    }
  }
  if (auto s = flush(); !s) return s.error();
  return std::vector<std::string>(tags.begin(), tags.end());
}

std::string format_tags(const std::vector<std::string>& tags) {
  std::set<std::string> normalised;
  for (auto t : tags) {
    std::transform(t.begin(), t.end(), t.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (!t.empty()) normalised.insert(std::move(t));
  }
  std::string out;
  for (const auto& t : normalised) {
    if (!out.empty()) out.push_back(';');
    out += t;
  }
  return out;
}

result<std::uint64_t> parse_memory_mib(std::string_view text) {
  auto props = parse_property_string(text, "current");
  if (!props) return props.error();
  auto current = find_property(*props, "current");
  std::uint64_t mib = 0;
  if (!current || !parse_number(std::string_view(*current), mib)) {
    return bad("memory", text, "no size in MiB");
  }
  return mib;
}

}  // namespace kp::proxmox
