#pragma once
// Proxmox requests per VM, counted as DESIGN.md section 5 says: the requests made to create one
// VM (clone, config, resize, ISO upload, firewall, start) apart from task-status polls, shared
// inventory reads, and deletion. Read from pve-sim's /sim/v1/stats (templated paths), minus the
// lab's own requests.
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace kp::lab {

class lab_world;

struct proxmox_calls {
  long total = 0;
  long vms_created = 0;              // clone tasks that succeeded or still run
  long clone_requests_accepted = 0;  // clone requests answered 2xx (their task may fail)
  long creation = 0;                 // clone, config, resize, upload, firewall, start
  long task_polls = 0;               // GET tasks/{upid}/status and log
  long inventory = 0;                // other reads
  long after_start = 0;  // config calls after a VM started (the ISO detach) and ISO deletes
  long deletion = 0;     // stop, shutdown, destroy
  long errors = 0;       // answers with a status >= 400
  std::map<std::string, long> creation_by_path;  // "POST /nodes/{node}/qemu/{vmid}/clone" -> n
  std::map<std::string, long> by_request;        // every request the same way, reads included

  double creation_per_vm() const {
    return vms_created > 0 ? static_cast<double>(creation) / static_cast<double>(vms_created) : 0;
  }
  // "5.00 per VM (clone 1.00, config 1.00, ...); polls 3.1, inventory 40, deletion 2"
  std::string summary() const;
};

// Classifies one stats row; exposed for tests.
std::string classify_proxmox_request(const std::string& method, const std::string& path);

// pve-sim tasks (pid order is creation order): how many qmconfig tasks ran on a VM after its
// first qmstart, i.e. config calls that are not part of the VM's creation.
struct task_entry {
  long pid = 0;
  std::string type, id;
};
long config_tasks_after_start(const std::vector<task_entry>& tasks);

result<proxmox_calls> read_proxmox_calls(lab_world& world);

}  // namespace kp::lab
