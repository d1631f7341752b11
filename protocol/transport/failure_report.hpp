#pragma once
// An exception that escaped code the transport ran for someone else (a completion callback, a
// request handler, a handler posted to an io_context) is reported, never swallowed in silence:
// the owner of the client, server or runtime gives a reporter (binaries log it); without one the
// report is a line on stderr.
#include <exception>
#include <functional>
#include <string>
#include <string_view>

namespace kp::transport {

// `where` names the step ("http client: response callback"), `what` the exception's message.
// Called on an io thread; it must not throw.
using failure_reporter = std::function<void(std::string_view where, std::string_view what)>;

// what() of a std::exception, or a fixed text for anything else.
std::string describe(const std::exception_ptr& failure);

// Reports through `reporter`, or to stderr when it is empty; never throws.
void report_failure(const failure_reporter& reporter, std::string_view where,
                    const std::exception_ptr& failure) noexcept;

}  // namespace kp::transport
