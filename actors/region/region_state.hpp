#pragma once
// The region actor's private state and the functions its concept files share. Only the files of
// actors/region include this. Every Proxmox completion comes back into the actor as a
// continuation (bounce), so the state stays single-threaded; every task wait polls on the actor
// clock (wait_task), so CAF's test coordinator drives it in virtual time.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/continuation.hpp"
#include "actors/credit_window.hpp"
#include "actors/failure_boundary.hpp"
#include "actors/region/inventory.hpp"
#include "actors/region/launch_timeline.hpp"
#include "actors/region/region_actor.hpp"
#include "actors/region/task_timing.hpp"
#include "actors/region/vmid_allocator.hpp"
#include "core/cloudinit/vm_render.hpp"
#include "core/ipam/simple_ipam.hpp"
#include "core/ownership/vm_mark.hpp"
#include "core/placement/place_vm.hpp"
#include "observability/logging.hpp"
#include "protocol/proxmox/api.hpp"
#include "protocol/region_messages.hpp"

namespace prometheus {
class Counter;
template <class T>
class Family;
}  // namespace prometheus

namespace kp::actors::region {

using tick_atom = caf::atom_constant<caf::atom("regiontick")>;
using impl_actor = protocol::region_actor::extend<caf::reacts_to<resume_atom, continuation>,
                                                  caf::reacts_to<tick_atom, std::uint64_t>>;

// The steps of a launch, in order. Each is read back from Proxmox when a launch resumes.
enum class launch_step { clone, upload, config, resize, firewall, start, join, done };
const char* step_name(launch_step s);

struct launch_op {
  protocol::launch_request req;
  std::vector<caf::typed_response_promise<protocol::launch_reply>> waiters;
  std::string host;
  std::uint32_t template_vmid = 0;
  std::uint32_t vmid = 0;
  placement::vm_allocation allocation;
  std::optional<placement::pinning> pinning;
  std::string iso_volid;
  bool cloned = false;   // a VM exists for this launch (made now or found)
  bool resumed = false;  // the VM existed before this launch
  std::string resumed_at;
  int clone_attempts = 0;
  int unknown_clone_waits = 0;  // polls while an unknown clone (maybe ours) runs
  // What the config call derives the VM's NICs and address from: the template's config for a
  // new VM, the VM's own (still the template's) when a launch resumes before its config call.
  std::optional<proxmox::vm_config> base_config;
  std::optional<proxmox::vm_config> current;          // the VM's config as last read (resume)
  std::map<std::string, proxmox::drive> data_drives;  // additionalDisks, for the config call
  std::map<std::string, std::string> hostpci;         // pciDevices (hostpciN), for the config call
  std::string ipconfig0;                              // written in the config call
  std::string ip_address;                             // held in the IPAM ("" when none)
  std::vector<cloudinit::vm_nic> nics;                // the VM's NICs with our MACs and addresses
  bool started_now = false;                           // this launch started the VM
  launch_timeline timeline;                           // when its steps ended (the reply's steps)
  // Join through the guest agent: the rendered command (holds the bootstrap token: never
  // logged), the deadline and next poll interval, the exec's pid, the last agent error.
  std::string join_command;
  caf::actor_clock::time_point agent_deadline;
  std::chrono::milliseconds agent_interval{0};
  int agent_pid = 0;
  std::string agent_error;
  std::uint32_t agent_requests = 0;
  bool joined_by_agent = false;
  bool holds_credit = false;  // the launch holds one credit of the window (begin_launch on)
  // Exceptions caught in its steps (launch_scope.cpp). Each one ends what was pending before it:
  // the first ends the launch through fail_launch, a second (in that clean-up) answers at once.
  int faults = 0;
};

struct task_wait;  // task_waits.cpp

struct region_metrics {
  prometheus::Family<prometheus::Counter>* refusals = nullptr;
  prometheus::Family<prometheus::Counter>* unknown = nullptr;
};

struct region_state {
  std::shared_ptr<proxmox::api> api;
  caf::actor_clock* clock = nullptr;  // the actor's (virtual under the test coordinator)
  region_settings cfg;
  std::map<std::string, host_record> hosts;
  // Each storage's plugin type by name, from /cluster/resources: whether it can hold linked
  // clones (clone_kind.hpp).
  std::map<std::string, std::string> storage_types;
  std::map<std::uint32_t, vm_record> vms;
  std::vector<placement::host_state> placement_hosts;
  // PCI resource mappings as the last successful read of /cluster/mapping/pci listed them (one
  // read per refresh, beside the listing).
  std::vector<placement::pci_mapping> pci_mappings;
  std::map<std::uint32_t, std::pair<std::string, placement::vm_allocation>> reserved;
  vmid_allocator ids;
  std::unique_ptr<credit_windows> windows;
  credit_window* window = nullptr;
  placement::placement_cursor cursor;
  std::map<std::string, std::shared_ptr<launch_op>> launching;  // by NodeClaim name
  // The launch whose code runs now (launch_scope.cpp): continuations made meanwhile carry it.
  std::weak_ptr<launch_op> current_launch;
  boundary_ptr boundary;  // reports what a launch's scope catches
  // VMIDs whose clone this actor started and still waits for (launches and template VMs): a
  // VM with `lock: clone` and no mark that is not here is another incarnation's, maybe ours.
  std::set<std::uint32_t> cloning;
  // When this actor started (Unix ms, wall clock as NodeClaim timestamps are): only launches
  // of NodeClaims created before it may have an earlier incarnation's clone to wait for.
  std::int64_t started_unix_ms = 0;
  // Inventory refreshes: one at a time; waiters of the running one, and waiters that need one
  // started after they asked (fresh listings).
  bool refreshed = false;
  bool refreshing = false;
  bool refresh_again = false;
  // Which refresh runs now (refresh_scope.cpp): continuations of an older one do nothing.
  std::uint64_t refresh_generation = 0;
  std::string detail;
  std::vector<std::function<void()>> after_refresh;
  std::vector<std::function<void()>> after_next_refresh;
  std::uint64_t timer_generation = 0;
  std::uint64_t refreshes = 0;  // successful ones, for the leftover ISO sweep
  std::uint64_t epoch = 0;
  // VMs a step of ours deleted, by the epoch of the delete: a listing requested before that
  // still shows them and must not bring them back.
  std::map<std::uint32_t, std::uint64_t> forgotten;
  std::size_t peak_in_flight = 0;
  // VMIDs NodeClaims name: nothing is allocated before they are known; a new sender (a new
  // leader's fleet) makes the next allocation list Proxmox first.
  bool claims_known = false;
  caf::actor_id claims_sender = 0;  // 0: sent anonymously (tests)
  bool list_before_allocate = true;
  std::vector<std::function<void()>> waiting_for_claims;
  std::mt19937_64 random{std::random_device{}()};
  ipam::simple_ipam ipam;  // rebuilt at every refresh from VM configs and bridges
  // Host bridges are read only once a launch needed them (with_host_bridges); the launches
  // waiting for the reads under way (reads are under way while there are any).
  bool bridges_wanted = false;
  std::vector<std::function<void()>> bridge_waiters;
  std::map<std::string, std::string> unusable_hosts;  // host -> why its topology is unknown
  std::map<std::string, std::string> topology_warnings;
  region_metrics metrics;
  // Task waits under way by UPID, and those due for a GET /cluster/tasks read (task_waits.cpp):
  // a round gathers them for cfg.task_list_gather, then reads once; the read is off for good
  // once Proxmox refused it.
  std::map<std::string, std::weak_ptr<task_wait>> task_waits;
  std::vector<std::shared_ptr<task_wait>> due_task_waits;
  bool task_list_gathering = false;
  bool task_list_in_flight = false;
  std::uint64_t task_list_reads = 0;  // sent so far: which waits a read's answer can serve
  bool task_list_usable = true;
  // Typical task durations by type and host: where a task wait's first poll goes.
  task_timing timing{std::chrono::milliseconds(20), std::chrono::seconds(10)};
  obs::logger log{"region"};

