#include "core/gotemplate/yaml_emitter.hpp"

#include <algorithm>
#include <cctype>

#include <re2/re2.h>

#include "core/gotemplate/go_format.hpp"

namespace kp::gotemplate {

namespace {

bool is_letter(unsigned char c) {
  return std::isalpha(c) || c >= 0x80;
}
bool is_digit(unsigned char c) {
  return c >= '0' && c <= '9';
}

// Strings yaml.v3 would read back as null, bool, number or timestamp must be double-quoted.
bool resolves_to_non_string(const std::string& s) {
  static const char* words[] = {
      "",      "~",     "null",  "Null",  "NULL",  "true",  "True", "TRUE", "false", "False",
      "FALSE", "y",     "Y",     "yes",   "Yes",   "YES",   "n",    "N",    "no",    "No",
      "NO",    "on",    "On",    "ON",    "off",   "Off",   "OFF",  ".inf", ".Inf",  ".INF",
      "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN"};
  for (const char* w : words) {
    if (s == w) return true;
  }
  auto c = static_cast<unsigned char>(s[0]);
  if (!(is_digit(c) || c == '+' || c == '-' || c == '.')) return false;
  std::string plain;
  for (char ch : s) {
    if (ch != '_') plain.push_back(ch);
  }
  static const re2::RE2 int_re(
      R"(^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$)");
  static const re2::RE2 float_re(R"(^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$)");
  static const re2::RE2 base60_re(R"(^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$)");
  // yaml.v3 reads these layouts as timestamps: 2006-1-2, 2006-1-2T15:4:5.9Z07:00 and
  // 2006-1-2 15:4:5.9.
  static const re2::RE2 timestamp_re(
      R"(^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]+)?)"
      R"((Z|[+-][0-9]{2}:[0-9]{2})| [0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]+)?)?$)");
  // RE2 matches in linear time without recursion, whatever the length of the string.
  return re2::RE2::FullMatch(plain, int_re) || re2::RE2::FullMatch(plain, float_re) ||
         re2::RE2::FullMatch(s, base60_re) || re2::RE2::FullMatch(s, timestamp_re);
}

bool is_printable_byte_run(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    std::size_t n = decode_utf8(s, i, cp);
    if (cp == 0xFFFD && n == 1 && static_cast<unsigned char>(s[i]) >= 0x80) return false;
    // yaml.v3's is_printable: NEL and characters beyond the BMP are not.
    bool printable = cp == '\n' || (cp >= 0x20 && cp <= 0x7E) || (cp >= 0xA0 && cp <= 0xD7FF) ||
                     (cp >= 0xE000 && cp <= 0xFFFD && cp != 0xFEFF);
    if (!printable) return false;
    i += n;
  }
  return true;
}

// libyaml's "followed by whitespace": the end, a space or a tab.
bool is_space_or_end(const std::string& s, std::size_t i) {
  return i >= s.size() || s[i] == ' ' || s[i] == '\t';
}

// libyaml's analysis of a single-line scalar: may it be written plain in block context?
bool plain_allowed(const std::string& s) {
  if (s.empty()) return false;
  if (s.rfind("---", 0) == 0 || s.rfind("...", 0) == 0) return false;
  if (s.front() == ' ' || s.back() == ' ') return false;
  static const std::string first_indicators = "#,[]{}&*!|>'\"%@`";
  char f = s.front();
  if (first_indicators.find(f) != std::string::npos) return false;
  if ((f == '?' || f == ':' || f == '-') && is_space_or_end(s, 1)) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ':' && is_space_or_end(s, i + 1)) return false;
    if (s[i] == '#' && i > 0 && s[i - 1] == ' ') return false;
  }
  return true;
}

std::string double_quoted(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    std::size_t n = decode_utf8(s, i, cp);
    i += n;
    switch (cp) {
      case 0:
        out += "\\0";
        continue;
      case '\a':
        out += "\\a";
        continue;
      case '\b':
        out += "\\b";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\v':
        out += "\\v";
        continue;
      case '\f':
        out += "\\f";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case 0x1B:
        out += "\\e";
        continue;
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case 0x85:
        out += "\\N";
        continue;
      case 0xA0:
        out += "\\_";
        continue;
      case 0x2028:
        out += "\\L";
        continue;
      case 0x2029:
        out += "\\P";
        continue;
      default:
        break;
    }
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || cp == 0xFEFF || cp >= 0xFFFE) {
      int width = cp <= 0xFF ? 2 : cp <= 0xFFFF ? 4 : 8;
      out += width == 2 ? "\\x" : width == 4 ? "\\u" : "\\U";
      for (int k = width - 1; k >= 0; --k) out.push_back(hex[(cp >> (4 * k)) & 0xF]);
      continue;
    }
    append_utf8(out, cp);
  }
  return out + "\"";
}

