// PCI resource mappings: GET /cluster/mapping/pci (with check-node) and /cluster/mapping/pci/{id},
// hostpciN checks and the start-time choice of devices (qemu-server's PCI.pm semantics).
#include "sim/pve/pci_mapping_api.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <set>

#include "sim/pve/api_router.hpp"
#include "sim/pve/parameter_checks.hpp"
#include "sim/pve/property_string.hpp"
#include "sim/pve/request_params.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {

constexpr int max_hostpci = 16;

std::string map_entry(const pci_device_spec& d) {
  std::string s = "node=" + d.node + ",path=" + d.path + ",id=" + d.id;
  if (!d.subsystem_id.empty()) s += ",subsystem-id=" + d.subsystem_id;
  if (d.iommugroup >= 0) s += ",iommugroup=" + std::to_string(d.iommugroup);
  if (!d.description.empty()) s += ",description=" + d.description;
  return s;
}

json::object mapping_json(const pci_mapping_spec& m, const std::string& digest) {
  json::array map;
  for (const auto& d : m.devices) map.push_back(json::string(map_entry(d)));
  json::object o{{"type", "pci"}, {"map", std::move(map)}, {"digest", digest}};
  if (!m.description.empty()) o["description"] = m.description;
  if (m.mdev) o["mdev"] = 1;
  return o;
}

// A PCI id as hostpciN's `host` takes it: [dddd:]bb:ss[.f]; the domain defaults to 0000.
std::string full_pci_address(const std::string& id) {
  return id.find(':') == id.rfind(':') ? "0000:" + id : id;
}

bool pci_address_matches(const std::string& device_path, const std::string& wanted) {
  // "0000:01:00" (a whole device) matches its functions "0000:01:00.N" and the reverse.
  if (device_path == wanted) return true;
  auto base = [](const std::string& a) { return a.substr(0, a.find('.')); };
  return (wanted.find('.') == std::string::npos || device_path.find('.') == std::string::npos) &&
         base(device_path) == base(wanted);
}

std::vector<std::string> split_semicolons(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    auto semi = s.find(';', start);
    out.push_back(s.substr(start, semi == std::string::npos ? semi : semi - start));
    if (semi == std::string::npos) return out;
    start = semi + 1;
  }
}

bool valid_pci_id(const std::string& id) {
  // [dddd:]bb:ss[.f], hex
  auto hex = [](const std::string& s) {
    if (s.empty()) return false;
    for (char ch : s)
      if (!std::isxdigit(static_cast<unsigned char>(ch))) return false;
    return true;
  };
  auto parts = std::vector<std::string>{};
  std::size_t start = 0;
  while (true) {
    auto colon = id.find(':', start);
    parts.push_back(id.substr(start, colon == std::string::npos ? colon : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) return false;
  std::string slot = parts.back();
  std::string function;
  if (auto dot = slot.find('.'); dot != std::string::npos) {
    function = slot.substr(dot + 1);
    slot = slot.substr(0, dot);
    if (function.size() != 1 || !hex(function)) return false;
  }
  const std::string& bus = parts[parts.size() - 2];
  if (parts.size() == 3 && (parts[0].size() < 4 || !hex(parts[0]))) return false;
  return bus.size() == 2 && hex(bus) && slot.size() == 2 && hex(slot);
}

struct hostpci_entry {
  std::string host;
  std::string mapping;
  bool pcie = false;
  std::string mdev;
};

// hostpciN's property string as qemu-server's format parses it; an error is the config-time
// 400 text for `key`.
result<hostpci_entry> parse_hostpci(const std::string& key, const std::string& value) {
  static const std::set<std::string> keys = {
      "host",       "mapping", "rombar",    "romfile",   "pcie",          "x-vga",
      "legacy-igd", "mdev",    "vendor-id", "device-id", "sub-vendor-id", "sub-device-id"};
  static const std::set<std::string> booleans = {"rombar", "pcie", "x-vga", "legacy-igd"};
  auto bad = [&](const std::string& why) {
    return make_error("param:" + key, invalid_format(why));
  };
  auto sub = [&](const std::string& prop, const std::string& why) {
    return bad("format error\n" + key + "." + prop + ": " + why);
  };
  hostpci_entry e;
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start <= value.size()) {
    auto comma = value.find(',', start);
    std::string part = value.substr(start, comma == std::string::npos ? comma : comma - start);
    start = comma == std::string::npos ? value.size() + 1 : comma + 1;
    if (part.empty()) continue;
    auto eq = part.find('=');
    std::string k = eq == std::string::npos ? "host" : part.substr(0, eq);
    std::string v = eq == std::string::npos ? part : part.substr(eq + 1);
    if (!keys.count(k)) return bad("invalid key in comma-separated list property: " + k);
    if (!seen.insert(k).second) return bad("duplicate key in comma-separated list property: " + k);
    if (booleans.count(k)) {
      request_params p;
      p.add("v", v);
      auto b = p.get_bool("v");
      if (!b) return sub(k, type_check_failed("boolean", v));
      if (k == "pcie") e.pcie = *b;
    } else if (k == "host") {
      for (const auto& id : split_semicolons(v))
        if (!valid_pci_id(id)) return sub(k, "value does not match the regex pattern");
      e.host = v;
    } else if (k == "mapping") {
      if (!is_config_id(v)) return sub(k, invalid_format("invalid configuration ID '" + v + "'"));
      e.mapping = v;
    } else if (k == "mdev") {
      if (v.find_first_of("/.:") != std::string::npos)
        return sub(k, "value does not match the regex pattern");
      e.mdev = v;
    }
  }
  return e;
}

}  // namespace

