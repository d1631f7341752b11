#pragma once
// The Proxmox VE REST client the controller uses: API-token or ticket authentication (with the
// CSRF token on writes and renewal well before the 2 h expiry), form-encoded parameters, the
// {"data": ...} envelope and Proxmox's error shapes as typed errors (api_error.hpp), and one
// typed call per endpoint the product needs. Everything is asynchronous: each call completes
// exactly once with a result, on one of the io_context's threads (actors turn it into a message).
// It implements api.hpp, the seam the region actor is written against.
// Calls may be made from any thread. Secrets never appear in errors.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/result.hpp"
#include "protocol/proxmox/api.hpp"
#include "protocol/proxmox/api_types.hpp"
#include "protocol/proxmox/form_encoding.hpp"
#include "protocol/proxmox/task_waiter.hpp"
#include "protocol/proxmox/upid.hpp"
#include "protocol/proxmox/vm_config.hpp"
#include "protocol/transport/http_client.hpp"

namespace boost::asio {
class io_context;
}

namespace kp::proxmox {

// `Authorization: PVEAPIToken=<token_id>=<secret>`; token_id is user@realm!name.
struct token_credentials {
  std::string token_id;
  std::string secret;
};

// POST /access/ticket; needed for root-only keys such as affinity (username root@pam).
struct password_credentials {
  std::string username;
  std::string password;
};

struct client_settings {
  std::string url;  // https://host:8006; "/api2/json" is appended unless already there
  std::variant<token_credentials, password_credentials> credentials;
  transport::client_options transport;
  // Tickets live 2 h; a new one is fetched once the current one is this old.
  std::chrono::milliseconds ticket_renew_after{std::chrono::minutes(90)};
  // Config POSTs (background_delay) and volume deletes (delay) ask Proxmox to answer once their
  // task ended, if it ends within this (1-30 s; 0: never): a short task then needs no status
  // poll. A longer one answers its UPID as before.
  std::chrono::seconds task_answer_wait{5};
  // Called once per completed request with the templated path (/nodes/{node}/qemu/{vmid}/config),
  // the HTTP status (0 for a transport failure) and the duration; for metrics. Any thread.
  std::function<void(const std::string& method, const std::string& path_template, int status,
                     std::chrono::nanoseconds duration)>
      on_request;
};

class client final : public api {
 public:
  client(boost::asio::io_context& io, client_settings settings);
  ~client() override;
  client(const client&) = delete;
  client& operator=(const client&) = delete;

  // --- cluster and nodes
  void version(callback<version_info> done);
  void cluster_resources(std::optional<resource_type> type,
                         callback<std::vector<cluster_resource>> done) override;
  void node_status(const std::string& node, callback<kp::proxmox::node_status> done) override;
  void node_network(const std::string& node,
                    callback<std::vector<network_interface>> done) override;
  void pci_mappings(callback<std::vector<pci_resource_mapping>> done) override;
  // The lowest free VMID (nothing is reserved); with `wanted`, that id or "conflict" if taken.
  void next_vmid(std::optional<std::uint32_t> wanted, callback<std::uint32_t> done);

  // --- VM lifecycle (tasks return their UPID; see wait_task)
  void clone_vm(const clone_request& request, callback<upid> done) override;
  void create_vm(const create_vm_request& request, callback<upid> done) override;
  void convert_to_template(const std::string& node, std::uint32_t vmid,
                           callback<upid> done) override;
  void download_url(const download_url_request& request, callback<upid> done) override;
  void vm_config(const std::string& node, std::uint32_t vmid,
                 callback<kp::proxmox::vm_config> done) override;
  // POST .../config: a task (nullopt when Proxmox finished it inline). "forbidden" without a
  // request when a token would send a root-only key.
  void update_vm_config(const std::string& node, std::uint32_t vmid, const vm_config_update& update,
                        callback<std::optional<upid>> done) override;
  // PUT .../config: synchronous.
  void put_vm_config(const std::string& node, std::uint32_t vmid, const vm_config_update& update,
                     done_callback done);
  // size: "+10G" or "32G" (grow only).
  void resize_disk(const std::string& node, std::uint32_t vmid, const std::string& disk,
                   const std::string& size, callback<std::optional<upid>> done) override;
  void start_vm(const std::string& node, std::uint32_t vmid, callback<upid> done) override;
  void stop_vm(const std::string& node, std::uint32_t vmid, callback<upid> done) override;
  void shutdown_vm(const std::string& node, std::uint32_t vmid,
                   std::optional<unsigned> timeout_seconds, bool force_stop, callback<upid> done);
  void vm_status(const std::string& node, std::uint32_t vmid,
                 callback<kp::proxmox::vm_status> done) override;
  // "conflict" while the VM runs (stop it and wait first).
  void delete_vm(const std::string& node, std::uint32_t vmid, bool purge,
                 callback<upid> done) override;

