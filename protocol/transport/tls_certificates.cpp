#include "protocol/transport/tls_certificates.hpp"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

#include "protocol/transport/tls_context.hpp"

namespace kp::transport {

namespace {

template <class T, void (*Free)(T*)>
struct openssl_deleter {
  void operator()(T* p) const { Free(p); }
};
using pkey_ptr = std::unique_ptr<EVP_PKEY, openssl_deleter<EVP_PKEY, EVP_PKEY_free>>;
using x509_ptr = std::unique_ptr<X509, openssl_deleter<X509, X509_free>>;
using req_ptr = std::unique_ptr<X509_REQ, openssl_deleter<X509_REQ, X509_REQ_free>>;
using bio_ptr = std::unique_ptr<BIO, openssl_deleter<BIO, BIO_free_all>>;
using ext_ptr =
    std::unique_ptr<X509_EXTENSION, openssl_deleter<X509_EXTENSION, X509_EXTENSION_free>>;
using bn_ptr = std::unique_ptr<BIGNUM, openssl_deleter<BIGNUM, BN_free>>;

kp::error cert_error(const std::string& what) {
  return make_error("certificate", detail::openssl_error(what));
}

pkey_ptr new_key() {
  return pkey_ptr(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
}

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  long length = BIO_get_mem_data(bio, &data);
  return length > 0 ? std::string(data, static_cast<std::size_t>(length)) : std::string();
}

std::string key_pem(EVP_PKEY* key) {
  bio_ptr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
    return {};
  return bio_text(bio.get());
}

std::string cert_pem(X509* cert) {
  bio_ptr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return {};
  return bio_text(bio.get());
}

bio_ptr read_bio(const std::string& pem) {
  return bio_ptr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

bool add_name_entry(X509_NAME* name, const char* field, const std::string& value) {
  return X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8,
                                    reinterpret_cast<const unsigned char*>(value.c_str()), -1, -1,
                                    0) == 1;
}

bool add_ext(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  ext_ptr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

struct extension {
  int nid;
  std::string value;
};

// A v3 certificate for `subject` and `public_key`, signed by issuer (or self-signed when
// issuer is null), with the extensions in order.
result<x509_ptr> build_certificate(const X509_NAME* subject, EVP_PKEY* public_key, X509* issuer,
                                   EVP_PKEY* issuer_key, std::chrono::hours lifetime,
                                   const std::vector<extension>& extensions) {
  x509_ptr cert(X509_new());
  bn_ptr serial(BN_new());
  if (!cert || !serial) return cert_error("allocating a certificate");
  if (X509_set_version(cert.get(), X509_VERSION_3) != 1 ||
      BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) == nullptr)
    return cert_error("certificate serial");
  // Back-dated a little so a peer whose clock is slightly behind still accepts it.
  const long seconds =
      static_cast<long>(std::chrono::duration_cast<std::chrono::seconds>(lifetime).count());
  if (X509_gmtime_adj(X509_getm_notBefore(cert.get()), -300) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(cert.get()), seconds) == nullptr)
    return cert_error("certificate validity");
  if (X509_set_subject_name(cert.get(), subject) != 1 ||
      X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : subject) != 1 ||
      X509_set_pubkey(cert.get(), public_key) != 1)
    return cert_error("certificate subject");
  X509* signer = issuer ? issuer : cert.get();
  for (const auto& ext : extensions) {
    if (!add_ext(cert.get(), signer, ext.nid, ext.value))
      return cert_error("certificate extension " + ext.value);
  }
  if (X509_sign(cert.get(), issuer_key, EVP_sha256()) <= 0)
    return cert_error("signing a certificate");
  return cert;
}

struct parsed_ca {
  x509_ptr cert;
  pkey_ptr key;
};

result<parsed_ca> parse_ca(const key_pair_pem& pem) {
  auto cert_bio = read_bio(pem.certificate_pem);
  auto key_bio = read_bio(pem.private_key_pem);
  parsed_ca ca{x509_ptr(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr)),
               pkey_ptr(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr))};
  if (!ca.cert) return cert_error("CA certificate PEM");
  if (!ca.key) return cert_error("CA private key PEM");
  if (X509_check_private_key(ca.cert.get(), ca.key.get()) != 1)
    return cert_error("CA private key does not match the CA certificate");
  return ca;
}

result<x509_ptr> issue_client_for(const parsed_ca& ca, const X509_NAME* subject, EVP_PKEY* key,
                                  std::chrono::hours lifetime) {
  return build_certificate(subject, key, ca.cert.get(), ca.key.get(), lifetime,
                           {{NID_basic_constraints, "critical,CA:FALSE"},
                            {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
                            {NID_ext_key_usage, "clientAuth"},
                            {NID_subject_key_identifier, "hash"},
                            {NID_authority_key_identifier, "keyid:always"}});
}

using name_ptr = std::unique_ptr<X509_NAME, openssl_deleter<X509_NAME, X509_NAME_free>>;

result<name_ptr> subject_name(const std::string& common_name,
                              const std::vector<std::string>& organizations) {
  name_ptr name(X509_NAME_new());
  if (!name) return cert_error("allocating a name");
  // O before CN, the order Kubernetes and openssl use.
  for (const auto& o : organizations)
    if (!add_name_entry(name.get(), "O", o)) return cert_error("organization '" + o + "'");
  if (!common_name.empty() && !add_name_entry(name.get(), "CN", common_name))
    return cert_error("common name '" + common_name + "'");
  return name;
}

}  // namespace

