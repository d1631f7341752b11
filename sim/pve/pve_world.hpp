#pragma once
// Internal to sim/pve: the simulated cluster's state and the REST handlers that read and change
// it. Everything here runs on one io thread, so no locks; timers and HTTP completions come back
// on that same thread.
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "protocol/transport/http_message.hpp"
#include "sim/pve/faults.hpp"
#include "sim/pve/request_params.hpp"
#include "sim/pve/simulator.hpp"
#include "sim/pve/topology.hpp"
#include "sim/pve/vm_config.hpp"

namespace kp::sim::pve {

class guest_fleet;
using sim_clock = std::chrono::steady_clock;

// Who is calling: a user with a ticket, or an API token (user + tokenid).
struct api_identity {
  std::string user;
  std::string tokenid;
  bool is_token() const { return !tokenid.empty(); }
  bool is_root() const { return user == "root@pam" && tokenid.empty(); }
  std::string full() const { return tokenid.empty() ? user : user + "!" + tokenid; }
};

struct api_call {
  std::string method;
  std::string path_template;                // /nodes/{node}/qemu/{vmid}/config
  std::map<std::string, std::string> path;  // node, vmid, ...
  request_params params;
  const transport::http_request* request = nullptr;
  api_identity who;
};

struct api_reply {
  int status = 200;
  boost::json::value data;  // null on errors
  std::string message;      // reason phrase for errors
  boost::json::object errors;
  std::optional<boost::json::value> total;

  static api_reply ok(boost::json::value v) { return api_reply{200, std::move(v), "", {}, {}}; }
  static api_reply ok(std::nullptr_t) { return ok(boost::json::value(nullptr)); }
  static api_reply ok(const std::string& s) {
    return ok(boost::json::value(boost::json::string_view(s)));
  }
  static api_reply fail(int status, std::string message) {
    return api_reply{status, nullptr, std::move(message), {}, {}};
  }
  // 400 Parameter verification failed. with one parameter error.
  static api_reply param(const std::string& name, const std::string& why) {
    api_reply r{400, nullptr, "Parameter verification failed.", {}, {}};
    r.errors[name] = why;
    return r;
  }
};

// Turns an error from a helper into a reply: code "param:<name>" is a 400 parameter error,
// a numeric code is that HTTP status, anything else a 500.
inline api_reply reply_from(const kp::error& e) {
  if (e.code.rfind("param:", 0) == 0) return api_reply::param(e.code.substr(6), e.message);
  int status = 500;
  try {
    status = std::stoi(e.code);
  } catch (...) {
  }
  return api_reply::fail(status, e.message);
}

struct firewall_rule {
  std::map<std::string, std::string> fields;
};

struct exec_result {
  bool exited = true;
  int exitcode = 0;
  std::string out;
  std::string err;
};

struct vm_state {
  int vmid = 0;
  std::string node;
  config_map config;
  config_map pending;
  std::set<std::string> pending_delete;
  bool running = false;
  sim_clock::time_point created;
  sim_clock::time_point started;
  int linked_base = 0;    // template VMID whose base volume this VM's disks use
  int clone_readers = 0;  // clones currently reading this VM (a shared flock)
  std::map<std::string, std::string> firewall_options;
  std::vector<firewall_rule> firewall_rules;
  std::string pool;
  std::uint32_t pid = 0;
  std::map<int, exec_result> execs;
  bool is_template() const {
    auto it = config.find("template");
    return it != config.end() && it->second == "1";
  }
  std::string lock() const {
    auto it = config.find("lock");
    return it == config.end() ? "" : it->second;
  }
  std::string name() const {
    auto it = config.find("name");
    return it == config.end() ? "" : it->second;
  }
};

struct task_state {
  std::string upid;
  std::string node;
  std::string type;
  std::string id;
  std::string user;
  std::string tokenid;
  std::uint32_t pid = 0;
  std::uint32_t pstart = 0;
  std::int64_t starttime = 0;
  std::int64_t endtime = 0;
  bool running = true;
  std::string exitstatus;
  std::vector<std::string> log;
  std::function<void()> on_abort;  // undoes what the task began when it fails before its work
};

struct pool_state {
  std::string comment;
  std::set<int> vms;
};

struct firewall_group_state {
  std::string comment;
  std::vector<firewall_rule> rules;
};

struct ticket_state {
  std::string user;
  std::string csrf;
  std::chrono::system_clock::time_point issued;
};

class pve_world {
 public:
  pve_world(boost::asio::io_context& io, simulator_options options);
  ~pve_world();

  // Handles one request and replies through `reply` (possibly later).
  void handle(const transport::http_request& request,
              std::function<void(transport::http_response)> reply);

  // --- used by the handlers (api_*.cpp) ---
  boost::asio::io_context& io() { return io_; }
  const topology& topo() const { return options_.topo; }
  std::chrono::milliseconds duration(const std::string& name) const;
  // Runs `work` after `delay` on the io thread.
  void after(std::chrono::milliseconds delay, std::function<void()> work);

  // Starts a task; `work` runs when its duration has elapsed and says how it ended.
  std::string start_task(const std::string& node, const std::string& type, const std::string& id,
                         const api_identity& who, std::chrono::milliseconds duration,
                         std::function<status()> work, std::function<void()> on_abort = {});

