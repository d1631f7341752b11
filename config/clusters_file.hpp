#pragma once
// The Proxmox clusters file, in the Go provider's format (CLOUD_CONFIG):
//   features: {provider: default}
//   clusters: [{url, insecure, token_id, token_secret, token_id_file, token_secret_file,
//               username, password, region}]
// Unlike the Go provider, the *_file variants are read before validation, so a file holding only
// file variants is accepted.
#include <string>
#include <string_view>
#include <vector>

#include "config/secret.hpp"
#include "core/result.hpp"

namespace kp::config {

struct proxmox_cluster {
  std::string url;  // as written, e.g. https://pve:8006/api2/json
  bool insecure = false;
  std::string token_id;  // user@realm!name (not secret)
  secret token_secret;
  std::string username;
  secret password;
  std::string region;
  // Ours, not the Go provider's: `ca_file` names a PEM bundle that signs the Proxmox API's
  // certificate (a private CA), so verification stays on without `insecure`.
  std::string ca_pem;

  bool uses_token() const { return !token_id.empty(); }
  // The URL that REST paths are appended to; always ends in /api2/json.
  std::string api_base() const;
};

struct clusters_file {
  std::string provider = "default";
  std::vector<proxmox_cluster> clusters;
};

// Reads and validates the file; `path` empty means no file was configured. Every error is one
// line starting with "clusters file" and never contains a secret.
result<clusters_file> load_clusters_file(const std::string& path);

// The same on text already read; `source` names it in errors. Relative *_file paths are read
// relative to the working directory, as the Go provider does.
result<clusters_file> parse_clusters_yaml(std::string_view text, const std::string& source);

// A URL with any user:password@ part removed, for messages.
std::string strip_url_userinfo(std::string_view url);

}  // namespace kp::config
