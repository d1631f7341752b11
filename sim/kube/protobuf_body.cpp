#include "sim/kube/protobuf_body.hpp"

#include <boost/json/array.hpp>
#include <boost/json/string.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

enum class kind { string, bytes, int32, int64, boolean, message, quantity, time, int_or_string };

struct field_spec {
  int number;
  const char* json;
  kind type;
  const char* message = nullptr;  // for kind::message
  bool repeated = false;
  bool map = false;        // map<string, type>
  bool keep_zero = false;  // a pointer in Go: present even when zero
};

using message_spec = std::vector<field_spec>;

field_spec str(int n, const char* j, bool keep = false) {
  return {n, j, kind::string, nullptr, false, false, keep};
}
field_spec i32(int n, const char* j, bool keep = false) {
  return {n, j, kind::int32, nullptr, false, false, keep};
}
field_spec i64(int n, const char* j, bool keep = false) {
  return {n, j, kind::int64, nullptr, false, false, keep};
}
field_spec flag(int n, const char* j, bool keep = false) {
  return {n, j, kind::boolean, nullptr, false, false, keep};
}
field_spec msg(int n, const char* j, const char* m) {
  return {n, j, kind::message, m};
}
field_spec list(int n, const char* j, const char* m) {
  return {n, j, kind::message, m, true};
}
field_spec strings(int n, const char* j) {
  return {n, j, kind::string, nullptr, true};
}
field_spec string_map(int n, const char* j) {
  return {n, j, kind::string, nullptr, false, true};
}
field_spec typed(int n, const char* j, kind k, bool map = false) {
  return {n, j, k, nullptr, false, map};
}