bool has_unicode_break(const std::string& s) {
  return s.find("\xE2\x80\xA8") != std::string::npos || s.find("\xE2\x80\xA9") != std::string::npos;
}

// libyaml writes a line separator (U+2028, U+2029) as is and indents what follows to `col`.
std::string single_quoted(const std::string& s, int col = 0) {
  std::string out = "'";
  bool after_break = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (after_break) {
      out.append(static_cast<std::size_t>(col), ' ');
      after_break = false;
    }
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
    if (c == '\xA8' || c == '\xA9') {
      after_break = i >= 2 && s[i - 2] == '\xE2' && s[i - 1] == '\x80' && i + 1 < s.size();
    }
  }
  return out + "'";
}

// A multi-line string may be a literal block unless a space ends it or precedes a break, or it
// has characters a block cannot carry (tabs are fine there).
bool block_allowed(const std::string& s) {
  std::string without_tabs = s;
  std::replace(without_tabs.begin(), without_tabs.end(), '\t', ' ');
  if (!is_printable_byte_run(without_tabs)) return false;
  if (s.back() == ' ') return false;
  return s.find(" \n") == std::string::npos;
}

class yaml_writer {
 public:
  explicit yaml_writer(int indent) : best_(indent < 2 || indent > 9 ? 2 : indent) {}

  std::string document(const value& v) {
    if (is_block_collection(v)) {
      collection(v, 0, where::top);
    } else {
      out_ += scalar_text(v, best_);
    }
    out_.push_back('\n');
    return std::move(out_);
  }

 private:
  // Where the cursor is when a node starts: at the beginning of the document, right after
  // "key:" or right after a sequence's "-".
  enum class where { top, after_key, after_dash };

  // yaml.v3's isZero: empty strings, lists and maps, 0, false, nil, structs of zero fields.
  static bool yaml_zero(const value& v) {
    if (v.is_record()) {
      return std::all_of(v.as_map().entries.begin(), v.as_map().entries.end(),
                         [](const value::entry& e) { return yaml_zero(e.val); });
    }
    if (v.is_list() || v.is_map()) return v.size() == 0;
    return !v.truthy();
  }

  // yaml.v3's omitempty: a nil pointer, or a zero value.
  static bool omitted(const value::entry& e) {
    if (!e.yaml_omit_empty) return false;
    return e.pointer ? e.val.is_null() : yaml_zero(e.val);
  }

  static bool is_block_collection(const value& v) {
    if (v.is_list()) return v.size() > 0;
    if (!v.is_map()) return false;
    for (const auto& e : v.as_map().entries) {
      if (!omitted(e)) return true;
    }
    return false;
  }

  // yaml.v3's indentation: inside a sequence item a node sits just past "- "; anywhere else it
  // goes to the next multiple of the indent width.
  int child_indent(int parent, where at) const {
    if (at == where::after_dash) return parent + 2;
    return best_ * ((parent + best_) / best_);
  }

  // `parent` is the indentation of the collection holding this node.
  void node(const value& v, int parent, where at) {
    int own = child_indent(parent, at);
    if (is_block_collection(v)) {
      collection(v, own, at);
    } else {
      out_.push_back(' ');
      out_ += scalar_text(v, own);
    }
  }

  void start_entry(int col, where at, bool first) {
    if (first && at == where::top) return;
    if (first && at == where::after_dash) {
      out_.push_back(' ');  // "- " then the first entry on the same line
      return;
    }
    out_.push_back('\n');
    out_.append(static_cast<std::size_t>(col), ' ');
  }

  void collection(const value& v, int col, where at) {
    bool first = true;
    if (v.is_list()) {
      for (const auto& item : v.as_list()) {
        start_entry(col, at, first);
        first = false;
        out_.push_back('-');
        node(item, col, where::after_dash);
      }
      return;
    }
    std::vector<const value::entry*> entries;
    for (const auto& e : v.as_map().entries) {
      if (!omitted(e)) entries.push_back(&e);
    }
    bool record = v.is_record();
    if (!record) {
      std::stable_sort(entries.begin(), entries.end(),
                       [](const auto* a, const auto* b) { return yaml_key_less(a->key, b->key); });
    }
    for (const auto* e : entries) {
      start_entry(col, at, first);
      first = false;
      const std::string& key = record ? e->yaml_key : e->key;
      if (is_simple_key(key)) {
        out_ += scalar_text(value(key), 0);
      } else {
        // libyaml's complex key: "? key", then ":" on a line of its own.
        out_ += "? ";
        out_ += scalar_text(value(key), child_indent(col, where::after_key));
        out_.push_back('\n');
        out_.append(static_cast<std::size_t>(col), ' ');
        out_.push_back(':');
        if (is_block_collection(e->val)) {
          // After a complex key's ":" a collection starts on the same line, at the child column.
          int own = child_indent(col, where::after_key);
          out_.append(static_cast<std::size_t>(std::max(0, own - col - 2)), ' ');
          collection(e->val, own, where::after_dash);
        } else {
          node(e->val, col, where::after_key);
        }
        continue;
      }
      out_.push_back(':');
      node(e->val, col, where::after_key);
    }
  }

