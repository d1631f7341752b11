#pragma once
// The data a template sees: what Go's text/template gets as interface{} values. Strings, lists
// and maps share their contents, so copying a value is cheap (as a Go string header is) however
// large the string: a template that reads a 10 MB variable in a loop copies no bytes. A builder
// call on a shared list or map copies first; strings never change.
//
// Three map flavours mirror the Go types templates are written against:
// - map():        map[string]interface{}
// - string_map(): map[string]string
// - record():     a Go struct; fields keep their declaration order for toYaml/toJson, carry
//                 their YAML/JSON names and omitempty, and a missing field is an error.
// A missing map key yields missing() (Go's invalid reflect.Value, printed "<no value>"), which
// differs from a nil value (printed "<nil>"). Plain maps keep their keys in byte order, as Go
// sorts map keys when ranging and printing. A list is []interface{} unless built by strings()
// (or split), which makes a []string: Go functions taking []string accept only the latter.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kp::gotemplate {

class value;

// How a record field is named in YAML and JSON output (Go struct tags).
struct field_options {
  std::string yaml_name;    // empty: the lowercased field name, as yaml.v3 does without a tag
  std::string json_name;    // empty: the field name, as encoding/json does without a tag
  bool omit_empty = false;  // `omitempty` on both tags
  // The Go field is a pointer (*bool, *int32, ...): omitempty then omits only a nil (null) value,
  // so an explicit false or 0 is still written.
  bool pointer = false;
  // Set when the field's yaml and json tags disagree on `omitempty` (else omit_empty holds).
  std::optional<bool> yaml_omit_empty;
  std::optional<bool> json_omit_empty;
};

class value {
 public:
  enum class kind { null, boolean, integer, floating, string, list, map };
  enum class map_flavour { any_map, string_map, record };

  struct entry;
  struct map_data;
  using list_data = std::vector<value>;

  value() = default;
  value(std::nullptr_t) {}  // NOLINT: implicit by design, as are the scalar constructors
  value(bool b) : v_(b) {}  // NOLINT
  value(int i) : v_(static_cast<std::int64_t>(i)) {}                               // NOLINT
  value(long i) : v_(static_cast<std::int64_t>(i)) {}                              // NOLINT
  value(long long i) : v_(static_cast<std::int64_t>(i)) {}                         // NOLINT
  value(unsigned i) : v_(static_cast<std::int64_t>(i)) {}                          // NOLINT
  value(unsigned long i) : v_(static_cast<std::int64_t>(i)) {}                     // NOLINT
  value(unsigned long long i) : v_(static_cast<std::int64_t>(i)) {}                // NOLINT
  value(double d) : v_(d) {}                                                       // NOLINT
  value(const char* s) : value(std::string(s)) {}                                  // NOLINT
  value(std::string s) : v_(std::make_shared<const std::string>(std::move(s))) {}  // NOLINT
  value(std::string_view s) : value(std::string(s)) {}                             // NOLINT
  value(list_data items);                                                          // NOLINT

  // Builders.
  static value list(std::initializer_list<value> items = {});
  static value strings(const std::vector<std::string>& items);
  static value map(std::initializer_list<std::pair<std::string, value>> entries = {});
  static value string_map(std::initializer_list<std::pair<std::string, std::string>> entries = {});
  // A map[string]string from a std::map, e.g. a Secret's data as .Values.
  static value from_string_map(const std::map<std::string, std::string>& entries);
  static value record();
  // What a missing map key yields: Go's invalid value. type() reports it as null.
  static value missing();
  // A nil pointer (a *bool or *int32 field): null, but printed "<nil>" as Go does.
  static value nil_pointer();
  // A non-nil pointer to a scalar (a *bool or *int32 field): printed, emitted and read through
  // as its target, but always true and never empty, and not comparable with eq to a non-pointer.
  static value pointer_to(value target);

  // Adds or replaces a key of a map (any flavour; a record keeps the field's place).
  value& set(std::string key, value v);
  // Adds a record field with its output names (also accepted on maps: options are kept).
  value& field(std::string name, value v, field_options options = {});
  value& push_back(value v);

  kind type() const { return is_missing() ? kind::null : static_cast<kind>(v_.index()); }
  bool is_null() const { return type() == kind::null; }
  bool is_missing() const { return std::holds_alternative<missing_tag>(v_); }
  bool is_nil_pointer() const { return is_null() && !is_missing() && nil_pointer_; }
  bool is_pointer() const { return pointer_; }
  // A []string (rather than []interface{}).
  bool is_string_list() const { return is_list() && string_list_; }
  bool is_bool() const { return type() == kind::boolean; }
  bool is_int() const { return type() == kind::integer; }
  bool is_double() const { return type() == kind::floating; }
  bool is_number() const { return is_int() || is_double(); }
  bool is_string() const { return type() == kind::string; }
  bool is_list() const { return type() == kind::list; }
  bool is_map() const { return type() == kind::map; }
  bool is_record() const;

  bool as_bool() const { return std::get<bool>(v_); }
  std::int64_t as_int() const { return std::get<std::int64_t>(v_); }
  double as_double() const { return std::get<double>(v_); }
  const std::string& as_string() const { return *std::get<shared_string>(v_); }
  const list_data& as_list() const;
  const map_data& as_map() const;

  // The value at a map key or record field, or nullptr.
  const value* find(std::string_view key) const;
  // Elements of a list or entries of a map.
  std::size_t size() const;

  // Go's truth for if/with/and/or: false, 0, "", nil and empty list/map are false; structs true.
  bool truthy() const;
  // The provider's empty, Go's reflect.IsZero: nil, false, 0, ""; a struct whose fields all are;
  // never a list or map (ours are never nil slices or maps).
  bool empty() const;
  // The Go type name used in error messages: "string", "int", "float64", "[]interface {}", ...
  // (a nil value is "interface {}", the type of a nil held in an interface{} map or list)
  std::string type_name() const;

  friend bool operator==(const value& a, const value& b);

 private:
  struct missing_tag {
    bool operator==(const missing_tag&) const = default;
  };
  map_data& mutable_map();

  using shared_string = std::shared_ptr<const std::string>;
  std::variant<std::monostate, bool, std::int64_t, double, shared_string,
               std::shared_ptr<list_data>, std::shared_ptr<map_data>, missing_tag>
      v_;
  bool string_list_ = false;
  bool nil_pointer_ = false;
  bool pointer_ = false;  // a non-nil pointer to this value
};

struct value::entry {
  std::string key;
  value val;
  std::string yaml_key;
  std::string json_key;
  bool yaml_omit_empty = false;
  bool json_omit_empty = false;
  bool pointer = false;
};

struct value::map_data {
  map_flavour flavour = map_flavour::any_map;
  std::vector<entry> entries;  // any_map/string_map: sorted by key; record: declaration order
};

}  // namespace kp::gotemplate
