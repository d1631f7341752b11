#pragma once
// The two time types of built-in Kubernetes objects, read and written as kube-apiserver's
// decoder and encoder do. metav1.Time (creationTimestamp, lastTransitionTime, ...) is RFC 3339;
// a fraction is accepted on input and dropped, so it is always written with whole seconds.
// metav1.MicroTime (a Lease's acquireTime and renewTime, an Event's eventTime) must carry exactly
// six fractional digits. Anything else is refused with kube-apiserver's 400 message.
#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "sim/kube/api_error.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {

// Go's time.Parse with layout "2006-01-02T15:04:05Z07:00" (fraction allowed) or, with
// micro == true, "2006-01-02T15:04:05.000000Z07:00" (exactly six digits).
std::optional<sys_time> parse_kube_time(std::string_view text, bool micro);

// Normalizes every Time and MicroTime field of a built-in object; `kind` and `api_version` name
// the object in the refusal ("Lease in version \"v1\" cannot be handled as a Lease: ...").
api_status normalize_time_fields(boost::json::object& object, const std::string& kind,
                                 const std::string& version);

}  // namespace kp::sim::kube