result<certificate_authority> certificate_authority::create(const std::string& common_name,
                                                            std::chrono::hours lifetime) {
  auto key = new_key();
  if (!key) return cert_error("generating the CA key");
  auto name = subject_name(common_name, {});
  if (!name) return name.error();
  auto cert = build_certificate(name->get(), key.get(), nullptr, key.get(), lifetime,
                                {{NID_basic_constraints, "critical,CA:TRUE"},
                                 {NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"},
                                 {NID_subject_key_identifier, "hash"}});
  if (!cert) return cert.error();
  certificate_authority ca;
  ca.ca_.certificate_pem = cert_pem(cert->get());
  ca.ca_.private_key_pem = key_pem(key.get());
  if (ca.ca_.certificate_pem.empty() || ca.ca_.private_key_pem.empty())
    return cert_error("writing the CA as PEM");
  return ca;
}

result<certificate_authority> certificate_authority::from_pem(const std::string& certificate_pem,
                                                              const std::string& private_key_pem) {
  certificate_authority ca;
  ca.ca_ = key_pair_pem{certificate_pem, private_key_pem};
  auto parsed = parse_ca(ca.ca_);
  if (!parsed) return parsed.error();
  return ca;
}

result<key_pair_pem> certificate_authority::issue_server(
    const std::vector<std::string>& dns_names, const std::vector<std::string>& ip_addresses,
    std::chrono::hours lifetime) const {
  auto ca = parse_ca(ca_);
  if (!ca) return ca.error();
  std::string san;
  for (const auto& d : dns_names) san += (san.empty() ? "" : ",") + std::string("DNS:") + d;
  for (const auto& ip : ip_addresses) san += (san.empty() ? "" : ",") + std::string("IP:") + ip;
  if (san.empty()) return make_error("certificate", "a server certificate needs a DNS name or IP");
  auto key = new_key();
  if (!key) return cert_error("generating a server key");
  auto name = subject_name(dns_names.empty() ? ip_addresses.front() : dns_names.front(), {});
  if (!name) return name.error();
  auto cert = build_certificate(name->get(), key.get(), ca->cert.get(), ca->key.get(), lifetime,
                                {{NID_basic_constraints, "critical,CA:FALSE"},
                                 {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
                                 {NID_ext_key_usage, "serverAuth"},
                                 {NID_subject_alt_name, san},
                                 {NID_subject_key_identifier, "hash"},
                                 {NID_authority_key_identifier, "keyid:always"}});
  if (!cert) return cert.error();
  return key_pair_pem{cert_pem(cert->get()) + ca_.certificate_pem, key_pem(key.get())};
}

result<key_pair_pem> certificate_authority::issue_client(
    const std::string& common_name, const std::vector<std::string>& organizations,
    std::chrono::hours lifetime) const {
  auto ca = parse_ca(ca_);
  if (!ca) return ca.error();
  if (common_name.empty()) return make_error("certificate", "a client certificate needs a CN");
  auto key = new_key();
  if (!key) return cert_error("generating a client key");
  auto name = subject_name(common_name, organizations);
  if (!name) return name.error();
  auto cert = issue_client_for(*ca, name->get(), key.get(), lifetime);
  if (!cert) return cert.error();
  return key_pair_pem{cert_pem(cert->get()), key_pem(key.get())};
}

namespace {

result<req_ptr> parse_csr(const std::string& csr_pem) {
  auto bio = read_bio(csr_pem);
  req_ptr req(PEM_read_bio_X509_REQ(bio.get(), nullptr, nullptr, nullptr));
  if (!req) return cert_error("certificate signing request PEM");
  return req;
}

}  // namespace

result<std::string> certificate_authority::sign_client_csr(const std::string& csr_pem,
                                                           std::chrono::hours lifetime) const {
  auto ca = parse_ca(ca_);
  if (!ca) return ca.error();
  auto req = parse_csr(csr_pem);
  if (!req) return req.error();
  EVP_PKEY* key = X509_REQ_get0_pubkey(req->get());
  // The signature proves the requester holds the private key of the public key it submits.
  if (key == nullptr || X509_REQ_verify(req->get(), key) != 1)
    return cert_error("certificate signing request signature does not verify");
  const X509_NAME* subject = X509_REQ_get_subject_name(req->get());
  if (detail::x509_name_entries(subject, NID_commonName).empty())
    return make_error("certificate", "certificate signing request has no CN");
  auto cert = issue_client_for(*ca, subject, key, lifetime);
  if (!cert) return cert.error();
  return cert_pem(cert->get());
}

result<csr_with_key> make_client_csr(const std::string& common_name,
                                     const std::vector<std::string>& organizations) {
  auto key = new_key();
  if (!key) return cert_error("generating a key");
  req_ptr req(X509_REQ_new());
  if (!req) return cert_error("allocating a request");
  auto name = subject_name(common_name, organizations);
  if (!name) return name.error();
  if (X509_REQ_set_version(req.get(), 0) != 1 ||
      X509_REQ_set_subject_name(req.get(), name->get()) != 1 ||
      X509_REQ_set_pubkey(req.get(), key.get()) != 1)
    return cert_error("building a certificate signing request");
  if (X509_REQ_sign(req.get(), key.get(), EVP_sha256()) <= 0)
    return cert_error("signing a certificate signing request");
  bio_ptr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509_REQ(bio.get(), req.get()) != 1)
    return cert_error("writing a certificate signing request");
  return csr_with_key{bio_text(bio.get()), key_pem(key.get())};
}

result<std::pair<std::string, std::vector<std::string>>> csr_subject(const std::string& csr_pem) {
  auto req = parse_csr(csr_pem);
  if (!req) return req.error();
  const X509_NAME* subject = X509_REQ_get_subject_name(req->get());
  auto cn = detail::x509_name_entries(subject, NID_commonName);
  return std::pair{cn.empty() ? std::string() : cn.front(),
                   detail::x509_name_entries(subject, NID_organizationName)};
}

}  // namespace kp::transport
