#pragma once
// Internal to sim/pve: a VM's power state: status/current, start (pending changes, NUMA and PCI
// checks, then the guest boots), stop and shutdown (the guest ends, its devices are freed).
#include "core/result.hpp"
#include "sim/pve/api_call.hpp"

namespace kp::sim::pve {

class world_model;
class task_board;
class pci_mapping_api;
class api_router;
struct vm_state;

class qemu_power_api {
 public:
  qemu_power_api(world_model& world, task_board& tasks, const pci_mapping_api& pci)
      : world_(world), tasks_(tasks), pci_(pci) {}
  void add_routes(api_router& router);

  // What a start task does once its checks passed: NUMA and storage checks, PCI devices
  // chosen and reserved, the VM running and its guest booting. Errors are the task's.
  status power_on(vm_state& vm);
  // Stops the VM and its guest, frees its devices and applies pending changes.
  void power_off(vm_state& vm);

 private:
  api_reply status_current(api_call& c);
  api_reply start(api_call& c);
  api_reply stop(api_call& c, const char* type);

  world_model& world_;
  task_board& tasks_;
  const pci_mapping_api& pci_;
};

}  // namespace kp::sim::pve
