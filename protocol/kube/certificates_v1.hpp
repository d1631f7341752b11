#pragma once
// certificates.k8s.io/v1 CertificateSigningRequest: kubelet client certificates during TLS
// bootstrap.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/kube/api_resource.hpp"
#include "protocol/kube/meta_types.hpp"

namespace kp::kube {

struct certificate_signing_request_spec {
  base64_bytes request;  // PEM CSR
  std::string signer_name;
  std::optional<std::int64_t> expiration_seconds;
  std::vector<std::string> usages;
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
  friend bool operator==(const certificate_signing_request_spec&,
                         const certificate_signing_request_spec&) = default;
};

struct certificate_signing_request_status {
  std::vector<condition> conditions;  // Approved, Denied, Failed
  base64_bytes certificate;           // PEM, once issued
  friend bool operator==(const certificate_signing_request_status&,
                         const certificate_signing_request_status&) = default;
};

struct certificate_signing_request {
  static constexpr api_resource resource{"certificates.k8s.io", "v1", "CertificateSigningRequest",
                                         "certificatesigningrequests", false};
  object_meta metadata;
  certificate_signing_request_spec spec;
  certificate_signing_request_status status;
  friend bool operator==(const certificate_signing_request&,
                         const certificate_signing_request&) = default;
};

}  // namespace kp::kube
