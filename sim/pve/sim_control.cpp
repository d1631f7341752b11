// Test controls under /sim/v1/ (plain JSON, no Proxmox envelope, no authentication: loopback
// only): faults, request counters, host accounting and guest progress.
#include "sim/pve/guest_fleet.hpp"
#include "sim/pve/pve_world.hpp"

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

void pve_world::handle_sim(const transport::http_request& request,
                           std::function<void(transport::http_response)> reply) {
  const std::string path(request.path());
  const std::string& method = request.method;
  if (path == "/sim/v1/faults") {
    if (method == "GET") return reply(plain(200, fault_plan_to_json(faults_.plan())));
    if (method == "PUT" || method == "POST") {
      auto plan = parse_fault_plan(request.body);
      if (!plan) return reply(plain(400, error_body(plan.error().message)));
      faults_.replace(*plan);
      return reply(plain(200, fault_plan_to_json(faults_.plan())));
    }
    if (method == "DELETE") {
      faults_.replace(fault_plan{});
      return reply(plain(200, fault_plan_to_json(faults_.plan())));
    }
  } else if (path == "/sim/v1/stats") {
    if (method == "GET") {
      json::array rows;
      std::uint64_t total = 0;
      for (const auto& [key, count] : request_counts) {
        json::object statuses;
        if (auto it = status_counts.find(key); it != status_counts.end())
          for (const auto& [code, n] : it->second) statuses[std::to_string(code)] = n;
        rows.push_back(json::object{
            {"method", key.first}, {"path", key.second}, {"count", count}, {"statuses", statuses}});
        total += count;
      }
      return reply(plain(200, json::serialize(json::object{{"total", total}, {"requests", rows}})));
    }
    if (method == "DELETE") {
      request_counts.clear();
      status_counts.clear();
      return reply(plain(200, "{}"));
    }
  } else if (path == "/sim/v1/hosts" && method == "GET") {
    json::array rows;
    for (const auto& h : topo().hosts) {
      auto u = usage_of(h.name);
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
                                  {"numa", numa}});
    }
    return reply(plain(200, json::serialize(rows)));
  } else if (path == "/sim/v1/guests" && method == "GET") {
    json::array rows;
    for (const auto& g : guests_->reports())
      rows.push_back(json::object{{"vmid", g.vmid},
                                  {"phase", g.phase},
                                  {"detail", g.detail},
                                  {"lease_renewals", g.lease_renewals}});
    return reply(plain(200, json::serialize(rows)));
  }
  reply(plain(404, error_body("no such simulator control: " + method + " " + path)));
}

}  // namespace kp::sim::pve