  static inline const char* name = "region";
};

using self_ptr = impl_actor::stateful_pointer<region_state>;

// --- a launch's scope (launch_scope.cpp) ------------------------------------------------------
// Code that works for a launch runs inside its scope. The continuations it makes (bounce, after,
// the inventory and claims waits) carry the launch, so an exception anywhere in them ends that
// launch once, through fail_launch, with its credit returned and its waiters answered, instead
// of leaving a NodeClaim's launch half done forever. The boundary still logs and counts it.

class launch_scope {
 public:
  launch_scope(region_state& st, std::weak_ptr<launch_op> op)
      : st_(st), saved_(std::exchange(st.current_launch, std::move(op))) {}
  ~launch_scope() { st_.current_launch = std::move(saved_); }
  launch_scope(const launch_scope&) = delete;
  launch_scope& operator=(const launch_scope&) = delete;

 private:
  region_state& st_;
  std::weak_ptr<launch_op> saved_;
};

// Runs `f` for `op` inside its scope; a throw ends the launch.
void run_for_launch(self_ptr self, const std::shared_ptr<launch_op>& op,
                    const std::function<void()>& f);

// `f`, bound to the launch whose code runs now (unchanged outside any launch). It does nothing
// once a fault has ended what the launch was doing when `f` was made.
template <class... Args>
std::function<void(Args...)> within_launch(self_ptr self, std::function<void(Args...)> f) {
  auto op = self->state.current_launch.lock();
  if (!op) return f;
  return [self, weak = std::weak_ptr<launch_op>(op), faults = op->faults,
          f = std::move(f)](Args... args) {
    auto running = weak.lock();
    if (!running) return f(std::move(args)...);
    if (running->faults != faults) return;
    run_for_launch(self, running, [&] { f(std::move(args)...); });
  };
}

// --- the inventory refresh's scope (refresh_scope.cpp) ------------------------------------------
// A refresh runs many continuations (the listing, then every host's and VM's details). An
// exception in any of them ends that refresh once, as a failed one, so its waiters are answered
// and the region never waits for a refresh that cannot finish; the boundary logs and counts it.

// Runs `f` for the refresh of `generation`; a throw ends that refresh as failed.
void run_for_refresh(self_ptr self, std::uint64_t generation, const std::function<void()>& f);
// Ends the refresh under way: an empty `detail` is a success (the inventory is rebuilt), else
// the reason it failed. Then the next tick is scheduled and the waiters run, whatever throws.
void finish_refresh(self_ptr self, std::string detail);

// --- shared plumbing (region_actor.cpp) ------------------------------------------------------

// A client callback that resumes `f` inside the actor.
template <class T>
proxmox::callback<T> bounce(self_ptr self, std::function<void(result<T>)> f) {
  return resume_in<result<T>>(impl_actor{self}, within_launch(self, std::move(f)));
}
proxmox::done_callback bounce_status(self_ptr self, std::function<void(status)> f);
// A client callback for the refresh under way: it does nothing once that refresh has ended.
template <class T>
proxmox::callback<T> bounce_refresh(self_ptr self, std::function<void(result<T>)> f) {
  auto generation = self->state.refresh_generation;
  return bounce<T>(self, [self, generation, f = std::move(f)](result<T> r) {
    if (self->state.refresh_generation != generation) return;
    run_for_refresh(self, generation, [&] { f(std::move(r)); });
  });
}

// Runs `f` inside the actor after `delay` on the actor clock.
void after(self_ptr self, std::chrono::milliseconds delay, std::function<void()> f);

// Waits until the task stops or the wait's timeout passes, on the actor clock (task_waits.cpp):
// looks at it first after its type's learnt duration (at once while none is learnt), then from
// initial_interval growing by the multiplier up to max_interval. With cfg.cluster_task_list a
// look joins a shared GET /cluster/tasks read: the waits falling due within
// cfg.task_list_gather, or while a read is in flight, share one (a task it leaves out reads its
// own status). `done` gets "task_failed" (the task's exit status), "timeout", or a poll error that
// is not transient.
void wait_task(self_ptr self, const proxmox::upid& task, proxmox::task_wait_options wait,
               std::function<void(status)> done);
// The same for calls that may finish inline (no task) or fail before one started.
void wait_optional_task(self_ptr self, result<std::optional<proxmox::upid>> task,
                        proxmox::task_wait_options wait, std::function<void(status)> done);
void wait_started_task(self_ptr self, result<proxmox::upid> task, proxmox::task_wait_options wait,
                       std::function<void(status)> done);

protocol::region_error proxmox_error(const kp::error& e);
std::string provider_id(const region_state& st, std::uint32_t vmid);
// Proxmox still clones into a VM whose config holds `lock: clone` and no name yet: whose it is
// stays unknown until the clone finishes (unknown, never foreign).
bool clone_unfinished(std::string_view lock, const std::optional<std::string>& name);
// The same for a VM as the inventory knows it, which carries no mark either.
bool is_unmarked_clone(const vm_record& vm);
bool is_gone(const kp::error& e);  // Proxmox says the VM (or file) does not exist
void note_in_flight(region_state& st);

// --- inventory (inventory_refresh.cpp) ----------------------------------------------------------

void refresh(self_ptr self);
void schedule_tick(self_ptr self);
// Runs `f` once an inventory exists (at once when it does; after the next refresh otherwise).
void with_inventory(self_ptr self, std::function<void()> f);
// Runs `f` after a refresh that started after this call (a listing that is fresh).
void with_fresh_inventory(self_ptr self, std::function<void()> f);
// Runs `f` once every online host's bridges were read (at once when they are known; a failed
// read leaves a host without: the IPAM works without its seeds). From then on every refresh
// reads the bridges of hosts that have none yet.
void with_host_bridges(self_ptr self, std::function<void()> f);
void rebuild_placement(region_state& st);
void rebuild_ipam(region_state& st);
placement::host_state* placement_host(region_state& st, const std::string& name);
protocol::owned_vm_listing list_owned(const region_state& st);
protocol::region_inventory snapshot(const region_state& st);
// Records a VM read in the same step as an operation (a door check, a resumed launch).
void remember_config(region_state& st, std::uint32_t vmid, const proxmox::vm_config& config);

// --- the door: ownership read in the same step (ownership_check.cpp) ----------------------------

enum class verdict { ours, adopted, foreign, gone, unknown };

struct vm_check {
  verdict what = verdict::unknown;
  std::string node;
  std::uint32_t vmid = 0;
  proxmox::vm_config config;  // as read (ours, adopted, foreign)
  std::string why;            // for logs and error messages
};

// Who a request expects the VM to belong to.
struct expected_owner {
  std::string nodeclaim;
  bool allow_adopted = true;  // the Go provider's VM of that name counts as ours
};

// Reads the VM's config where the inventory last saw it and judges it against `owner`. A read
// that says "does not exist" is checked against a fresh listing before the VM counts as gone (it
// may have moved); any other failure is "unknown".
void check_vm(self_ptr self, std::uint32_t vmid, expected_owner owner,
              std::function<void(vm_check)> done);
// The same for a template VM: its template mark must name this cluster and `template_name`.
void check_template_vm(self_ptr self, std::uint32_t vmid, std::string template_name,
                       std::function<void(vm_check)> done);
// A refused request: a log line, karpenter_proxmox_foreign_vm_refusals_total, the reply's error.
protocol::region_error refuse_foreign(self_ptr self, const char* operation, const vm_check& c,
                                      const std::string& expected);
protocol::region_error unknown_error(const vm_check& c);

// --- launch (launch_sequence.cpp, launch_placement.cpp, agent_join.cpp) ------------------------

void handle_launch(self_ptr self, protocol::launch_request req,
                   caf::typed_response_promise<protocol::launch_reply> rp);
void fail_launch(self_ptr self, const std::shared_ptr<launch_op>& op, protocol::region_error e);
// Answers the launch's waiters and returns its credit (the launch is over).
void finish_launch(self_ptr self, const std::shared_ptr<launch_op>& op,
                   protocol::launch_reply reply);
void record_started(self_ptr self, const std::shared_ptr<launch_op>& op);
// Chooses host, VMID and pinning for a new VM, and its base config (the template's); an error
// code when it cannot.
protocol::region_error place_new_vm(self_ptr self, launch_op& op);
// NICs (our MACs) and the simple IPAM's address from `op.base_config`, for the config call, then
// `next`; fails the launch when no address can be given. Waits for the host bridges first when
// the launch needs them (an address to allocate, or the node class's own cloud-init templates).
void plan_network(self_ptr self, const std::shared_ptr<launch_op>& op, std::function<void()> next);
std::vector<std::string> normalised_tags(const std::vector<std::string>& wanted);
void join_by_agent(self_ptr self, std::shared_ptr<launch_op> op);
// Runs `f` once the VMIDs NodeClaims name are known; replies through `not_ready` if they stay
// unknown for the wait.
void when_claims_known(self_ptr self, std::function<void()> f, std::function<void()> not_ready);

// --- delete (vm_delete.cpp) ----------------------------------------------------------------------

void handle_delete(self_ptr self, protocol::delete_request req,
                   caf::typed_response_promise<protocol::delete_reply> rp);
// Stops (if running), destroys with purge, deletes the ISO. The caller checked ownership.
void destroy_vm(self_ptr self, std::string node, std::uint32_t vmid, std::string iso_volid,
                std::function<void(status, bool already_gone)> done);
void forget_vm(self_ptr self, std::uint32_t vmid, const std::string& node);

// --- ISOs (iso_housekeeping.cpp) -----------------------------------------------------------------

std::string iso_name_for(const region_state& st, std::uint32_t vmid, const std::string& nodeclaim);
// Our NoCloud ISO on the config's ide2 for that VM and NodeClaim, "" when it has none.
std::string our_iso(const region_state& st, const proxmox::vm_config& config, std::uint32_t vmid,
                    const std::string& nodeclaim);
void delete_iso(self_ptr self, const std::string& node, const std::string& volid,
                std::function<void()> done);
void sweep_leftover_isos(self_ptr self);
void handle_release_iso(self_ptr self, protocol::release_iso_request req,
                        caf::typed_response_promise<protocol::release_iso_reply> rp);

// --- sync (vm_sync.cpp) --------------------------------------------------------------------------

void handle_sync(self_ptr self, protocol::sync_vm_request req,
                 caf::typed_response_promise<protocol::sync_vm_reply> rp);

// --- templates (template_operations.cpp) ---------------------------------------------------------

void handle_template_observe(self_ptr self, protocol::template_observe_request req,
                             caf::typed_response_promise<protocol::template_observation> rp);
void handle_template_download(self_ptr self, protocol::template_download_request req,
                              caf::typed_response_promise<protocol::template_step_reply> rp);
void handle_template_create(self_ptr self, protocol::template_create_request req,
                            caf::typed_response_promise<protocol::template_step_reply> rp);
void handle_template_clone(self_ptr self, protocol::template_clone_request req,
                           caf::typed_response_promise<protocol::template_step_reply> rp);
void handle_template_convert(self_ptr self, protocol::template_convert_request req,
                             caf::typed_response_promise<protocol::template_step_reply> rp);
void handle_template_retire(self_ptr self, protocol::template_retire_request req,
                            caf::typed_response_promise<protocol::template_step_reply> rp);
void handle_template_delete(self_ptr self, protocol::template_delete_request req,
                            caf::typed_response_promise<protocol::template_step_reply> rp);

}  // namespace kp::actors::region
