#pragma once
// The nodes' sizes as the summary shows them: each node's instance type and allocatable CPU and
// memory, with the requests of the pods bound to it split into application pods and DaemonSet
// pods, so DaemonSet overhead in the sizes the controller chose is visible.
#include <string>
#include <vector>

#include "core/result.hpp"

namespace kp::lab {

class lab_world;

struct node_size {
  std::string name;
  std::string instance_type;  // node.kubernetes.io/instance-type
  double cpu = 0;             // allocatable cores
  double memory_gib = 0;      // allocatable memory
  double app_cpu = 0, app_memory_gib = 0;
  double daemon_cpu = 0, daemon_memory_gib = 0;
  int app_pods = 0, daemon_pods = 0;

  // "default-abcde t1.2VCPU-6GB: CPU 1.50 + 0.20 daemon of 1.90, memory 3.00 + 0.25 daemon of
  // 5.10 GiB, 6 + 1 daemon pods"
  std::string line() const;
};

result<std::vector<node_size>> read_node_sizes(lab_world& world);

}  // namespace kp::lab
