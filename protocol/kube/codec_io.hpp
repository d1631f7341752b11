#pragma once
// Internal to protocol/kube: the machinery behind the JSON codecs. Each modelled struct has one
// `fields(io, value)` function listing its JSON fields once; a decoder and an encoder walk it, so
// decoding and encoding cannot disagree. The decoder records the first error with the field's
// path ("spec.containers[0].name: expected a string") and never throws.
#include <boost/json.hpp>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "core/text/base64.hpp"
#include "protocol/kube/meta_types.hpp"
#include "protocol/kube/shared_optional.hpp"
#include "protocol/kube/shared_vector.hpp"

namespace kp::kube::codec {

namespace bj = boost::json;

struct opts {
  bool required = false;
  bool number_as_text = false;  // quantities: accept 2 as well as "2"
  bool keep_empty = false;      // written even when empty (a schema requires the field)
};

// Where a value sits in the document, as a chain of nodes on the decoder's stack: rendered
// into text ("spec.containers[0].name") only when an error is reported, so successful decoding
// allocates nothing for paths.
struct path_node {
  const path_node* parent = nullptr;
  std::string_view key;  // a member name, or empty for an array element / the root
  std::size_t index = 0;
  bool is_index = false;

  path_node member(std::string_view k) const { return {this, k, 0, false}; }
  path_node element(std::size_t i) const { return {this, {}, i, true}; }

  std::string render() const {
    std::string parent_text = parent ? parent->render() : std::string();
    if (is_index) return parent_text + "[" + std::to_string(index) + "]";
    if (key.empty()) return parent_text;
    return parent_text.empty() ? std::string(key) : parent_text + "." + std::string(key);
  }
};

inline const char* kind_name(const bj::value& v) {
  switch (v.kind()) {
    case bj::kind::null:
      return "null";
    case bj::kind::bool_:
      return "a boolean";
    case bj::kind::int64:
    case bj::kind::uint64:
    case bj::kind::double_:
      return "a number";
    case bj::kind::string:
      return "a string";
    case bj::kind::array:
      return "an array";
    case bj::kind::object:
      return "an object";
  }
  return "a value";
}

class decoder {
 public:
  decoder(const bj::object& object, const path_node& path, kp::error& error)
      : object_(object), path_(path), error_(error) {}

  bool failed() const { return !error_.code.empty(); }
  bool has(std::string_view key) const {
    auto it = object_.find(key);
    return it != object_.end() && !it->value().is_null();
  }

  void fail(const path_node& path, const std::string& reason) {
    if (failed()) return;
    const auto where = path.render();
    error_ = kp::make_error("invalid_object",
                            (where.empty() ? std::string("object") : where) + ": " + reason);
  }

  template <class T>
  void operator()(std::string_view key, T& out, opts o = {}) {
    if (failed()) return;
    auto it = object_.find(key);
    if (it == object_.end() || it->value().is_null()) {
      if (o.required) fail(path_.member(key), "is required");
      return;
    }
    read_value(it->value(), out, path_.member(key), o);
  }

  // Fields of a nested object that the model flattens (e.g. spec.selector into the owner).
  template <class F>
  void nested(std::string_view key, F&& fn, opts o = {}) {
    if (failed()) return;
    auto it = object_.find(key);
    const auto here = path_.member(key);
    if (it == object_.end() || it->value().is_null()) {
      if (o.required) fail(here, "is required");
      return;
    }
    const auto* obj = it->value().if_object();
    if (!obj) return fail(here, std::string("expected an object, got ") + kind_name(it->value()));
    decoder sub(*obj, here, error_);
    fn(sub);
  }