  vm_state* find_vm(int vmid);
  // The VM `vmid` on `node`, or the Proxmox "does not exist" reply.
  result<vm_state*> vm_on_node(const std::string& node, const std::string& vmid_text);
  bool host_exists(const std::string& node) const { return topo().find_host(node) != nullptr; }
  bool storage_on_host(const std::string& node, const std::string& storage) const;
  std::filesystem::path content_dir(const std::string& node, const std::string& storage,
                                    const std::string& content) const;
  // The file behind "<storage>:iso/<file>" or "<storage>:import/<file>" on node, if it exists.
  std::optional<std::filesystem::path> volume_file(const std::string& node,
                                                   const std::string& volid) const;
  std::string new_mac();
  std::string new_uuid();
  double random_unit() { return std::uniform_real_distribution<double>(0, 1)(rng_); }
  fault_injector& faults() { return faults_; }
  guest_fleet& guests() { return *guests_; }
  std::int64_t now_epoch() const;
  int next_free_vmid() const;
  void start_guest(vm_state& vm);

  // Host accounting (documented in docs/pve-sim.md).
  struct host_usage {
    double cpu = 0;
    std::uint64_t mem = 0;
    std::vector<std::pair<int, std::int64_t>> numa_free;  // node id, free bytes
    int running_vms = 0;
    int running_vcpus = 0;
  };
  host_usage usage_of(const std::string& node) const;

  // --- REST handlers ---
  api_reply get_version(api_call& c);
  api_reply get_cluster_status(api_call& c);
  api_reply get_cluster_resources(api_call& c);
  api_reply get_nextid(api_call& c);
  api_reply post_ticket(api_call& c);
  api_reply get_ticket(api_call& c);
  api_reply get_domains(api_call& c);
  api_reply get_nodes(api_call& c);
  api_reply get_node_status(api_call& c);
  api_reply get_node_network(api_call& c);
  api_reply get_cpu_capabilities(api_call& c);
  api_reply get_pools(api_call& c);
  api_reply post_pool(api_call& c);
  api_reply get_pool(api_call& c);
  api_reply put_pool(api_call& c);
  api_reply delete_pool(api_call& c);

  api_reply get_qemu_list(api_call& c);
  api_reply post_qemu_create(api_call& c);
  api_reply get_vm_index(api_call& c);
  api_reply delete_vm(api_call& c);
  api_reply get_config(api_call& c);
  api_reply post_config(api_call& c);
  api_reply put_config(api_call& c);
  api_reply get_pending(api_call& c);
  api_reply put_resize(api_call& c);
  api_reply post_clone(api_call& c);
  api_reply post_template(api_call& c);
  api_reply get_status_current(api_call& c);
  api_reply post_start(api_call& c);
  api_reply post_stop(api_call& c);
  api_reply post_shutdown(api_call& c);

  api_reply get_storage_list(api_call& c);
  api_reply get_content(api_call& c);
  api_reply get_volume(api_call& c);
  api_reply delete_volume(api_call& c);
  api_reply post_upload(api_call& c);
  api_reply post_download_url(api_call& c);

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

  api_reply post_agent_ping(api_call& c);
  api_reply post_agent_exec(api_call& c);
  api_reply get_agent_exec_status(api_call& c);
  api_reply get_agent_interfaces(api_call& c);

  api_reply get_tasks(api_call& c);
  api_reply get_task_status(api_call& c);
  api_reply get_task_log(api_call& c);
  api_reply delete_task(api_call& c);

 private:
  friend class api_router;
  // Config changes shared by create, PUT and POST config: validation happens at once, the
  // returned function applies the change (now for PUT, at the end of the task for POST).
  result<std::function<status()>> prepare_config_update(api_call& c, vm_state& vm, bool creating);
  void handle_sim(const transport::http_request& request,
                  std::function<void(transport::http_response)> reply);
  result<api_identity> authenticate(const transport::http_request& request, const std::string& path,
                                    bool& needs_csrf_check);
  transport::http_response render(const api_reply& r) const;

  boost::asio::io_context& io_;
  simulator_options options_;
  fault_injector faults_;
  std::mt19937 rng_{42};
  std::unique_ptr<guest_fleet> guests_;
  sim_clock::time_point boot_time_;
  // Timers still queued when the world goes away must not touch it.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);

 public:
  // State (public to the handler files of this folder; nothing outside sim/pve sees this type).
  std::map<int, vm_state> vms;
  std::map<std::string, task_state> tasks;  // by UPID
  std::vector<std::string> task_order;      // UPIDs, oldest first
  std::map<std::string, pool_state> pools;
  std::map<std::string, firewall_group_state> firewall_groups;
  std::map<std::string, ticket_state> tickets;       // ticket -> state
  std::map<std::string, std::string> token_secrets;  // "user@realm!id" -> secret
  std::map<std::string, std::string> passwords;      // user -> password
  std::uint32_t next_pid = 0x1a2b0;
  std::map<std::pair<std::string, std::string>, std::uint64_t> request_counts;  // (method, path)
  std::map<std::pair<std::string, std::string>, std::map<int, std::uint64_t>> status_counts;
};

}  // namespace kp::sim::pve
