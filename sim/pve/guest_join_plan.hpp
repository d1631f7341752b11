#pragma once
// What a simulated guest needs to join a cluster, read from the files a kubelet with TLS
// bootstrap reads (DESIGN.md section 5) or from a `kube-join key=value...` command line (the
// kproximate model: a join baked into the template, or run through the guest agent).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace kp::sim::pve {

struct node_taint {
  std::string key;
  std::string value;
  std::string effect;
};

struct join_plan {
  std::string server;  // API server URL
  std::string ca_pem;  // cluster CA; empty = do not verify (kube-join without ca=)
  std::string token;   // bootstrap token <id>.<secret>
  std::string node_name;
  std::string provider_id;
  std::map<std::string, std::string> labels;
  std::vector<node_taint> taints;
  int max_pods = 110;
  std::int64_t reserved_cpu_millis = 0;
  std::int64_t reserved_memory_bytes = 0;
};

// From NoCloud user-data (#cloud-config with write_files). Errors name what is missing; a guest
// whose cloud-init fails here never joins.
result<join_plan> join_plan_from_user_data(const std::string& user_data);

// From "kube-join server=URL token=ID.SECRET [ca=BASE64_PEM] [labels=k=v,k2=v2]
// [taints=k=v:Effect,...] [max-pods=N]"; leading words before "kube-join" (bash -c) are ignored.
result<join_plan> join_plan_from_command(const std::string& command);

// Kubernetes quantities as the kubelet files write them: "100m", "2", "512Mi", "1Gi", "1G".
std::int64_t parse_cpu_millis(const std::string& text);
std::int64_t parse_memory_bytes(const std::string& text);

}  // namespace kp::sim::pve
