// Test controls: GET/PUT/DELETE /sim/v1/faults, GET/DELETE /sim/v1/stats, GET /sim/v1/hosts,
// GET /sim/v1/guests.
#include "sim/pve/sim_control.hpp"

#include <boost/json.hpp>

#include "sim/pve/guest_fleet.hpp"
#include "sim/pve/pci_mapping_api.hpp"
#include "sim/pve/request_stats.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

namespace {
transport::http_response plain(int status, const std::string& body) {
  transport::http_response r;
  r.status = status;
  r.headers = {{"Content-Type", "application/json"}};
  r.body = body;
  return r;
}
std::string error_body(const std::string& message) {
  return json::serialize(json::object{{"error", message}});
}
}  // namespace

void sim_control::handle(const transport::http_request& request,
                         std::function<void(transport::http_response)> reply) {
  auto& faults = world_.faults();
  const std::string path(request.path());
  const std::string& method = request.method;
  if (path == "/sim/v1/faults") {
    if (method == "GET") return reply(plain(200, faults.describe()));
    if (method == "PUT" || method == "POST") {
      auto plan = parse_fault_plan(request.body);
      if (!plan) return reply(plain(400, error_body(plan.error().message)));
      faults.replace(*plan);
      return reply(plain(200, faults.describe()));
    }
    if (method == "DELETE") {
      faults.replace(fault_plan{});
      return reply(plain(200, faults.describe()));
    }
  } else if (path == "/sim/v1/stats") {
    if (method == "GET") return reply(plain(200, json::serialize(stats_.to_json())));
    if (method == "DELETE") {
      stats_.clear();
      return reply(plain(200, "{}"));
    }
  } else if (path == "/sim/v1/hosts" && method == "GET") {
    json::array rows;
    for (const auto& h : world_.topo().hosts) {
      auto u = world_.usage_of(h.name);
      json::array numa;
      for (const auto& [id, free] : u.numa_free) {
        std::int64_t total = 0;
        std::string cpus;
        for (const auto& n : h.numa)
          if (n.id == id) {
            total = static_cast<std::int64_t>(n.memory);
            cpus = n.cpus;
          }
        numa.push_back(json::object{{"id", id}, {"cpus", cpus}, {"memory", total}, {"free", free}});
      }
      rows.push_back(json::object{{"node", h.name},
                                  {"maxcpu", h.logical_cpus()},
                                  {"cpu", u.cpu},
                                  {"maxmem", static_cast<std::int64_t>(h.memory)},
                                  {"mem", static_cast<std::int64_t>(u.mem)},
                                  {"running_vms", u.running_vms},
                                  {"running_vcpus", u.running_vcpus},
                                  {"numa", numa},
                                  {"pci_devices", pci_.devices_on(h.name)}});
    }
    return reply(plain(200, json::serialize(rows)));
  } else if (path == "/sim/v1/guests" && method == "GET") {
    json::array rows;
    for (const auto& g : world_.guests().reports())
      rows.push_back(json::object{{"vmid", g.vmid},
                                  {"phase", g.phase},
                                  {"detail", g.detail},
                                  {"lease_renewals", g.lease_renewals}});
    return reply(plain(200, json::serialize(rows)));
  }
  reply(plain(404, error_body("no such simulator control: " + method + " " + path)));
}

}  // namespace kp::sim::pve
