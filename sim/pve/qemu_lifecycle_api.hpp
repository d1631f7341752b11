#pragma once
// Internal to sim/pve: a VM's life: create (with disk allocation and import-from), clone (linked
// or full, parallel from a template, with its locks), conversion to a template, destroy.
#include "sim/pve/api_call.hpp"

namespace kp::sim::pve {

class world_model;
class task_board;
class pool_api;
class qemu_config_api;
class qemu_power_api;
class api_router;
struct vm_state;

class qemu_lifecycle_api {
 public:
  qemu_lifecycle_api(world_model& world, task_board& tasks, pool_api& pools,
                     qemu_config_api& config, qemu_power_api& power)
      : world_(world), tasks_(tasks), pools_(pools), config_(config), power_(power) {}
  void add_routes(api_router& router);

 private:
  api_reply create(api_call& c);
  api_reply clone(api_call& c);
  api_reply to_template(api_call& c);
  api_reply destroy(api_call& c);
  // How long a clone of `src` takes: linked clones the qmclone duration, full clones longer in
  // proportion to the disks they copy; both times the slow-clone factor.
  std::chrono::milliseconds clone_duration(const vm_state& src, bool full) const;

  world_model& world_;
  task_board& tasks_;
  pool_api& pools_;
  qemu_config_api& config_;
  qemu_power_api& power_;
};

}  // namespace kp::sim::pve