// Field numbers from k8s.io/api and k8s.io/apimachinery generated.proto (v0.32).
const std::map<std::string, message_spec>& messages() {
  static const std::map<std::string, message_spec> table = {
      {"ObjectMeta",
       {str(1, "name"), str(2, "generateName"), str(3, "namespace"), str(4, "selfLink"),
        str(5, "uid"), str(6, "resourceVersion"), i64(7, "generation"),
        typed(8, "creationTimestamp", kind::time), typed(9, "deletionTimestamp", kind::time),
        i64(10, "deletionGracePeriodSeconds", true), string_map(11, "labels"),
        string_map(12, "annotations"), list(13, "ownerReferences", "OwnerReference"),
        strings(14, "finalizers")}},
      {"OwnerReference",
       {str(1, "kind"), str(3, "name"), str(4, "uid"), str(5, "apiVersion"),
        flag(6, "controller", true), flag(7, "blockOwnerDeletion", true)}},
      {"LabelSelector",
       {string_map(1, "matchLabels"), list(2, "matchExpressions", "LabelSelectorRequirement")}},
      {"LabelSelectorRequirement", {str(1, "key"), str(2, "operator"), strings(3, "values")}},
      {"Namespace",
       {msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "NamespaceSpec"),
        msg(3, "status", "NamespaceStatus")}},
      {"NamespaceSpec", {strings(1, "finalizers")}},
      {"NamespaceStatus", {str(1, "phase")}},
      {"Secret",
       {msg(1, "metadata", "ObjectMeta"), typed(2, "data", kind::bytes, true), str(3, "type"),
        string_map(4, "stringData"), flag(5, "immutable", true)}},
      {"ConfigMap",
       {msg(1, "metadata", "ObjectMeta"), string_map(2, "data"),
        typed(3, "binaryData", kind::bytes, true), flag(4, "immutable", true)}},
      {"Deployment",
       {msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "DeploymentSpec"),
        msg(3, "status", "DeploymentStatus")}},
      {"DeploymentSpec",
       {i32(1, "replicas", true), msg(2, "selector", "LabelSelector"),
        msg(3, "template", "PodTemplateSpec"), msg(4, "strategy", "DeploymentStrategy"),
        i32(5, "minReadySeconds"), i32(6, "revisionHistoryLimit", true), flag(7, "paused"),
        i32(9, "progressDeadlineSeconds", true)}},
      {"DeploymentStrategy", {str(1, "type"), msg(2, "rollingUpdate", "RollingUpdateDeployment")}},
      {"RollingUpdateDeployment",
       {typed(1, "maxUnavailable", kind::int_or_string),
        typed(2, "maxSurge", kind::int_or_string)}},
      {"DeploymentStatus",
       {i64(1, "observedGeneration"), i32(2, "replicas"), i32(3, "updatedReplicas"),
        i32(4, "availableReplicas"), i32(5, "unavailableReplicas"), i32(7, "readyReplicas"),
        i32(8, "collisionCount", true), i32(9, "terminatingReplicas", true)}},
      {"Job",
       {msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "JobSpec"),
        msg(3, "status", "JobStatus")}},
      {"JobSpec",
       {i32(1, "parallelism", true), i32(2, "completions", true),
        i64(3, "activeDeadlineSeconds", true), msg(4, "selector", "LabelSelector"),
        flag(5, "manualSelector", true), msg(6, "template", "PodTemplateSpec"),
        i32(7, "backoffLimit", true), i32(8, "ttlSecondsAfterFinished", true),
        str(9, "completionMode", true), flag(10, "suspend", true),
        i32(12, "backoffLimitPerIndex", true), i32(13, "maxFailedIndexes", true),
        str(14, "podReplacementPolicy", true), str(15, "managedBy", true)}},
      {"JobStatus",
       {typed(2, "startTime", kind::time), typed(3, "completionTime", kind::time), i32(4, "active"),
        i32(5, "succeeded"), i32(6, "failed"), str(7, "completedIndexes"), i32(9, "ready", true),
        str(10, "failedIndexes", true), i32(11, "terminating", true)}},
      {"PodTemplateSpec", {msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "PodSpec")}},
      {"PodSpec",
       {list(2, "containers", "Container"),
        str(3, "restartPolicy"),
        i64(4, "terminationGracePeriodSeconds", true),
        i64(5, "activeDeadlineSeconds", true),
        str(6, "dnsPolicy"),
        string_map(7, "nodeSelector"),
        str(8, "serviceAccountName"),
        str(9, "serviceAccount"),
        str(10, "nodeName"),
        flag(11, "hostNetwork"),
        flag(12, "hostPID"),
        flag(13, "hostIPC"),
        list(15, "imagePullSecrets", "LocalObjectReference"),
        str(16, "hostname"),
        str(17, "subdomain"),
        str(19, "schedulerName"),
        list(20, "initContainers", "Container"),
        flag(21, "automountServiceAccountToken", true),
        list(22, "tolerations", "Toleration"),
        str(24, "priorityClassName"),
        i32(25, "priority", true),
        flag(27, "shareProcessNamespace", true),
        str(29, "runtimeClassName", true),
        flag(30, "enableServiceLinks", true),
        str(31, "preemptionPolicy", true),
        flag(35, "setHostnameAsFQDN", true),
        flag(37, "hostUsers", true)}},
      {"LocalObjectReference", {str(1, "name")}},
      {"Toleration",
       {str(1, "key"), str(2, "operator"), str(3, "value"), str(4, "effect"),
        i64(5, "tolerationSeconds", true)}},
      {"Container",
       {str(1, "name"), str(2, "image"), strings(3, "command"), strings(4, "args"),
        str(5, "workingDir"), list(6, "ports", "ContainerPort"), list(7, "env", "EnvVar"),
        msg(8, "resources", "ResourceRequirements"), list(9, "volumeMounts", "VolumeMount"),
        str(13, "terminationMessagePath"), str(14, "imagePullPolicy"), flag(16, "stdin"),
        flag(17, "stdinOnce"), flag(18, "tty"), str(20, "terminationMessagePolicy"),
        str(24, "restartPolicy", true)}},
      {"ContainerPort",
       {str(1, "name"), i32(2, "hostPort"), i32(3, "containerPort"), str(4, "protocol"),
        str(5, "hostIP")}},
      {"EnvVar", {str(1, "name"), str(2, "value")}},
      {"ResourceRequirements",
       {typed(1, "limits", kind::quantity, true), typed(2, "requests", kind::quantity, true)}},
      {"VolumeMount",
       {str(1, "name"), flag(2, "readOnly"), str(3, "mountPath"), str(4, "subPath"),
        str(5, "mountPropagation", true), str(6, "subPathExpr")}},
  };
  return table;
}

// The message types of the kinds accepted at the top level.
const char* root_message(std::string_view kind_name) {
  for (const char* k : {"Namespace", "Secret", "ConfigMap", "Deployment", "Job"})
    if (kind_name == k) return k;
  return nullptr;
}

api_error unsupported(const std::string& why) {
  auto e = unsupported_media_type(std::string(protobuf_content_type));
  e.message += ": kube-sim decodes protobuf only for what kubectl sends that way (" + why +
               "); send application/json instead";
  return e;
}

class reader {
 public:
  explicit reader(std::string_view data) : d_(data) {}
  bool done() const { return i_ >= d_.size(); }