void pci_mapping_api::add_routes(api_router& router) {
  router.add("GET", "/cluster/mapping/pci", [this](api_call& c) { return list(c); });
  router.add("GET", "/cluster/mapping/pci/{id}", [this](api_call& c) { return get(c); });
}

std::string pci_mapping_api::digest() const {
  // The digest covers mapping/pci.cfg as pmxcfs stores it.
  std::string text;
  for (const auto& m : world_.topo().pci_mappings) {
    text += m.id + "\n";
    if (!m.description.empty()) text += "\tdescription " + m.description + "\n";
    for (const auto& d : m.devices) text += "\tmap " + map_entry(d) + "\n";
    if (m.mdev) text += "\tmdev 1\n";
    text += "\n";
  }
  return sha1_hex(text);
}

api_reply pci_mapping_api::list(api_call& c) {
  auto check_node = c.params.get("check-node");
  // With check-node the call is proxied to that node.
  if (check_node) {
    if (auto reachable = world_.reach_node(*check_node); !reachable)
      return reply_from(reachable.error());
  }
  const auto d = digest();
  json::array out;
  for (const auto& m : world_.topo().pci_mappings) {
    auto o = mapping_json(m, d);
    o["id"] = m.id;
    if (check_node) {
      json::array checks;
      bool here = false;
      for (const auto& dev : m.devices) here = here || dev.node == *check_node;
      if (!here)
        checks.push_back(json::object{{"severity", "warning"},
                                      {"message", "No mapping for node " + *check_node + "."}});
      o["checks"] = std::move(checks);
    }
    out.push_back(std::move(o));
  }
  return api_reply::ok(out);
}

api_reply pci_mapping_api::get(api_call& c) {
  const auto& id = c.path["id"];
  if (!is_config_id(id))
    return api_reply::param("id", invalid_format("invalid configuration ID '" + id + "'"));
  const auto* m = world_.topo().find_pci_mapping(id);
  if (!m) return api_reply::fail(500, "mapping '" + id + "' not found");
  return api_reply::ok(mapping_json(*m, digest()));
}

status pci_mapping_api::check_hostpci(const std::string& key, const std::string& value,
                                      const api_identity& who) const {
  auto e = parse_hostpci(key, value);
  if (!e) return e.error();
  if (!who.is_root() && (e->mapping.empty() || !e->host.empty()))
    return make_error("500", "only root can set '" + key + "' config for non-mapped devices");
  return {};
}

int pci_mapping_api::holder(const std::string& node, const std::string& path,
                            int except_vmid) const {
  for (const auto& [id, vm] : world_.vms) {
    if (id == except_vmid || !vm.running || vm.node != node) continue;
    for (const auto& d : vm.pci_devices)
      if (!d.mediated && pci_address_matches(d.path, path)) return id;
  }
  return 0;
}