 private:
  static std::string number_text(const bj::value& v) {
    if (const auto* i = v.if_int64()) return std::to_string(*i);
    if (const auto* u = v.if_uint64()) return std::to_string(*u);
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v.get_double());
    return std::string(buf, r.ptr);
  }
  void read_value(const bj::value& v, std::string& out, const path_node& path, opts o) {
    if (const auto* s = v.if_string()) {
      out.assign(s->data(), s->size());
    } else if (o.number_as_text && v.is_number()) {
      out = number_text(v);
    } else {
      fail(path, std::string("expected a string, got ") + kind_name(v));
    }
  }
  void read_value(const bj::value& v, bool& out, const path_node& path, opts) {
    if (const auto* b = v.if_bool()) {
      out = *b;
    } else {
      fail(path, std::string("expected a boolean, got ") + kind_name(v));
    }
  }
  void read_value(const bj::value& v, std::int64_t& out, const path_node& path, opts) {
    if (const auto* i = v.if_int64()) {
      out = *i;
    } else if (const auto* u = v.if_uint64()) {
      if (*u > static_cast<std::uint64_t>(INT64_MAX)) return fail(path, "integer out of range");
      out = static_cast<std::int64_t>(*u);
    } else if (const auto* d = v.if_double()) {
      if (!(*d >= -9.2e18 && *d <= 9.2e18) ||
          *d != static_cast<double>(static_cast<std::int64_t>(*d))) {
        return fail(path, "expected an integer");
      }
      out = static_cast<std::int64_t>(*d);
    } else {
      fail(path, std::string("expected an integer, got ") + kind_name(v));
    }
  }
  void read_value(const bj::value& v, int_or_string& out, const path_node& path, opts o) {
    if (v.is_string()) {
      out.is_int = false;
      read_value(v, out.string_value, path, o);
    } else {
      out.is_int = true;
      read_value(v, out.int_value, path, o);
    }
  }
  void read_value(const bj::value& v, base64_bytes& out, const path_node& path, opts o) {
    std::string text;
    read_value(v, text, path, o);
    if (failed()) return;
    auto bytes = kp::text::base64_decode(text);
    if (!bytes) return fail(path, "invalid base64");
    out.value = std::move(*bytes);
  }
  template <class T>
  void read_value(const bj::value& v, std::optional<T>& out, const path_node& path, opts o) {
    out.emplace();
    read_value(v, *out, path, o);
  }
  template <class T>
  void read_value(const bj::value& v, std::vector<T>& out, const path_node& path, opts o) {
    const auto* a = v.if_array();
    if (!a) return fail(path, std::string("expected an array, got ") + kind_name(v));
    out.clear();
    out.reserve(a->size());
    for (std::size_t i = 0; i < a->size() && !failed(); ++i) {
      out.emplace_back();
      read_value((*a)[i], out.back(), path.element(i), o);
    }
  }
  template <class T>
  void read_value(const bj::value& v, shared_optional<T>& out, const path_node& path, opts o) {
    T value{};
    read_value(v, value, path, o);
    out = std::move(value);
  }
  template <class T>
  void read_value(const bj::value& v, shared_vector<T>& out, const path_node& path, opts o) {
    std::vector<T> items;
    read_value(v, items, path, o);
    out = std::move(items);
  }
  template <class T>
  void read_value(const bj::value& v, std::map<std::string, T>& out, const path_node& path,
                  opts o) {
    const auto* obj = v.if_object();
    if (!obj) return fail(path, std::string("expected an object, got ") + kind_name(v));
    out.clear();
    for (const auto& kv : *obj) {
      if (failed()) return;
      T item{};
      if (!kv.value().is_null()) read_value(kv.value(), item, path.member(kv.key()), o);
      out.emplace(std::string(kv.key()), std::move(item));
    }
  }
  template <class T>
  void read_value(const bj::value& v, T& out, const path_node& path, opts) {
    const auto* obj = v.if_object();
    if (!obj) return fail(path, std::string("expected an object, got ") + kind_name(v));
    decoder sub(*obj, path, error_);
    fields(sub, out);
  }

  const bj::object& object_;
  const path_node& path_;
  kp::error& error_;
};

class encoder {
 public:
  explicit encoder(bj::object& object) : object_(object) {}

  template <class T>
  void operator()(std::string_view key, const T& value, opts o = {}) {
    bj::value v;
    if (write(value, v, o)) {
      object_[key] = std::move(v);
    } else if (o.keep_empty || o.required) {
      // Omitting an empty required (or always-written) field would write what the decoder or the
      // API server refuses ("name": "" read from the API server must go back as it came).
      write_zero(value, v);
      object_[key] = std::move(v);
    }
  }

  // Writes an empty object: a field whose presence is the information.
  void mark(std::string_view key) { object_[key] = bj::object(); }

  template <class F>
  void nested(std::string_view key, F&& fn, opts = {}) {
    bj::object sub;
    encoder e(sub);
    fn(e);
    if (!sub.empty()) object_[key] = std::move(sub);
  }

