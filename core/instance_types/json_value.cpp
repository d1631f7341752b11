#include "core/instance_types/json_value.hpp"

#include <cstdlib>

#include "core/parse_number.hpp"

namespace kp::instance_types {
namespace {

class reader {
 public:
  explicit reader(std::string_view s) : s_(s) {}

  result<json_value> document() {
    json_value v;
    if (!value(v, 0)) return fail();
    skip_ws();
    if (pos_ != s_.size()) {
      why_ = "trailing characters";
      return fail();
    }
    return v;
  }

 private:
  error fail() const {
    return make_error("invalid_json", "JSON " + why_ + " at offset " + std::to_string(pos_));
  }
  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t'))
      ++pos_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) {
      why_ = "unexpected token";
      return false;
    }
    pos_ += word.size();
    return true;
  }
  bool value(json_value& out, int depth) {
    if (depth > 64) {
      why_ = "nested too deeply";
      return false;
    }
    skip_ws();
    if (pos_ >= s_.size()) {
      why_ = "unexpected end";
      return false;
    }
    char c = s_[pos_];
    if (c == '{') return object(out, depth);
    if (c == '[') return array(out, depth);
    if (c == '"') {
      out.type = json_value::kind::string;
      return string(out.text);
    }
    if (c == 't') {
      out.type = json_value::kind::boolean;
      out.boolean = true;
      return literal("true");
    }
    if (c == 'f') {
      out.type = json_value::kind::boolean;
      return literal("false");
    }
    if (c == 'n') return literal("null");
    return number(out);
  }
  bool number(json_value& out) {
    std::size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    bool digits = false;
    while (pos_ < s_.size() &&
           ((s_[pos_] >= '0' && s_[pos_] <= '9') || s_[pos_] == '.' || s_[pos_] == 'e' ||
            s_[pos_] == 'E' || s_[pos_] == '+' || s_[pos_] == '-')) {
      digits = digits || (s_[pos_] >= '0' && s_[pos_] <= '9');
      ++pos_;
    }
    if (!digits) {
      why_ = "unexpected token";
      return false;
    }
    out.type = json_value::kind::number;
    out.text = std::string(s_.substr(start, pos_ - start));
    auto number = parse_decimal(out.text);
    if (!number) {
      why_ = "bad number";
      return false;
    }
    out.number = *number;
    return true;
  }
  bool string(std::string& out) {
    ++pos_;  // opening quote
    while (pos_ < s_.size()) {
      char c = s_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) {
        why_ = "control character in string";
        return false;
      }
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= s_.size()) break;
      char e = s_[pos_++];
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          if (pos_ + 4 > s_.size()) {
            why_ = "bad escape";
            return false;
          }
          unsigned cp = 0;
          for (int i = 0; i < 4; ++i) {
            char h = s_[pos_++];
            cp <<= 4;
            if (h >= '0' && h <= '9')
              cp |= h - '0';
            else if (h >= 'a' && h <= 'f')
              cp |= h - 'a' + 10;
            else if (h >= 'A' && h <= 'F')
              cp |= h - 'A' + 10;
            else {
              why_ = "bad escape";
              return false;
            }
          }
          // Names here are ASCII; encode the BMP code point as UTF-8 for completeness.
          if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
          } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
          } else {
            out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
          }
          break;
        }
        default:
          why_ = "bad escape";
          return false;
      }
    }
    why_ = "unterminated string";
    return false;
  }
  bool array(json_value& out, int depth) {
    out.type = json_value::kind::array;
    ++pos_;
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      out.array.emplace_back();
      if (!value(out.array.back(), depth + 1)) return false;
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return true;
      }
      why_ = "expected , or ]";
      return false;
    }
  }
  bool object(json_value& out, int depth) {
    out.type = json_value::kind::object;
    ++pos_;
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != '"') {
        why_ = "expected a key";
        return false;
      }
      std::string key;
      if (!string(key)) return false;
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != ':') {
        why_ = "expected :";
        return false;
      }
      ++pos_;
      out.object.emplace_back(std::move(key), json_value{});
      if (!value(out.object.back().second, depth + 1)) return false;
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return true;
      }
      why_ = "expected , or }";
      return false;
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  std::string why_;
};

}  // namespace

const json_value* json_value::find(std::string_view key) const {
  for (const auto& [k, v] : object)
    if (k == key) return &v;
  return nullptr;
}

result<json_value> parse_json(std::string_view text) {
  return reader(text).document();
}

}  // namespace kp::instance_types
