#pragma once
// Internal to sim/pve: a VM's configuration: the VM list, config GET (typed values, digest,
// pending applied unless current=1), POST (task) and PUT (sync), pending, resize. Config
// validation and normalisation live here and are shared with VM creation.
#include <functional>

#include "core/result.hpp"
#include "sim/pve/api_call.hpp"

namespace kp::sim::pve {

class world_model;
class task_board;
class pci_mapping_api;
class api_router;
struct vm_state;

class qemu_config_api {
 public:
  qemu_config_api(world_model& world, task_board& tasks, const pci_mapping_api& pci)
      : world_(world), tasks_(tasks), pci_(pci) {}
  void add_routes(api_router& router);

  // Validates a config change at once (parameters of create, PUT and POST config); the returned
  // function applies it (now for PUT, at the end of the task for POST and create).
  result<std::function<status()>> prepare_update(api_call& c, vm_state& vm, bool creating);

 private:
  api_reply list(api_call& c);
  api_reply index(api_call& c);
  api_reply get_config(api_call& c);
  api_reply post_config(api_call& c);
  api_reply put_config(api_call& c);
  api_reply pending(api_call& c);
  api_reply resize(api_call& c);
  // Checks and normalises one key's value; `disk_index` numbers newly allocated disks.
  status normalize(api_call& c, vm_state& vm, const std::string& key, std::string& value,
                   int& disk_index);

  world_model& world_;
  task_board& tasks_;
  const pci_mapping_api& pci_;
};

}  // namespace kp::sim::pve
