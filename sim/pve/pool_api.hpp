#pragma once
// Internal to sim/pve: resource pools (their comments and member VMs) and the /pools endpoints.
// VM creation and clones add members; destroying a VM removes it.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/pve/api_call.hpp"

namespace kp::sim::pve {

class world_model;
class api_router;
struct vm_state;

class pool_api {
 public:
  explicit pool_api(world_model& world);

  bool exists(const std::string& pool) const { return pools_.count(pool) > 0; }
  void add_member(const std::string& pool, vm_state& vm);
  void remove_member(vm_state& vm);
  std::vector<std::string> ids() const;

  void add_routes(api_router& router);

 private:
  struct pool_state {
    std::string comment;
    std::set<int> vms;
  };
  boost::json::array members(const pool_state& p) const;
  api_reply list(api_call& c);
  api_reply create(api_call& c);
  api_reply get(api_call& c);
  api_reply update(api_call& c);
  api_reply remove(api_call& c);

  world_model& world_;
  std::map<std::string, pool_state> pools_;
};

}  // namespace kp::sim::pve
