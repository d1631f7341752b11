#pragma once
// Small helpers for walking Kubernetes objects held as Boost.JSON values, plus the encodings the
// API uses around them (RFC 3339 times, UIDs, base64, query strings).
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/text/base64.hpp"

namespace kp::sim::kube {

using sys_time = std::chrono::system_clock::time_point;

// The value at a path of object keys, or nullptr when any step is missing or not an object.
const boost::json::value* find_path(const boost::json::object& root,
                                    std::initializer_list<std::string_view> path);
// The string at a path, or "" when missing or not a string.
std::string_view string_at(const boost::json::object& root,
                           std::initializer_list<std::string_view> path);
const boost::json::object* object_at(const boost::json::object& root,
                                     std::initializer_list<std::string_view> path);
const boost::json::array* array_at(const boost::json::object& root,
                                   std::initializer_list<std::string_view> path);
// The object under `key`, created (replacing a non-object) when absent.
boost::json::object& ensure_object(boost::json::object& parent, std::string_view key);
boost::json::array& ensure_array(boost::json::object& parent, std::string_view key);

// metadata shortcuts
std::string_view meta_name(const boost::json::object& o);
std::string_view meta_namespace(const boost::json::object& o);
std::string_view meta_uid(const boost::json::object& o);
bool has_deletion_timestamp(const boost::json::object& o);

std::string format_time(sys_time t);        // 2025-01-01T10:00:00Z
std::string format_micro_time(sys_time t);  // 2025-01-01T10:00:00.123456Z
std::optional<sys_time> parse_time(std::string_view text);

std::string make_uid();
using text::base64_decode;  // the one base64 (core/text), by the name the simulator uses
using text::base64_encode;
std::string url_decode(std::string_view text);
std::multimap<std::string, std::string> parse_query(std::string_view query);
// Whole decimal text as a number (query parameters, resourceVersions), or nullopt: no sign for
// unsigned, nothing before or after the digits.
std::optional<std::int64_t> parse_int64(std::string_view text);
std::optional<std::uint64_t> parse_uint64(std::string_view text);
// int64 from a JSON number (integer or integral double); nullopt otherwise.
std::optional<std::int64_t> as_int(const boost::json::value& v);

}  // namespace kp::sim::kube
