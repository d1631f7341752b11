#include "core/gotemplate/json_emitter.hpp"

#include "core/gotemplate/go_format.hpp"

namespace kp::gotemplate {

namespace {

void append_json_string(std::string& out, const std::string& s) {
  static const char* hex = "0123456789abcdef";
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    std::size_t n = decode_utf8(s, i, cp);
    i += n;
    switch (cp) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      default:
        break;
    }
    // Go escapes control characters and, to be safe inside HTML, <, > and & and the JS line
    // separators.
    if (cp < 0x20 || cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 || cp == 0x2029) {
      out += "\\u";
      for (int k = 3; k >= 0; --k) out.push_back(hex[(cp >> (4 * k)) & 0xF]);
      continue;
    }
    append_utf8(out, cp);
  }
  out.push_back('"');
}

// encoding/json's omitempty: structs are never empty.
bool omitted(const value::entry& e) {
  if (!e.json_omit_empty) return false;
  if (e.pointer) return e.val.is_null();
  if (e.val.is_record()) return false;
  return !e.val.truthy();
}

void write(std::string& out, const value& v, const std::string* indent, int depth) {
  auto newline = [&](int d) {
    if (!indent) return;
    out.push_back('\n');
    for (int i = 0; i < d; ++i) out += *indent;
  };
  switch (v.type()) {
    case value::kind::null:
      out += "null";
      return;
    case value::kind::boolean:
      out += v.as_bool() ? "true" : "false";
      return;
    case value::kind::integer:
      out += std::to_string(v.as_int());
      return;
    case value::kind::floating:
      out += format_json_float(v.as_double());
      return;
    case value::kind::string:
      append_json_string(out, v.as_string());
      return;
    case value::kind::list: {
      const auto& l = v.as_list();
      if (l.empty()) {
        // An empty []string is the provider's nil slice, which encoding/json writes as null.
        out += v.is_string_list() ? "null" : "[]";
        return;
      }
      out.push_back('[');
      for (std::size_t i = 0; i < l.size(); ++i) {
        if (i) out.push_back(',');
        newline(depth + 1);
        write(out, l[i], indent, depth + 1);
      }
      newline(depth);
      out.push_back(']');
      return;
    }
    case value::kind::map: {
      bool any = false;
      out.push_back('{');
      for (const auto& e : v.as_map().entries) {
        if (omitted(e)) continue;
        if (any) out.push_back(',');
        any = true;
        newline(depth + 1);
        append_json_string(out, v.is_record() ? e.json_key : e.key);
        out += indent ? ": " : ":";
        write(out, e.val, indent, depth + 1);
      }
      if (any) newline(depth);
      out.push_back('}');
      return;
    }
  }
}

}  // namespace

std::string to_json(const value& v) {
  std::string out;
  write(out, v, nullptr, 0);
  return out;
}

std::string to_pretty_json(const value& v) {
  std::string out;
  const std::string indent = "  ";
  write(out, v, &indent, 0);
  return out;
}

}  // namespace kp::gotemplate
