// Serialisation and base64 functions of the Go provider.
#include "core/gotemplate/json_emitter.hpp"
#include "core/gotemplate/provider_function_groups.hpp"
#include "core/gotemplate/yaml_emitter.hpp"
#include "core/text/base64.hpp"

namespace kp::gotemplate {

namespace {

using args_t = std::span<const value>;

// Decoding stays here: Go's errors name the offending byte.
constexpr std::string_view alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// base64.StdEncoding.DecodeString: padding required, \r and \n ignored, errors name the offset.
result<std::string> b64decode(const std::string& in) {
  auto corrupt = [](std::size_t at) {
    return make_error("function", "illegal base64 data at input byte " + std::to_string(at));
  };
  std::string out;
  std::uint32_t acc = 0;
  int have = 0;
  int padding = 0;
  std::size_t first_pad = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '\r' || c == '\n') continue;
    if (c == '=') {
      if (have < 2) return corrupt(i);
      if (padding == 0) first_pad = i;
      ++padding;
      if (have + padding > 4) return corrupt(i);
      continue;
    }
    if (padding > 0) return corrupt(i);
    auto pos = alphabet.find(c);
    if (pos == std::string_view::npos) return corrupt(i);
    acc = (acc << 6) | static_cast<std::uint32_t>(pos);
    if (++have == 4) {
      out.push_back(static_cast<char>((acc >> 16) & 0xFF));
      out.push_back(static_cast<char>((acc >> 8) & 0xFF));
      out.push_back(static_cast<char>(acc & 0xFF));
      acc = 0;
      have = 0;
    }
  }
  if (have == 0 && padding == 0) return out;
  if (have + padding != 4) return corrupt(padding ? first_pad : in.size());
  if (have == 2) {
    out.push_back(static_cast<char>((acc >> 4) & 0xFF));
  } else if (have == 3) {
    out.push_back(static_cast<char>((acc >> 10) & 0xFF));
    out.push_back(static_cast<char>((acc >> 2) & 0xFF));
  }
  return out;
}

std::string without_final_newline(std::string s) {
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// An encoder of any value. Its output is at most a few times its input (escapes, indentation of
// a multi-line string), so the executor's count of the result bounds it; a string longer than
// max_bytes is refused before encoding, since encoding never shortens one.
bounded_function_impl encoder(std::string (*encode)(const value&)) {
  return [encode](args_t a, std::size_t max_bytes) -> result<value> {
    if (a[0].is_string() && a[0].as_string().size() > max_bytes) return over_budget();
    return value(encode(a[0]));
  };
}

}  // namespace

void add_encoding_functions(function_table& t) {
  using p = go_param;
  t.add("toJson", {p::any}, false, encoder([](const value& v) { return to_json(v); }));
  t.add("toPrettyJson", {p::any}, false, encoder([](const value& v) { return to_pretty_json(v); }));
  // yaml.v3's encoder: 4 spaces by default, 2 for the pretty form; the final newline dropped.
  t.add("toYaml", {p::any}, false,
        encoder([](const value& v) { return without_final_newline(to_yaml(v, {.indent = 4})); }));
  t.add("toYamlPretty", {p::any}, false,
        encoder([](const value& v) { return without_final_newline(to_yaml(v, {.indent = 2})); }));
  // Four bytes for every three, known before encoding.
  t.add("b64enc", {p::string}, false, [](args_t a, std::size_t max_bytes) -> result<value> {
    auto s = string_arg(a[0]);
    if (!s) return s.error();
    if (!fits(max_bytes, 0, (s->size() + 2) / 3, 4)) return over_budget();
    return value(text::base64_encode(*s));
  });
  t.add("b64dec", {p::string}, false, [](args_t a) -> result<value> {
    auto s = string_arg(a[0]);
    if (!s) return s.error();
    auto d = b64decode(*s);
    if (!d) return d.error();
    return value(std::move(*d));
  });
}

}  // namespace kp::gotemplate
