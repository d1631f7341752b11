#include "protocol/proxmox/form_encoding.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace kp::proxmox {

namespace {

constexpr char hex_digits[] = "0123456789ABCDEF";

bool is_unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

bool is_segment_char(unsigned char c) {
  return is_unreserved(c) ||
         std::string_view(":@!$&'()*+,;=").find(static_cast<char>(c)) != std::string_view::npos;
}

template <class Keep>
std::string encode_with(std::string_view text, Keep keep) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (keep(c)) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(hex_digits[c >> 4]);
      out.push_back(hex_digits[c & 0x0f]);
    }
  }
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string percent_encode(std::string_view text) {
  return encode_with(text, is_unreserved);
}

std::string encode_path_segment(std::string_view text) {
  return encode_with(text, is_segment_char);
}

std::string encode_pve_urlencoded(std::string_view text) {
  // Proxmox's check pattern allows these besides alphanumerics; everything else is escaped.
  return encode_with(text, [](unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           std::string_view("-_.!~*'()").find(static_cast<char>(c)) != std::string_view::npos;
  });
}

std::string encode_form(const form_params& params) {
  std::string out;
  for (const auto& [key, value] : params) {
    if (!out.empty()) out.push_back('&');
    out += percent_encode(key);
    out.push_back('=');
    out += percent_encode(value);
  }
  return out;
}

result<std::string> percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) {
        return make_error("invalid_encoding", "truncated %-escape at offset " + std::to_string(i));
      }
      int hi = hex_value(text[i + 1]);
      int lo = hex_value(text[i + 2]);
      if (hi < 0 || lo < 0) {
        return make_error("invalid_encoding", "bad %-escape at offset " + std::to_string(i));
      }
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

result<form_params> decode_form(std::string_view text) {
  form_params params;
  while (!text.empty()) {
    auto amp = text.find('&');
    std::string_view pair = text.substr(0, amp);
    text = amp == std::string_view::npos ? std::string_view{} : text.substr(amp + 1);
    if (pair.empty()) continue;
    auto eq = pair.find('=');
    auto key = percent_decode(pair.substr(0, eq), true);
    if (!key) return key.error();
    auto value = percent_decode(eq == std::string_view::npos ? "" : pair.substr(eq + 1), true);
    if (!value) return value.error();
    params.emplace_back(std::move(*key), std::move(*value));
  }
  return params;
}

multipart_body encode_multipart(const std::vector<multipart_part>& parts) {
  // A counter plus a fixed prefix; re-chosen in the unlikely case some data contains it.
  static std::atomic<std::uint64_t> counter{0};
  std::string boundary;
  bool clash = true;
  while (clash) {
    boundary =
        "----kp-proxmox-" + std::to_string(0x5eed0000ull + counter.fetch_add(1)) + "-boundary";
    clash = std::any_of(parts.begin(), parts.end(), [&](const multipart_part& p) {
      return p.data.find(boundary) != std::string::npos;
    });
  }
  multipart_body out;
  out.content_type = "multipart/form-data; boundary=" + boundary;
  std::size_t size = 0;
  for (const auto& p : parts) size += p.data.size() + 200;
  out.body.reserve(size);
  for (const auto& p : parts) {
    out.body += "--" + boundary + "\r\n";
    out.body += "Content-Disposition: form-data; name=\"" + p.name + "\"";
    if (p.filename) {
      out.body += "; filename=\"" + *p.filename + "\"\r\n";
      out.body +=
          "Content-Type: " +
          (p.content_type.empty() ? std::string("application/octet-stream") : p.content_type) +
          "\r\n";
    } else {
      out.body += "\r\n";
    }
    out.body += "\r\n";
    out.body += p.data;
    out.body += "\r\n";
  }
  out.body += "--" + boundary + "--\r\n";
  return out;
}

}  // namespace kp::proxmox
