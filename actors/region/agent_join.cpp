// Joining through the QEMU guest agent (kproximate's kpQemuExecJoin): after the start, the
// region pings agent/ping until the guest answers, renders the join command for the VM's host
// and VMID (core/cloudinit) and runs it with agent/exec as `bash -c <command>`, polling
// exec-status until it exits. Polls and the deadline run on the actor clock. The command holds
// the bootstrap token: it is never logged, and redact.hpp keeps it out of error messages.
#include "actors/region/redact.hpp"
#include "actors/region/region_state.hpp"
#include "core/cloudinit/join_command.hpp"

namespace kp::actors::region {

using namespace kp::protocol;

namespace {

proxmox::task_wait_options agent_wait_of(const region_state& st) {
  return st.cfg.agent_wait.value_or(st.cfg.start_wait);
}

// The command and its output may hold the bootstrap token (redact.hpp).
std::string scrubbed(const launch_op& op, std::string text) {
  return redact_join_text(std::move(text), op.join_command);
}

void fail_join(self_ptr self, const std::shared_ptr<launch_op>& op, std::string message) {
  op->join_command.clear();
  fail_launch(self, op, {"join_failed", std::move(message)});
}

// Runs `next` after the current poll interval, then grows the interval as the task waits do.
void after_agent_interval(self_ptr self, const std::shared_ptr<launch_op>& op,
                          std::function<void()> next) {
  auto wait = agent_wait_of(self->state);
  auto delay = op->agent_interval;
  auto grown = std::chrono::milliseconds(
      static_cast<std::int64_t>(static_cast<double>(delay.count()) * wait.multiplier));
  op->agent_interval = std::min(std::max(grown, delay), wait.max_interval);
  auto left = op->agent_deadline - self->clock().now();
  if (left < delay) delay = std::chrono::duration_cast<std::chrono::milliseconds>(left);
  if (delay.count() < 0) delay = std::chrono::milliseconds(0);
  after(self, delay, std::move(next));
}

bool agent_time_left(self_ptr self, const launch_op& op) {
  return self->clock().now() < op.agent_deadline;
}

std::string vm_words(const launch_op& op) {
  return "VM " + std::to_string(op.vmid) + " on " + op.host;
}

void agent_exec_status(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  ++op->agent_requests;
  st.api->agent_exec_status(
      op->host, op->vmid, op->agent_pid,
      bounce<proxmox::agent_exec_status>(self, [self, op](result<proxmox::agent_exec_status> r) {
        auto timeout_s =
            std::chrono::duration_cast<std::chrono::seconds>(agent_wait_of(self->state).timeout)
                .count();
        if (r && r->exited) {
          int code = r->exitcode.value_or(r->signal ? 128 + *r->signal : -1);
          if (code == 0) {
            op->joined_by_agent = true;
            op->join_command.clear();
            self->state.log.info(
                "joined through the guest agent",
                {{"nodeclaim", op->req.nodeclaim}, {"vmid", std::to_string(op->vmid)}});
            record_started(self, op);
            return;
          }
          auto output = r->err_data.empty() ? r->out_data : r->err_data;
          while (!output.empty() && (output.back() == '\n' || output.back() == '\r'))
            output.pop_back();
          fail_join(self, op,
                    scrubbed(*op, "the join command on " + vm_words(*op) + " exited with code " +
                                      std::to_string(code) +
                                      (output.empty() ? std::string() : ": " + output)));
          return;
        }
        if (!r) op->agent_error = r.error().message;
        if (!agent_time_left(self, *op)) {
          fail_join(
              self, op,
              scrubbed(*op, "the join command on " + vm_words(*op) + " did not finish within " +
                                std::to_string(timeout_s) + "s" +
                                (r ? std::string() : " (last error: " + op->agent_error + ")")));
          return;
        }
        after_agent_interval(self, op, [self, op] { agent_exec_status(self, op); });
      }));
}

void agent_exec(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  ++op->agent_requests;
  // kproximate's form: the command is one argument of bash -c, so it may be a whole script.
  st.api->agent_exec(op->host, op->vmid, {"bash", "-c", op->join_command}, "",
                     bounce<int>(self, [self, op](result<int> pid) {
                       if (!pid) {
                         fail_join(
                             self, op,
                             scrubbed(*op, "agent/exec of the join command on " + vm_words(*op) +
                                               " failed: " + pid.error().message));
                         return;
                       }
                       op->agent_pid = *pid;
                       op->agent_interval = agent_wait_of(self->state).initial_interval;
                       agent_exec_status(self, op);
                     }));
}

void agent_ping(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  ++op->agent_requests;
  st.api->agent_ping(
      op->host, op->vmid, bounce_status(self, [self, op](status s) {
        if (s) {
          agent_exec(self, op);
          return;
        }
        op->agent_error = s.error().message;
        // A template without `agent: 1` never gets an agent: no use waiting.
        if (op->agent_error.find("No QEMU guest agent configured") != std::string::npos) {
          fail_join(
              self, op,
              vm_words(*op) + " has no QEMU guest agent configured (the template needs agent: 1)");
          return;
        }
        if (!agent_time_left(self, *op)) {
          auto timeout_s =
              std::chrono::duration_cast<std::chrono::seconds>(agent_wait_of(self->state).timeout)
                  .count();
          fail_join(self, op,
                    scrubbed(*op, "the QEMU guest agent of " + vm_words(*op) +
                                      " did not answer within " + std::to_string(timeout_s) +
                                      "s (last error: " + op->agent_error + ")"));
          return;
        }
        after_agent_interval(self, op, [self, op] { agent_ping(self, op); });
      }));
}

}  // namespace

// Renders the join command for the chosen host and VMID, then waits for the agent and runs it.
void join_by_agent(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  cloudinit::vm_placement where{st.cfg.region, op->host, op->vmid, provider_id(st, op->vmid),
                                op->nics};
  auto command = cloudinit::render_join_command(*op->req.agent_join, where);
  if (!command) return fail_launch(self, op, {"template_error", command.error().message});
  if (command->empty()) {
    return fail_launch(self, op, {"template_error", "the join command rendered empty"});
  }
  op->join_command = std::move(*command);
  auto wait = agent_wait_of(st);
  op->agent_deadline = self->clock().now() + wait.timeout;
  op->agent_interval = wait.initial_interval;
  agent_ping(self, op);
}

}  // namespace kp::actors::region
