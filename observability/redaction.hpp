#pragma once
// Last line of defence for secrets: values registered here are replaced by "<redacted>" in every
// log line, whatever code wrote them. Secret types (config::secret) keep them out in the first
// place; this catches a secret that slipped into a URL, a response body or an error text.
#include <string>
#include <string_view>
#include <vector>

namespace kp::obs {

inline constexpr std::string_view redacted = "<redacted>";

// Pure: `text` with every occurrence of each secret (4 characters or longer) replaced.
std::string redact(std::string_view text, const std::vector<std::string>& secrets);

// Process-wide list used by the log sink. Thread-safe.
void register_secret(std::string value);
std::string redact_registered(std::string_view text);

// "Authorization: PVEAPIToken=a@b!c=SECRET" style header values: keeps the scheme only.
std::string redact_authorization(std::string_view header_value);

}  // namespace kp::obs
