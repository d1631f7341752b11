#pragma once
// The lab's world: kube-sim and pve-sim as child processes on free loopback ports, the clusters
// file and the Kubernetes objects a controller needs (CRDs, a NodePool, a ProxmoxNodeClass and
// the ProxmoxUnmanagedTemplate of the simulator's `k8s-template`), and controller replicas as
// children with short timeouts. Everything stops when the world goes (SIGTERM, then SIGKILL).
// Used by `karpenter-proxmox lab`, the end-to-end tests and the benchmark.
#include <sys/types.h>

#include <boost/json/value.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "sim/lab/child_process.hpp"
#include "sim/lab/http_endpoint.hpp"
#include "sim/lab/process_sample.hpp"

namespace kp::lab {

struct lab_options {
  // Where kube-sim, pve-sim and karpenter-proxmox are ($KP_BIN_DIR, or the lab's own directory).
  std::string bin_dir;
  // The controller binary; empty means bin_dir/karpenter-proxmox.
  std::string controller_binary;
  // A pve-sim topology (YAML text); empty means the simulator's default (3 hosts, k8s-template).
  std::string topology_yaml;
  std::vector<std::string> pve_sim_args;   // e.g. {"--time-scale", "0.5"}
  std::vector<std::string> kube_sim_args;  // e.g. {"--pod-termination-ms", "100"}
  // Working directory for logs, kubeconfig and clusters file; empty makes a temporary one that
  // is removed at the end unless keep_work_dir.
  std::string work_dir;
  bool keep_work_dir = false;
  std::string cluster_name = "lab";
  std::string region = "pve-sim";
  // Apply the CRDs, NodePool, ProxmoxNodeClass and template reference at start.
  bool apply_default_objects = true;
  // The NodePool's limits and consolidation (consolidateAfter empty: Never).
  std::string nodepool_cpu_limit = "1000";
  std::string nodepool_node_limit;  // limits.nodes; empty = none
  std::string consolidate_after = "2s";
  // The ProxmoxNodeClass's cloneMode ("linked" or "full"); empty leaves it unset.
  std::string clone_mode;
  // Controller settings (flag name without dashes -> value) on top of the lab's defaults.
  std::map<std::string, std::string> controller_settings;
};

// One controller replica started by the world.
struct controller_replica {
  std::unique_ptr<child_process> process;
  int metrics_port = 0;
  std::chrono::steady_clock::time_point started;
  process_sample first_sample;
  std::optional<process_sample> last_sample;  // taken just before it stopped
};

// A VM as /cluster/resources lists it.
struct vm_entry {
  int vmid = 0;
  std::string name;
  std::string node;
  std::string status;
  bool templated = false;
};

class lab_world {
 public:
  explicit lab_world(lab_options options);
  ~lab_world();
  lab_world(const lab_world&) = delete;
  lab_world& operator=(const lab_world&) = delete;

  // Starts the simulators and applies the default objects; does not start a controller.
  status start();

  // Starts a controller replica with the lab's settings plus `extra` (flag -> value); waits until
  // it logs its metrics port. Returns its index.
  result<std::size_t> start_controller(const std::map<std::string, std::string>& extra = {});
  void stop_controller(std::size_t index);  // SIGTERM, then SIGKILL
  void kill_controller(std::size_t index);  // SIGKILL (a crash)
  controller_replica& controller(std::size_t index) { return controllers_.at(index); }
  std::size_t controller_count() const { return controllers_.size(); }
  // The settings a replica is started with (after the lab's defaults and options).
  std::map<std::string, std::string> controller_settings() const;

  http_endpoint& kube() { return *kube_; }
  http_endpoint& pve() { return *pve_; }  // API token auth; paths start with /api2/json
  const std::string& kube_url() const { return kube_url_; }
  const std::string& pve_url() const { return pve_url_; }
  const std::string& work_dir() const { return work_dir_; }
  const std::string& kubeconfig_path() const { return kubeconfig_path_; }
  const std::string& clusters_file_path() const { return clusters_path_; }
  const lab_options& options() const { return options_; }
  // Keeps the working directory (logs) after the world goes, e.g. when a scenario failed.
  void keep_files() { options_.keep_work_dir = true; }

  // Applies every document of a YAML (or JSON) manifest with server-side apply; objects without
  // a namespace that need one go to `default`.
  status apply_yaml(const std::string& manifest);
  status apply(const boost::json::object& object);
  // Deletes one object (404 counts as done).
  status remove(const std::string& api_version, const std::string& kind, const std::string& name,
                const std::string& ns = "");
  // The REST path of a collection ("/api/v1/namespaces/default/pods"), from discovery.
  result<std::string> collection_path(const std::string& api_version, const std::string& kind,
                                      const std::string& ns);

  // Lists (items of a collection path), or an error.
  result<boost::json::array> list(const std::string& path);

  // VMs in pve-sim, template VMs included (`templated`); `new_only` drops those present when
  // the world started.
  result<std::vector<vm_entry>> vms(bool new_only = true);
  // pve-sim's fault plan (YAML or JSON); an empty text clears it.
  status set_faults(const std::string& plan);
  // The lab's own requests to pve-sim by "METHOD templated-path", so they can be subtracted
  // from /sim/v1/stats.
  std::map<std::string, long> own_pve_requests() const { return own_pve_requests_; }
  // Calls the Proxmox API (counted in own_pve_requests).
  result<http_reply> pve_api(const std::string& method, const std::string& path,
                             const std::string& templated_path, const std::string& body = "");

  // Polls `check` every 50 ms until it returns true or `within` passes.
  static bool eventually(const std::function<bool()>& check, std::chrono::milliseconds within);

 private:
  status start_kube_sim();
  status start_pve_sim();
  status write_clusters_file();
  status apply_default_objects();
  result<std::string> resource_of(const std::string& api_version, const std::string& kind,
                                  bool& namespaced);

  lab_options options_;
  std::string work_dir_, kubeconfig_path_, clusters_path_, kube_url_, pve_url_;
  bool own_work_dir_ = false;
  child_process kube_sim_, pve_sim_;
  std::unique_ptr<http_endpoint> kube_, pve_;
  std::vector<controller_replica> controllers_;
  std::set<int> initial_vmids_;
  std::map<std::string, std::pair<std::string, bool>> discovery_;  // "v|Kind" -> plural, ns
  std::map<std::string, long> own_pve_requests_;
};

// The admin token and CA of a kubeconfig written by kube-sim.
struct kubeconfig_credentials {
  std::string server, token, ca_pem;
};
result<kubeconfig_credentials> read_kubeconfig(const std::string& path);

// The lab's ProxmoxNodeClass `default`: tag `lab`, the unmanaged template k8s-template, the
// built-in cloud-init on a CD-ROM, and `more_spec` (further lines of its spec, indented by two).
std::string node_class_yaml(const std::string& more_spec = "");

// The topology of the burst benchmark and of big labs: `hosts` hosts of `cpus` CPUs (2 NUMA
// nodes) and `memory_gib` GiB, with k8s-template on each, the lab's token, and every task
// duration, the boot delay and the resource lag zero.
std::string uniform_topology_yaml(int hosts, int cpus, int memory_gib, bool zero_durations);

}  // namespace kp::lab