  bool varint(std::uint64_t& out) {
    out = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (i_ >= d_.size()) return false;
      auto b = static_cast<unsigned char>(d_[i_++]);
      out |= static_cast<std::uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  bool bytes(std::string_view& out) {
    std::uint64_t n = 0;
    if (!varint(n) || n > d_.size() - i_) return false;
    out = d_.substr(i_, n);
    i_ += n;
    return true;
  }
  bool skip(int wire_type) {
    std::uint64_t v;
    std::string_view s;
    switch (wire_type) {
      case 0:
        return varint(v);
      case 1:
        return advance(8);
      case 2:
        return bytes(s);
      case 5:
        return advance(4);
      default:
        return false;
    }
  }

 private:
  bool advance(std::size_t n) {
    if (n > d_.size() - i_) return false;
    i_ += n;
    return true;
  }
  std::string_view d_;
  std::size_t i_ = 0;
};

class decoder {
 public:
  api_result<json::object> message(std::string_view data, const std::string& name, int depth) {
    if (depth > 32) return unsupported("nesting too deep");
    const auto& table = messages();
    auto spec = table.find(name);
    if (spec == table.end()) return unsupported("message " + name);
    json::object out;
    reader r(data);
    while (!r.done()) {
      std::uint64_t tag = 0;
      if (!r.varint(tag)) return malformed(name);
      int number = static_cast<int>(tag >> 3);
      int wire = static_cast<int>(tag & 7);
      const field_spec* f = nullptr;
      for (const auto& candidate : spec->second)
        if (candidate.number == number) f = &candidate;
      if (!f) return unsupported("field " + std::to_string(number) + " of " + name);
      if (auto s = field(r, *f, wire, out, depth); !s) return s.error();
    }
    return out;
  }

 private:
  static api_error malformed(const std::string& name) {
    return bad_request("error decoding body: malformed protobuf in " + name);
  }

  api_result<json::value> scalar(reader& r, const field_spec& f, int wire, int depth) {
    std::uint64_t v = 0;
    std::string_view s;
    switch (f.type) {
      case kind::int32:
      case kind::int64:
        if (wire != 0 || !r.varint(v)) return malformed(f.json);
        if (f.type == kind::int32) return json::value(static_cast<std::int32_t>(v));
        return json::value(static_cast<std::int64_t>(v));
      case kind::boolean:
        if (wire != 0 || !r.varint(v)) return malformed(f.json);
        return json::value(v != 0);
      case kind::string:
        if (wire != 2 || !r.bytes(s)) return malformed(f.json);
        return json::value(json::string(s));
      case kind::bytes:
        if (wire != 2 || !r.bytes(s)) return malformed(f.json);
        return json::value(json::string(base64_encode(s)));
      case kind::message: {
        if (wire != 2 || !r.bytes(s)) return malformed(f.json);
        auto m = message(s, f.message, depth + 1);
        if (!m) return m.error();
        return json::value(std::move(m.value()));
      }
      case kind::quantity: {
        // resource.Quantity {string = 1}
        if (wire != 2 || !r.bytes(s)) return malformed(f.json);
        reader q(s);
        std::string text;
        while (!q.done()) {
          std::uint64_t tag = 0;
          std::string_view t;
          if (!q.varint(tag)) return malformed(f.json);
          if (tag == ((1 << 3) | 2)) {
            if (!q.bytes(t)) return malformed(f.json);
            text = std::string(t);
          } else if (!q.skip(static_cast<int>(tag & 7))) {
            return malformed(f.json);
          }
        }
        return json::value(json::string(text));
      }
      case kind::time: {
        // metav1.Time {int64 seconds = 1, int32 nanos = 2}; the zero time is null
        if (wire != 2 || !r.bytes(s)) return malformed(f.json);
        reader t(s);
        std::int64_t seconds = 0;
        while (!t.done()) {
          std::uint64_t tag = 0, x = 0;
          if (!t.varint(tag)) return malformed(f.json);
          if ((tag & 7) != 0 || !t.varint(x)) return malformed(f.json);
          if ((tag >> 3) == 1) seconds = static_cast<std::int64_t>(x);
        }
        if (seconds == 0) return json::value(nullptr);
        return json::value(json::string(
            format_time(std::chrono::system_clock::time_point(std::chrono::seconds(seconds)))));
      }
      case kind::int_or_string: {
        // intstr.IntOrString {int64 type = 1, int32 intVal = 2, string strVal = 3}
        if (wire != 2 || !r.bytes(s)) return malformed(f.json);
        reader q(s);
        std::uint64_t type = 0, int_val = 0;
        std::string str_val;
        while (!q.done()) {
          std::uint64_t tag = 0;
          std::string_view t;
          if (!q.varint(tag)) return malformed(f.json);
          auto n = tag >> 3;
          if (n == 1 && !q.varint(type)) return malformed(f.json);
          if (n == 2 && !q.varint(int_val)) return malformed(f.json);
          if (n == 3) {
            if (!q.bytes(t)) return malformed(f.json);
            str_val = std::string(t);
          }
          if (n < 1 || n > 3) return malformed(f.json);
        }
        if (type == 1) return json::value(json::string(str_val));
        return json::value(static_cast<std::int32_t>(int_val));
      }
    }
    return malformed(f.json);
  }

