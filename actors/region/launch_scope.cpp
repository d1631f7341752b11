// A launch's scope (region_state.hpp): what runs for a launch, and how an exception in it ends
// that launch instead of leaving it half done.
#include <exception>
#include <string>

#include "actors/region/region_state.hpp"
#include "protocol/transport/failure_report.hpp"

namespace kp::actors::region {

namespace {

// Reports the failure and, for a launch still under way, answers it with an error so that the
// NodeClaim tries again. The first fault goes through fail_launch: the VMID, address and credit
// go back and a VM the launch made is removed (being ours). A fault in that clean-up answers at
// once and leaves the VM, marked ours, to the NodeClaim's next launch (which resumes it) or to
// the collector.
void abandon_launch(self_ptr self, const std::shared_ptr<launch_op>& op,
                    const std::exception_ptr& failure) {
  auto& st = self->state;
  const std::string subject = "NodeClaim " + op->req.nodeclaim;
  if (st.boundary) st.boundary->report(subject, failure);
  ++op->faults;
  // Whatever the fault interrupted (a clone under way, a removal), the next launch lists
  // Proxmox before it allocates: it finds a VM this one left and resumes it, never a second.
  st.list_before_allocate = true;
  auto it = st.launching.find(op->req.nodeclaim);
  if (it == st.launching.end() || it->second != op) return;  // answered already
  protocol::region_error error{"internal", "the launch failed inside the controller (" +
                                               transport::describe(failure) +
                                               "); the NodeClaim tries again"};
  if (op->faults == 1) {
    try {
      launch_scope scope(st, op);
      fail_launch(self, op, error);
      return;
    } catch (...) {
      if (st.boundary) st.boundary->report(subject, std::current_exception());
      ++op->faults;
    }
  }
  protocol::launch_reply reply;
  reply.region = st.cfg.region;
  reply.error = std::move(error);
  finish_launch(self, op, std::move(reply));
}

}  // namespace

void run_for_launch(self_ptr self, const std::shared_ptr<launch_op>& op,
                    const std::function<void()>& f) {
  try {
    launch_scope scope(self->state, op);
    f();
  } catch (...) {
    abandon_launch(self, op, std::current_exception());
  }
}

}  // namespace kp::actors::region