  // Writes `value` into `out`; false when it is empty and so omitted (Go's omitempty).
  static bool write(const std::string& value, bj::value& out, opts) {
    if (value.empty()) return false;
    out = bj::string(value);
    return true;
  }
  static bool write(bool value, bj::value& out, opts) {
    if (!value) return false;
    out = true;
    return true;
  }
  static bool write(std::int64_t value, bj::value& out, opts) {
    if (value == 0) return false;
    out = value;
    return true;
  }
  static bool write(const int_or_string& value, bj::value& out, opts) {
    if (value.is_int) {
      out = value.int_value;
    } else {
      out = bj::string(value.string_value);
    }
    return true;
  }
  static bool write(const base64_bytes& value, bj::value& out, opts) {
    if (value.value.empty()) return false;
    out = bj::string(kp::text::base64_encode(value.value));
    return true;
  }
  template <class T>
  static bool write(const std::optional<T>& value, bj::value& out, opts o) {
    if (!value) return false;
    if (!write(*value, out, o))
      write_zero(*value, out);  // a set optional is written even when zero
    return true;
  }
  template <class T>
  static bool write(const std::vector<T>& value, bj::value& out, opts o) {
    if (value.empty()) return false;
    bj::array a;
    a.reserve(value.size());
    for (const auto& item : value) {
      bj::value v;
      if (!write(item, v, o)) write_zero(item, v);
      a.push_back(std::move(v));
    }
    out = std::move(a);
    return true;
  }
  template <class T>
  static bool write(const shared_optional<T>& value, bj::value& out, opts o) {
    if (!value) return false;
    if (!write(*value, out, o))
      write_zero(*value, out);  // a set optional is written even when zero
    return true;
  }
  template <class T>
  static bool write(const shared_vector<T>& value, bj::value& out, opts o) {
    return write(value.items(), out, o);
  }
  template <class T>
  static bool write(const std::map<std::string, T>& value, bj::value& out, opts o) {
    if (value.empty()) return false;
    bj::object obj;
    for (const auto& [k, item] : value) {
      bj::value v;
      if (!write(item, v, o)) write_zero(item, v);
      obj[k] = std::move(v);
    }
    out = std::move(obj);
    return true;
  }
  template <class T>
  static bool write(const T& value, bj::value& out, opts) {
    bj::object obj;
    encoder e(obj);
    fields(e, const_cast<T&>(value));  // the encoder only reads
    if (obj.empty()) return false;
    out = std::move(obj);
    return true;
  }

 private:
  static void write_zero(const std::string&, bj::value& out) { out = bj::string(); }
  static void write_zero(bool, bj::value& out) { out = false; }
  static void write_zero(std::int64_t, bj::value& out) { out = std::int64_t{0}; }
  static void write_zero(const base64_bytes&, bj::value& out) { out = bj::string(); }
  template <class T>
  static void write_zero(const std::vector<T>&, bj::value& out) {
    out = bj::array();
  }
  template <class T>
  static void write_zero(const shared_vector<T>&, bj::value& out) {
    out = bj::array();
  }
  template <class T>
  static void write_zero(const T&, bj::value& out) {
    out = bj::object();
  }

  bj::object& object_;
};

// Decodes a top-level object; errors name the kind and the field path.
template <class T>
kp::result<T> decode_object(const bj::value& v, std::string_view kind) {
  kp::error err;
  T out{};
  const auto* obj = v.if_object();
  if (!obj)
    return kp::make_error("invalid_object",
                          std::string(kind) + ": expected an object, got " + kind_name(v));
  const path_node root;
  decoder d(*obj, root, err);
  fields(d, out);
  if (!err.code.empty()) {
    err.message = std::string(kind) + " " + err.message;
    return err;
  }
  return out;
}

template <class T>
bj::object encode_object(const T& value, std::string_view api_version, std::string_view kind) {
  bj::object obj;
  obj["apiVersion"] = bj::string(api_version);
  obj["kind"] = bj::string(kind);
  encoder e(obj);
  fields(e, const_cast<T&>(value));
  return obj;
}

// Parses JSON text without exceptions, into `storage` (a monotonic arena for documents that are
// decoded into our own structs at once: about 3x faster than the default allocator).
inline kp::result<bj::value> parse_json(std::string_view text, bj::storage_ptr storage = {}) {
  boost::system::error_code ec;
  bj::value v = bj::parse(text, ec, std::move(storage));
  if (ec) return kp::make_error("invalid_json", "malformed JSON: " + ec.message());
  return v;
}

}  // namespace kp::kube::codec