  static bool is_zero(const json::value& v) {
    return v.is_null() || (v.is_string() && v.get_string().empty()) ||
           (v.is_int64() && v.get_int64() == 0) || (v.is_bool() && !v.get_bool());
  }

  api_result<api_ok> field(reader& r, const field_spec& f, int wire, json::object& out, int depth) {
    if (f.map) {
      // map<string, T>: repeated entries {key = 1, value = 2}
      std::string_view entry;
      if (wire != 2 || !r.bytes(entry)) return malformed(f.json);
      reader e(entry);
      std::string key;
      json::value value = f.type == kind::string || f.type == kind::bytes
                              ? json::value(json::string())
                              : json::value(nullptr);
      while (!e.done()) {
        std::uint64_t tag = 0;
        if (!e.varint(tag)) return malformed(f.json);
        if ((tag >> 3) == 1) {
          std::string_view k;
          if ((tag & 7) != 2 || !e.bytes(k)) return malformed(f.json);
          key = std::string(k);
        } else if ((tag >> 3) == 2) {
          auto v = scalar(e, f, static_cast<int>(tag & 7), depth);
          if (!v) return v.error();
          value = std::move(v.value());
        } else if (!e.skip(static_cast<int>(tag & 7))) {
          return malformed(f.json);
        }
      }
      ensure_object(out, f.json)[key] = std::move(value);
      return api_ok{};
    }
    auto v = scalar(r, f, wire, depth);
    if (!v) return v.error();
    if (f.repeated) {
      ensure_array(out, f.json).push_back(std::move(v.value()));
      return api_ok{};
    }
    // Go's encoding/json omits zero values of non-pointer fields (omitempty); pointers keep them.
    if (!f.keep_zero && is_zero(v.value())) return api_ok{};
    out[f.json] = std::move(v.value());
    return api_ok{};
  }
};

}  // namespace

api_result<json::object> decode_protobuf_object(std::string_view body) {
  static constexpr std::string_view magic("k8s\0", 4);
  if (body.substr(0, 4) != magic)
    return bad_request("error decoding body: the protobuf body does not start with the k8s magic");
  reader envelope(body.substr(4));
  std::string api_version, kind_name, content_encoding;
  std::string_view raw;
  while (!envelope.done()) {
    std::uint64_t tag = 0;
    if (!envelope.varint(tag)) return bad_request("error decoding body: malformed envelope");
    auto n = tag >> 3;
    std::string_view bytes;
    if ((tag & 7) != 2 || !envelope.bytes(bytes))
      return bad_request("error decoding body: malformed envelope");
    if (n == 1) {
      reader type_meta(bytes);
      while (!type_meta.done()) {
        std::uint64_t t = 0;
        std::string_view s;
        if (!type_meta.varint(t) || (t & 7) != 2 || !type_meta.bytes(s))
          return bad_request("error decoding body: malformed type meta");
        if ((t >> 3) == 1) api_version = std::string(s);
        if ((t >> 3) == 2) kind_name = std::string(s);
      }
    } else if (n == 2) {
      raw = bytes;
    } else if (n == 3) {
      content_encoding = std::string(bytes);
    }
  }
  if (!content_encoding.empty()) return unsupported("content encoding " + content_encoding);
  const char* root = root_message(kind_name);
  if (!root) return unsupported("kind " + (kind_name.empty() ? "<none>" : kind_name));
  auto object = decoder().message(raw, root, 0);
  if (!object) return object.error();
  auto& o = object.value();
  json::object out{{"apiVersion", api_version}, {"kind", kind_name}};
  for (auto& kv : o) out[kv.key()] = std::move(kv.value());
  return out;
}

}  // namespace kp::sim::kube
