#include "actors/region/region_settings_from.hpp"

#include <algorithm>

namespace kp::actors::region {

namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

proxmox::task_wait_options wait_for(config::duration timeout, config::duration poll_interval) {
  proxmox::task_wait_options o;
  o.timeout = duration_cast<milliseconds>(timeout);
  // PROXMOX_TASK_POLL_INTERVAL is the steady rate; a task is first polled at once, then after
  // 100 ms, doubling up to that rate, so the many quick tasks (a linked clone, a start) are seen
  // done within a fraction of a second instead of a whole interval.
  auto steady = std::max(duration_cast<milliseconds>(poll_interval), milliseconds(1));
  o.initial_interval = std::min(steady, milliseconds(100));
  o.max_interval = steady;
  return o;
}

}  // namespace

region_settings region_settings_from(const config::settings& s,
                                     const config::proxmox_cluster& cluster,
                                     std::string cluster_name) {
  region_settings r;
  r.region = cluster.region;
  r.cluster_name = std::move(cluster_name);
  r.first_vmid = static_cast<std::uint32_t>(std::max(s.proxmox_vmid, 100));
  r.refresh_interval =
      std::chrono::duration_cast<std::chrono::milliseconds>(s.proxmox_inventory_interval);
  r.max_in_flight = static_cast<std::size_t>(std::max(s.proxmox_max_inflight, 1));
  // One wait covers clone, config and delete in the actor: the longest of them.
  r.clone_wait = wait_for(
      std::max({s.proxmox_clone_timeout, s.proxmox_config_timeout, s.proxmox_delete_timeout,
                s.proxmox_upload_timeout, s.proxmox_resize_timeout}),
      s.proxmox_task_poll_interval);
  r.start_wait = wait_for(std::max(s.proxmox_start_timeout, s.proxmox_stop_timeout),
                          s.proxmox_task_poll_interval);
  r.download_wait = wait_for(s.proxmox_download_timeout, s.proxmox_task_poll_interval);
  r.template_wait = wait_for(s.proxmox_template_timeout, s.proxmox_task_poll_interval);
  r.task_first_poll_floor =
      std::chrono::duration_cast<std::chrono::milliseconds>(s.proxmox_task_first_poll_floor);
  r.task_first_poll_cap =
      std::chrono::duration_cast<std::chrono::milliseconds>(s.proxmox_task_first_poll_cap);
  r.cluster_task_list = s.proxmox_cluster_task_list;
  r.task_list_gather =
      std::chrono::duration_cast<std::chrono::milliseconds>(s.proxmox_task_list_gather);
  r.template_config_max_age =
      std::chrono::duration_cast<std::chrono::milliseconds>(s.proxmox_template_config_max_age);
  r.host_facts_max_age =
      std::chrono::duration_cast<std::chrono::milliseconds>(s.proxmox_host_facts_max_age);
  r.launched_config_max_age =
      std::chrono::duration_cast<std::chrono::milliseconds>(s.proxmox_launched_config_max_age);
  // `affinity` is root-only in Proxmox: only root@pam with a password (ticket) may set it.
  r.can_set_affinity = !cluster.uses_token() && cluster.username == "root@pam";
  r.static_cpu_policy = s.node_policy == config::node_policy_mode::static_pinning;
  return r;
}

region_settings region_settings_from(const config::settings& s,
                                     const config::proxmox_cluster& cluster,
                                     std::string cluster_name,
                                     const topology::node_settings_file& node_settings) {
  auto r = region_settings_from(s, cluster, std::move(cluster_name));
  if (!node_settings.hosts.empty()) r.node_settings = node_settings;
  return r;
}

}  // namespace kp::actors::region
