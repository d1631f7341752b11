#pragma once
// Certificates made at start-up with OpenSSL 3 (EC P-256): a CA, server certificates for
// loopback, client certificates (Kubernetes node credentials), and CSRs for simulated guests.
#include <chrono>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace kp::transport {

inline constexpr std::chrono::hours one_year{24 * 365};

struct key_pair_pem {
  std::string certificate_pem;
  std::string private_key_pem;
};

// A certificate authority that can issue server and client certificates.
class certificate_authority {
 public:
  // A fresh self-signed CA named `common_name`, valid for `lifetime`.
  static result<certificate_authority> create(const std::string& common_name,
                                              std::chrono::hours lifetime = one_year);
  // An existing CA from PEM.
  static result<certificate_authority> from_pem(const std::string& certificate_pem,
                                                const std::string& private_key_pem);

  const std::string& certificate_pem() const { return ca_.certificate_pem; }
  const std::string& private_key_pem() const { return ca_.private_key_pem; }

  // A server certificate whose SAN lists `dns_names` and `ip_addresses`; certificate_pem holds
  // the chain (server then CA) so servers can send it whole.
  result<key_pair_pem> issue_server(const std::vector<std::string>& dns_names,
                                    const std::vector<std::string>& ip_addresses,
                                    std::chrono::hours lifetime = one_year) const;
  // A client certificate with CN = common_name and O = each organization.
  result<key_pair_pem> issue_client(const std::string& common_name,
                                    const std::vector<std::string>& organizations,
                                    std::chrono::hours lifetime = one_year) const;
  // Signs a PEM certificate signing request for client authentication; returns the certificate.
  result<std::string> sign_client_csr(const std::string& csr_pem,
                                      std::chrono::hours lifetime) const;

 private:
  key_pair_pem ca_;
};

// A CSR (PEM) with a fresh key, as a kubelet makes one: CN and O from the arguments.
struct csr_with_key {
  std::string csr_pem;
  std::string private_key_pem;
};
result<csr_with_key> make_client_csr(const std::string& common_name,
                                     const std::vector<std::string>& organizations);

// The subject of a PEM CSR (to check what a requester asks for).
result<std::pair<std::string, std::vector<std::string>>> csr_subject(const std::string& csr_pem);

}  // namespace kp::transport
