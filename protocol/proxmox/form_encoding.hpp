#pragma once
// How parameters travel to Proxmox: application/x-www-form-urlencoded bodies for POST/PUT,
// query strings for GET/DELETE, repeated keys for arrays (command=ls&command=-l), percent-encoded
// path segments for ids such as volids, and multipart/form-data for uploads.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace kp::proxmox {

// Ordered; a key may repeat (arrays).
using form_params = std::vector<std::pair<std::string, std::string>>;

// Percent-encodes every byte except RFC 3986 unreserved characters (A-Z a-z 0-9 - . _ ~), with
// uppercase hex. A space is %20, never '+': Proxmox decodes '+' as a space in form bodies, so
// a literal '+' (cpu flags "+aes", resize "+10G") must be %2B.
std::string percent_encode(std::string_view text);

// A path segment: like percent_encode but keeps the characters RFC 3986 allows in a segment
// (":@!$&'()*+,;="), so UPIDs stay readable, while '/' in a volid becomes %2F.
std::string encode_path_segment(std::string_view text);

// key=value&key=value, both percent-encoded.
std::string encode_form(const form_params& params);

// The inverse (also accepts '+' as space). "invalid_encoding" for a bad %XX escape.
result<form_params> decode_form(std::string_view text);
result<std::string> percent_decode(std::string_view text, bool plus_is_space);

// Proxmox's own "urlencoded" value format (sshkeys): the text is stored percent-encoded and must
// match [-%a-zA-Z0-9_.!~*'()]*, so spaces are %20 and newlines %0A. On the wire it is then
// form-encoded a second time (ssh-ed25519%2520AAAA...).
std::string encode_pve_urlencoded(std::string_view text);

struct multipart_part {
  std::string name;                     // form field name
  std::optional<std::string> filename;  // set for a file part
  std::string content_type;             // for a file part; default application/octet-stream
  std::string data;
};

struct multipart_body {
  std::string content_type;  // multipart/form-data; boundary=...
  std::string body;
};

// Parts are written in the given order (Proxmox requires `content` before the file part). The
// boundary is chosen so that it occurs in no part.
multipart_body encode_multipart(const std::vector<multipart_part>& parts);

}  // namespace kp::proxmox
