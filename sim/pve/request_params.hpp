#pragma once
// Request parameters as Proxmox's API server collects them: query string merged over a
// form-urlencoded or JSON body; arrays arrive as repeated keys. Also multipart uploads.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace kp::sim::pve {

class request_params {
 public:
  void add(std::string key, std::string value);
  // Replaces every value of `key` (query parameters override body parameters).
  void set(const std::string& key, std::string value);
  bool has(std::string_view key) const;
  std::optional<std::string> get(std::string_view key) const;
  std::string get_or(std::string_view key, std::string fallback) const;
  std::vector<std::string> all(std::string_view key) const;
  // Proxmox booleans: 1|0|on|off|yes|no|true|false.
  std::optional<bool> get_bool(std::string_view key) const;
  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }
  void erase(std::string_view key);

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

std::string url_decode(std::string_view text, bool plus_is_space);
std::string url_encode(std::string_view text);

// a=1&b=2 into params (appending).
void parse_form(std::string_view text, request_params& out);
// A flat JSON object into params; arrays become repeated keys, booleans 1/0.
status parse_json_object(std::string_view text, request_params& out);

struct multipart_part {
  std::string name;
  std::string filename;  // set for file parts
  std::string body;
};
// Parses multipart/form-data given the Content-Type header (which names the boundary).
result<std::vector<multipart_part>> parse_multipart(std::string_view content_type,
                                                    std::string_view body);

}  // namespace kp::sim::pve