  // --- storage
  void storages(const std::string& node, callback<std::vector<storage_info>> done) override;
  // content: "" for all, or iso, images, import, ...
  void storage_content(const std::string& node, const std::string& storage,
                       const std::string& content,
                       callback<std::vector<kp::proxmox::storage_content>> done) override;
  void upload(const iso_upload& upload, callback<upid> done) override;  // multipart/form-data
  void delete_volume(const std::string& node, const std::string& storage, const std::string& volid,
                     callback<std::optional<upid>> done) override;

  // --- firewall and pools
  void firewall_options(const std::string& node, std::uint32_t vmid,
                        callback<kp::proxmox::firewall_options> done) override;
  void set_firewall_options(const std::string& node, std::uint32_t vmid,
                            const kp::proxmox::firewall_options& options,
                            done_callback done) override;
  void firewall_rules(const std::string& node, std::uint32_t vmid,
                      callback<std::vector<firewall_rule>> done) override;
  void add_firewall_rule(const std::string& node, std::uint32_t vmid, const firewall_rule& rule,
                         done_callback done) override;
  void delete_firewall_rule(const std::string& node, std::uint32_t vmid, unsigned pos,
                            done_callback done) override;
  void firewall_groups(callback<std::vector<firewall_group>> done);
  void create_firewall_group(const std::string& group, const std::string& comment,
                             done_callback done);
  void add_firewall_group_rule(const std::string& group, const firewall_rule& rule,
                               done_callback done);
  void pools(callback<std::vector<pool_info>> done);
  void pool(const std::string& poolid, callback<pool_info> done);
  void create_pool(const std::string& poolid, const std::string& comment, done_callback done);
  void set_pool_member(const std::string& poolid, std::uint32_t vmid, bool member,
                       done_callback done) override;

  // --- guest agent
  void agent_ping(const std::string& node, std::uint32_t vmid, done_callback done) override;
  void agent_exec(const std::string& node, std::uint32_t vmid,
                  const std::vector<std::string>& command, const std::string& input_data,
                  callback<int> done) override;
  void agent_exec_status(const std::string& node, std::uint32_t vmid, int pid,
                         callback<kp::proxmox::agent_exec_status> done) override;

  // --- tasks
  void task_status(const upid& task, callback<kp::proxmox::task_status> done) override;
  void cluster_tasks(callback<std::vector<kp::proxmox::task_status>> done) override;
  // Polls with backoff until the task stops or the deadline passes (task_waiter.hpp).
  void wait_task(const upid& task, task_wait_options options,
                 callback<kp::proxmox::task_status> done);

  // --- anything else: the `data` of the reply as JSON text. GET/DELETE send `params` in the
  // query string, POST/PUT as a form body. `path` is below /api2/json, already encoded.
  void call(const std::string& method, const std::string& path, const form_params& params,
            callback<std::string> done);

  // Fails queued and future requests with "cancelled".
  void close();

  // Ticket logins made so far (0 with a token), for tests and metrics.
  std::size_t logins() const;

  struct impl;

 private:
  std::shared_ptr<impl> impl_;
};

}  // namespace kp::proxmox
