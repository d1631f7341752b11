// Pool endpoints: list (with members when filtered by poolid), create, get, update (add, remove
// or move VMs), delete (empty pools only).
#include "sim/pve/pool_api.hpp"

#include "sim/pve/api_router.hpp"
#include "sim/pve/parameter_checks.hpp"
#include "sim/pve/property_string.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

namespace json = boost::json;

pool_api::pool_api(world_model& world) : world_(world) {
  for (const auto& p : world_.topo().pools) pools_[p.id].comment = p.comment;
}

void pool_api::add_member(const std::string& pool, vm_state& vm) {
  pools_[pool].vms.insert(vm.vmid);
  vm.pool = pool;
}

void pool_api::remove_member(vm_state& vm) {
  if (vm.pool.empty()) return;
  pools_[vm.pool].vms.erase(vm.vmid);
  vm.pool.clear();
}

std::vector<std::string> pool_api::ids() const {
  std::vector<std::string> out;
  for (const auto& [id, p] : pools_) out.push_back(id);
  return out;
}

void pool_api::add_routes(api_router& router) {
  router.add("GET", "/pools", [this](api_call& c) { return list(c); });
  router.add("POST", "/pools", [this](api_call& c) { return create(c); });
  router.add("GET", "/pools/{poolid}", [this](api_call& c) { return get(c); });
  router.add("PUT", "/pools/{poolid}", [this](api_call& c) { return update(c); });
  router.add("DELETE", "/pools/{poolid}", [this](api_call& c) { return remove(c); });
}

json::array pool_api::members(const pool_state& p) const {
  json::array out;
  for (int id : p.vms) {
    auto it = world_.vms.find(id);
    if (it == world_.vms.end()) continue;
    const auto& vm = it->second;
    out.push_back(json::object{{"id", "qemu/" + std::to_string(id)},
                               {"type", "qemu"},
                               {"vmid", id},
                               {"node", vm.node},
                               {"name", vm.name()},
                               {"status", vm.running ? "running" : "stopped"},
                               {"template", vm.is_template() ? 1 : 0}});
  }
  return out;
}

api_reply pool_api::list(api_call& c) {
  json::array out;
  auto only = c.params.get("poolid");
  for (const auto& [id, p] : pools_) {
    if (only && *only != id) continue;
    json::object o{{"poolid", id}};
    if (!p.comment.empty()) o["comment"] = p.comment;
    if (only) o["members"] = members(p);
    out.push_back(std::move(o));
  }
  return api_reply::ok(out);
}

api_reply pool_api::create(api_call& c) {
  auto id = c.params.get("poolid");
  if (!id) return api_reply::param("poolid", property_missing);
  if (pools_.count(*id)) return api_reply::fail(500, "pool '" + *id + "' already exists");
  pools_[*id].comment = c.params.get_or("comment", "");
  return api_reply::ok(nullptr);
}

api_reply pool_api::get(api_call& c) {
  auto it = pools_.find(c.path["poolid"]);
  if (it == pools_.end())
    return api_reply::fail(500, "pool '" + c.path["poolid"] + "' does not exist");
  json::object o{{"members", members(it->second)}};
  if (!it->second.comment.empty()) o["comment"] = it->second.comment;
  return api_reply::ok(o);
}

api_reply pool_api::update(api_call& c) {
  auto it = pools_.find(c.path["poolid"]);
  if (it == pools_.end())
    return api_reply::fail(500, "pool '" + c.path["poolid"] + "' does not exist");
  if (auto comment = c.params.get("comment")) it->second.comment = *comment;
  bool remove = c.params.get_bool("delete").value_or(false);
  bool allow_move = c.params.get_bool("allow-move").value_or(false);
  for (const auto& list : c.params.all("vms")) {
    auto ids = parse_cpu_list(list, ",; ");
    if (!ids)
      return api_reply::param("vms", invalid_format("value does not look like a valid VM ID"));
    for (int id : *ids) {
      auto* vm = world_.find_vm(id);
      if (!vm) return api_reply::fail(500, "no such VM ID '" + std::to_string(id) + "'");
      if (remove) {
        if (vm->pool == it->first) remove_member(*vm);
        it->second.vms.erase(id);
        continue;
      }
      if (!vm->pool.empty() && vm->pool != it->first) {
        if (!allow_move)
          return api_reply::fail(500, "VM " + std::to_string(id) + " is already a pool member");
        remove_member(*vm);
      }
      add_member(it->first, *vm);
    }
  }
  return api_reply::ok(nullptr);
}

api_reply pool_api::remove(api_call& c) {
  auto it = pools_.find(c.path["poolid"]);
  if (it == pools_.end())
    return api_reply::fail(500, "pool '" + c.path["poolid"] + "' does not exist");
  if (!it->second.vms.empty()) return api_reply::fail(500, "pool '" + it->first + "' is not empty");
  pools_.erase(it);
  return api_reply::ok(nullptr);
}

}  // namespace kp::sim::pve
