#pragma once
// The exception boundary of an actor. Bad input is meant to become an error value long before
// it reaches a handler; this is the net under that promise. An exception that escapes anyway is
// caught at the boundary, logged (actor, subject, error), counted in
// karpenter_proxmox_actor_failures_total{actor}, and confined to the one message, completion or
// object it was handling: the actor keeps its state and goes on with the next message, and the
// process never dies of it. How to apply it to an actor is in actors/README.md.
#include <atomic>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <caf/delegated.hpp>
#include <caf/error.hpp>
#include <caf/exit_reason.hpp>
#include <caf/result.hpp>
#include <caf/scheduled_actor.hpp>
#include <caf/sec.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/continuation.hpp"
#include "observability/karpenter_metrics.hpp"
#include "observability/logging.hpp"

namespace kp::actors {

class failure_boundary {
 public:
  // `actor` is the metric label and the log's actor field ("provisioner"); metrics may be null
  // (tests), then only the log line and failures() tell.
  failure_boundary(std::string actor, const std::shared_ptr<obs::karpenter_metrics>& metrics);

  // Runs f(); an exception it throws is reported and swallowed. Returns whether f completed.
  // `subject` names what f works on ("NodePool general"), for the log line.
  template <class F>
  bool contain(std::string_view subject, F&& f) const noexcept {
    try {
      std::forward<F>(f)();
      return true;
    } catch (...) {
      report(subject, std::current_exception());
      return false;
    }
  }

  // Runs an I/O completion that came back to the actor (the `resume_atom` handler).
  void run(continuation& c) const noexcept;

  void report(std::string_view subject, const std::exception_ptr& failure) const noexcept;

  const std::string& actor() const { return actor_; }
  // Failures reported so far (tests read it when there are no metrics).
  std::uint64_t failures() const { return failures_.load(); }

 private:
  std::string actor_;
  prometheus::Counter* counter_ = nullptr;
  obs::logger log_;
  mutable std::atomic<std::uint64_t> failures_{0};
};

using boundary_ptr = std::shared_ptr<const failure_boundary>;

inline boundary_ptr make_boundary(std::string actor,
                                  const std::shared_ptr<obs::karpenter_metrics>& metrics) {
  return std::make_shared<const failure_boundary>(std::move(actor), metrics);
}

namespace detail {

template <class F>
struct handler_signature : handler_signature<decltype(&F::operator())> {};
template <class C, class R, class... Ts>
struct handler_signature<R (C::*)(Ts...) const> {
  using result_type = R;
  using args = std::tuple<Ts...>;
};
template <class C, class R, class... Ts>
struct handler_signature<R (C::*)(Ts...)> : handler_signature<R (C::*)(Ts...) const> {};

// What a guarded handler returns, given what the handler returns: a reply that can also carry
// the error a failure answers a request with.
template <class R>
struct guarded_result {
  using type = caf::result<R>;
};
template <>
struct guarded_result<void> {
  using type = void;
};
template <class... Ts>
struct guarded_result<caf::result<Ts...>> {
  using type = caf::result<Ts...>;
};
template <class... Ts>
struct guarded_result<caf::typed_response_promise<Ts...>> {
  using type = caf::result<Ts...>;
};
template <class... Ts>
struct guarded_result<caf::delegated<Ts...>> {
  using type = caf::result<Ts...>;
};
template <class... Ts>
struct guarded_result<std::tuple<Ts...>> {
  using type = caf::result<Ts...>;
};

template <class Out, class R>
Out to_result(R&& r) {
  if constexpr (std::is_same_v<std::decay_t<R>, Out>) {
    return std::forward<R>(r);
  } else if constexpr (requires { std::tuple_size<std::decay_t<R>>::value; }) {
    return std::apply([](auto&&... xs) { return Out{std::forward<decltype(xs)>(xs)...}; },
                      std::forward<R>(r));
  } else {
    return Out{std::forward<R>(r)};
  }
}

// The wrapper itself: a functor rather than a lambda so that its call operator is const (CAF
// calls some handlers, the down handler for one, through a const reference) while the wrapped
// handler may still be a mutable lambda.
template <class F, class R, class... Ts>
struct guarded_handler {
  using out = typename guarded_result<R>::type;
  boundary_ptr boundary;
  mutable F f;

  out operator()(Ts... xs) const {
    try {
      if constexpr (std::is_void_v<R>) {
        f(std::forward<Ts>(xs)...);
      } else {
        return to_result<out>(f(std::forward<Ts>(xs)...));
      }
    } catch (...) {
      auto failure = std::current_exception();
      boundary->report("a message", failure);
      if constexpr (!std::is_void_v<R>) {
        // A request still gets an answer: the error, not a timeout at the requester.
        return out{caf::make_error(caf::sec::runtime_error,
                                   boundary->actor() + " failed handling the request")};
      }
    }
  }
};

template <class F, class R, class... Ts>
guarded_handler<F, R, Ts...> guard_with(boundary_ptr boundary, F f, std::tuple<Ts...>*) {
  return {std::move(boundary), std::move(f)};
}

}  // namespace detail

// A behaviour handler (or a request's response handler) inside the boundary, with the same
// parameters: a plain return type T becomes caf::result<T> (the same reply to CAF), so a failed
// request is answered with a runtime_error instead of silence.
template <class F>
auto guarded(boundary_ptr boundary, F f) {
  using signature = detail::handler_signature<F>;
  return detail::guard_with<F, typename signature::result_type>(
      std::move(boundary), std::move(f), static_cast<typename signature::args*>(nullptr));
}

// Every handler of a behaviour inside the boundary:
//   return guarded_behavior<impl::behavior_type>(boundary, [](a) {...}, [](b) {...});
template <class Behavior, class... Fs>
Behavior guarded_behavior(const boundary_ptr& boundary, Fs... handlers) {
  return Behavior{guarded(boundary, std::move(handlers))...};
}

// The last net, for code outside guarded handlers (a spawn function's set-up): the exception is
// reported like the others, then CAF 0.17 stops the actor (it cannot resume one that threw
// there), and whoever monitors it restarts it. An actor whose whole state is one object (a
// NodeClaim's) leaves its handlers unguarded on purpose and names that object in `subject`:
// a failure anywhere in it stops it, and its supervisor starts it afresh from the cluster state.
template <class Self>
void install_boundary(Self* self, boundary_ptr boundary,
                      std::string subject = "outside a guarded handler; the actor stops") {
  self->set_exception_handler(
      [boundary = std::move(boundary), subject = std::move(subject)](
          caf::scheduled_actor*, std::exception_ptr& failure) -> caf::error {
        boundary->report(subject, failure);
        return caf::make_error(caf::exit_reason::unhandled_exception);
      });
}

}  // namespace kp::actors
