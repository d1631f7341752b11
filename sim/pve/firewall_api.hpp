#pragma once
// Internal to sim/pve: the firewall: a VM's options and rules (kept with the VM, copied by
// clones) and the cluster's security groups with their rules (owned here).
#include <map>
#include <string>
#include <vector>

#include "sim/pve/api_call.hpp"
#include "sim/pve/world_model.hpp"

namespace kp::sim::pve {

class api_router;

class firewall_api {
 public:
  explicit firewall_api(world_model& world);
  void add_routes(api_router& router);

 private:
  struct group_state {
    std::string comment;
    std::vector<firewall_rule> rules;
  };
  struct rule_ref {
    std::vector<firewall_rule>* rules;
    std::size_t pos;
  };
  // The VM rule at {pos}, or Proxmox's "no rule at position" error.
  result<rule_ref> rule_at(api_call& c);
  api_reply get_vm_firewall_options(api_call& c);
  api_reply put_vm_firewall_options(api_call& c);
  api_reply get_vm_firewall_rules(api_call& c);
  api_reply post_vm_firewall_rule(api_call& c);
  api_reply get_vm_firewall_rule(api_call& c);
  api_reply put_vm_firewall_rule(api_call& c);
  api_reply delete_vm_firewall_rule(api_call& c);
  api_reply get_firewall_groups(api_call& c);
  api_reply post_firewall_group(api_call& c);
  api_reply get_firewall_group(api_call& c);
  api_reply post_firewall_group_rule(api_call& c);
  api_reply delete_firewall_group(api_call& c);

  world_model& world_;
  std::map<std::string, group_state> groups_;
};

}  // namespace kp::sim::pve