result<std::vector<held_pci_device>> pci_mapping_api::choose_devices(const vm_state& vm) const {
  struct wanted {
    std::string slot;
    std::string mapping;
    bool mediated = false;
    std::vector<std::vector<std::string>> alternatives;  // each: the ids of one device
  };
  std::vector<wanted> devices;
  auto machine = vm.config.count("machine") ? vm.config.at("machine") : "";
  const bool q35 = machine.find("q35") != std::string::npos;
  for (int i = 0; i < max_hostpci; ++i) {
    const std::string slot = "hostpci" + std::to_string(i);
    auto it = vm.config.find(slot);
    if (it == vm.config.end()) continue;
    auto e = parse_hostpci(slot, it->second);
    if (!e) {
      std::string why = e.error().message;  // a task's exit status is one line
      std::replace(why.begin(), why.end(), '\n', ' ');
      while (!why.empty() && why.back() == ' ') why.pop_back();
      return make_error("500", "unable to parse value of '" + slot + "' - " + why);
    }
    wanted w{slot, e->mapping, !e->mdev.empty(), {}};
    if (!e->host.empty() && !e->mapping.empty())
      return make_error("500", "Cannot set both 'host' and 'mapping'.");
    if (!e->mapping.empty()) {
      const auto* m = world_.topo().find_pci_mapping(e->mapping);
      if (m)
        for (const auto& d : m->devices)
          if (d.node == vm.node) w.alternatives.push_back(split_semicolons(d.path));
      if (w.alternatives.empty())
        return make_error("500", "PCI device mapping not found for '" + e->mapping + "'");
    } else if (!e->host.empty()) {
      std::vector<std::string> ids;
      for (const auto& id : split_semicolons(e->host)) ids.push_back(full_pci_address(id));
      // The host's PCI devices are the mapped ones of the topology.
      for (const auto& id : ids) {
        bool exists = false;
        for (const auto& m : world_.topo().pci_mappings)
          for (const auto& d : m.devices)
            for (const auto& p : split_semicolons(d.path))
              exists = exists || (d.node == vm.node && pci_address_matches(p, id));
        if (!exists) return make_error("500", "no PCI device found for '" + id + "'");
      }
      w.alternatives.push_back(ids);
    } else {
      return make_error("500", "Either 'host' or 'mapping' must be set.");
    }
    if (e->pcie && !q35) return make_error("500", "q35 machine model is not enabled");
    devices.push_back(std::move(w));
  }

  // One alternative: taken as it is. Several: the first one this VM does not use yet and no
  // running VM holds. Mediated devices are shared and never reserved.
  std::vector<held_pci_device> chosen;
  std::set<std::string> used;
  for (const auto& w : devices) {
    const std::vector<std::string>* pick = nullptr;
    if (w.mediated || w.alternatives.size() == 1) {
      pick = &w.alternatives.front();
      if (!w.mediated)
        for (const auto& id : *pick)
          if (!used.insert(id).second)
            return make_error("500", "PCI device '" + id + "' assigned more than once");
    } else {
      for (const auto& alternative : w.alternatives) {
        bool free = true;
        for (const auto& id : alternative)
          free = free && !used.count(id) && holder(vm.node, id, vm.vmid) == 0;
        if (!free) continue;
        pick = &alternative;
        used.insert(alternative.begin(), alternative.end());
        break;
      }
      if (!pick) return make_error("500", "could not find a free device for '" + w.slot + "'");
    }
    for (const auto& id : *pick) chosen.push_back({w.slot, w.mapping, id, w.mediated});
  }
  // The reservation of every chosen device, before QEMU starts.
  for (const auto& d : chosen) {
    if (d.mediated) continue;
    if (int other = holder(vm.node, d.path, vm.vmid))
      return make_error("500", "PCI device '" + d.path + "' already in use by VMID '" +
                                   std::to_string(other) + "'");
  }
  return chosen;
}

std::map<std::string, std::int64_t> pci_mapping_api::advertised_resources(
    const std::string& node, const std::vector<held_pci_device>& held) const {
  std::map<std::string, std::int64_t> out;
  std::set<std::string> counted;  // a multi-function device counts once, per slot
  for (const auto& d : held) {
    if (!counted.insert(d.slot).second) continue;
    for (const auto& m : world_.topo().pci_mappings) {
      if (m.resource.empty()) continue;
      bool provides = false;
      for (const auto& dev : m.devices)
        for (const auto& p : split_semicolons(dev.path))
          provides = provides || (dev.node == node && pci_address_matches(p, d.path));
      if (provides && (d.mapping.empty() || d.mapping == m.id)) {
        ++out[m.resource];
        break;
      }
    }
  }
  return out;
}

json::array pci_mapping_api::devices_on(const std::string& node) const {
  json::array out;
  for (const auto& m : world_.topo().pci_mappings)
    for (const auto& d : m.devices) {
      if (d.node != node) continue;
      json::object o{{"mapping", m.id}, {"path", d.path}, {"id", d.id}};
      int used_by = 0;
      for (const auto& p : split_semicolons(d.path))
        if (!used_by) used_by = holder(node, p, 0);
      o["used_by"] = used_by;
      out.push_back(std::move(o));
    }
  return out;
}

}  // namespace kp::sim::pve