  // libyaml's check_simple_key: a key fits on one line and in 128 bytes.
  static bool is_simple_key(const std::string& k) {
    if (k.size() > 128) return false;
    return k.find_first_of("\r\n") == std::string::npos &&
           k.find("\xC2\x85") == std::string::npos && !has_unicode_break(k);
  }

  // `col` is where the lines of a literal block go.
  std::string scalar_text(const value& v, int col) const {
    switch (v.type()) {
      case value::kind::null:
        return "null";
      case value::kind::boolean:
        return v.as_bool() ? "true" : "false";
      case value::kind::integer:
        return std::to_string(v.as_int());
      case value::kind::floating: {
        std::string f = format_go_float(v.as_double());
        if (f == "+Inf") return ".inf";
        if (f == "-Inf") return "-.inf";
        if (f == "NaN") return ".nan";
        return f;
      }
      case value::kind::list:
        return "[]";
      case value::kind::map:
        return "{}";
      case value::kind::string:
        break;
    }
    const std::string& s = v.as_string();
    if (s.find('\n') != std::string::npos) {
      if (block_allowed(s)) return literal_block(s, col);
      return double_quoted(s);
    }
    if (!is_printable_byte_run(s)) return double_quoted(s);
    if (resolves_to_non_string(s)) return double_quoted(s);
    if (has_unicode_break(s)) return single_quoted(s, col);
    if (plain_allowed(s)) return s;
    return single_quoted(s);
  }

  std::string literal_block(const std::string& s, int col) const {
    std::string out = "|";
    if (s.front() == ' ' || s.front() == '\n') out += std::to_string(best_);
    std::size_t trailing = 0;
    while (trailing < s.size() && s[s.size() - 1 - trailing] == '\n') ++trailing;
    if (trailing == 0) {
      out.push_back('-');
    } else if (trailing > 1 || trailing == s.size()) {
      out.push_back('+');
    }
    std::string body = s.substr(0, s.size() - trailing);
    std::string pad(static_cast<std::size_t>(col), ' ');
    std::size_t start = 0;
    while (true) {
      auto nl = body.find('\n', start);
      std::string line =
          body.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      out.push_back('\n');
      if (!line.empty()) out += pad + line;
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
    for (std::size_t i = 1; i < trailing; ++i) out.push_back('\n');
    return out;
  }

  int best_;
  std::string out_;
};

}  // namespace

bool yaml_key_less(std::string_view a, std::string_view b) {
  bool digits = false;
  std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    auto ac = static_cast<unsigned char>(a[i]);
    auto bc = static_cast<unsigned char>(b[i]);
    if (ac == bc) {
      digits = is_digit(ac);
      continue;
    }
    bool al = is_letter(ac);
    bool bl = is_letter(bc);
    if (al && bl) return ac < bc;
    if (al || bl) return digits ? al : bl;
    // Compare runs of digits by their numeric value.
    std::int64_t an = 0;
    std::int64_t bn = 0;
    if (ac == '0' || bc == '0') {
      for (std::size_t j = i; j-- > 0 && is_digit(static_cast<unsigned char>(a[j]));) {
        if (a[j] != '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    std::size_t ai = i;
    std::size_t bi = i;
    for (;
         ai < a.size() && is_digit(static_cast<unsigned char>(a[ai])) && an < (INT64_MAX / 10 - 9);
         ++ai) {
      an = an * 10 + (a[ai] - '0');
    }
    for (;
         bi < b.size() && is_digit(static_cast<unsigned char>(b[bi])) && bn < (INT64_MAX / 10 - 9);
         ++bi) {
      bn = bn * 10 + (b[bi] - '0');
    }
    if (an != bn) return an < bn;
    if (ai != bi) return ai < bi;
    return ac < bc;
  }
  return a.size() < b.size();
}

std::string to_yaml(const value& v, yaml_options options) {
  return yaml_writer(options.indent).document(v);
}

}  // namespace kp::gotemplate
