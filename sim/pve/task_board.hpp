#pragma once
// Internal to sim/pve: Proxmox's asynchronous tasks (workers with a UPID) and the task API
// (the cluster-wide list, a node's list, status, log, stop). A task's work runs once its duration
// has passed; it ends OK, or with the error its work returns or throws, or with an injected
// failure.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "sim/pve/api_call.hpp"

namespace kp::sim::pve {

class world_model;
class api_router;

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

class task_board {
 public:
  explicit task_board(world_model& world) : world_(world) {}

  // Starts a task and returns its UPID. `work` runs after `duration` and says how the task
  // ended; `on_abort` undoes what the request began when the task is failed (injected) or
  // stopped before its work ran.
  std::string start(const std::string& node, const std::string& type, const std::string& id,
                    const api_identity& who, std::chrono::milliseconds duration,
                    std::function<status()> work, std::function<void()> on_abort = {});

  // Proxmox's `background_delay` (config) and `delay` (volume delete): the API waits up to
  // `delay` for the worker. A task whose duration fits runs to its end before the answer (the
  // simulator answers at once rather than after the duration); `upid` is then empty and
  // `error` holds its exit status when it failed. A longer task answers its UPID as usual.
  struct waited {
    std::string upid;
    std::string error;
  };
  waited start_and_wait(const std::string& node, const std::string& type, const std::string& id,
                        const api_identity& who, std::chrono::milliseconds duration,
                        std::chrono::milliseconds delay, std::function<status()> work,
                        std::function<void()> on_abort = {});

  const task_state* find(const std::string& upid) const;

  void add_routes(api_router& router);

 private:
  std::string open(const std::string& node, const std::string& type, const std::string& id,
                   const api_identity& who, std::function<void()> on_abort);
  void finish(const std::string& upid, std::function<status()>& work);
  result<task_state*> task_of(api_call& c);
  api_reply cluster_list(api_call& c);
  api_reply list(api_call& c);
  api_reply status_of(api_call& c);
  api_reply log_of(api_call& c);
  api_reply stop(api_call& c);

  world_model& world_;
  std::map<std::string, task_state> tasks_;  // by UPID
  std::vector<std::string> order_;           // UPIDs, oldest first
};

}  // namespace kp::sim::pve
