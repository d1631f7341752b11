#include "protocol/transport/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace kp::transport::detail {

namespace ssl = boost::asio::ssl;

std::vector<std::string> x509_name_entries(const X509_NAME* name, int nid) {
  std::vector<std::string> out;
  if (name == nullptr) return out;
  int index = -1;
  while ((index = X509_NAME_get_index_by_NID(name, nid, index)) >= 0) {
    const X509_NAME_ENTRY* entry = X509_NAME_get_entry(name, index);
    unsigned char* utf8 = nullptr;
    int length = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
    if (length >= 0) {
      out.emplace_back(reinterpret_cast<const char*>(utf8), static_cast<std::size_t>(length));
      OPENSSL_free(utf8);
    }
  }
  return out;
}

peer_identity identity_of(const X509* certificate) {
  peer_identity id;
  if (certificate == nullptr) return id;
  const X509_NAME* subject = X509_get_subject_name(certificate);
  auto names = x509_name_entries(subject, NID_commonName);
  if (!names.empty()) id.common_name = names.front();
  id.organizations = x509_name_entries(subject, NID_organizationName);
  return id;
}

std::string openssl_error(const std::string& what) {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return what;
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return what + ": " + text;
}

namespace {

constexpr auto modern_only = ssl::context::default_workarounds | ssl::context::no_sslv2 |
                             ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                             ssl::context::no_tlsv1_1 | ssl::context::single_dh_use;

// The system trust store, loaded once per process: loading the default paths costs ~80 ms
// (the whole CA bundle is parsed), too much for every client. X509_STORE is reference-counted
// and safe to share between contexts.
X509_STORE* system_trust_store() {
  static X509_STORE* store = [] {
    X509_STORE* s = X509_STORE_new();
    if (s != nullptr && X509_STORE_set_default_paths(s) != 1) {
      X509_STORE_free(s);
      s = nullptr;
    }
    ERR_clear_error();
    return s;
  }();
  return store;
}

kp::error tls_error(const std::string& what, const boost::system::error_code& ec) {
  ERR_clear_error();
  // ec.message() names the OpenSSL reason (e.g. "no start line"); never the PEM content.
  return make_error("tls", what + ": " + ec.message());
}

}  // namespace

result<std::shared_ptr<ssl::context>> make_server_context(const server_tls& tls) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  boost::system::error_code ec;
  ctx->set_options(modern_only, ec);
  ctx->use_certificate_chain(boost::asio::buffer(tls.certificate_chain_pem), ec);
  if (ec) return tls_error("server certificate chain", ec);
  ctx->use_private_key(boost::asio::buffer(tls.private_key_pem), ssl::context::pem, ec);
  if (ec) return tls_error("server private key", ec);
  if (!tls.client_ca_pem.empty()) {
    ctx->add_certificate_authority(boost::asio::buffer(tls.client_ca_pem), ec);
    if (ec) return tls_error("client CA", ec);
    // Ask for a certificate but let anonymous clients in: handlers decide (as kube-apiserver does
    // with bearer tokens); a certificate that is presented must verify.
    ctx->set_verify_mode(ssl::verify_peer, ec);
    if (ec) return tls_error("client verification", ec);
    // A session id context is needed for session resumption once peers are verified.
    static const unsigned char sid[] = "kp-transport";
    SSL_CTX_set_session_id_context(ctx->native_handle(), sid, sizeof sid - 1);
  }
  return ctx;
}

result<std::shared_ptr<ssl::context>> make_client_context(const client_options& options) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  boost::system::error_code ec;
  ctx->set_options(modern_only, ec);
  if (options.insecure_skip_verify) {
    ctx->set_verify_mode(ssl::verify_none, ec);
  } else {
    ctx->set_verify_mode(ssl::verify_peer, ec);
    if (!options.ca_pem.empty()) {
      ctx->add_certificate_authority(boost::asio::buffer(options.ca_pem), ec);
      if (ec) return tls_error("CA bundle", ec);
    } else {
      X509_STORE* store = system_trust_store();
      if (store == nullptr) return make_error("tls", "cannot load the system CA certificates");
      SSL_CTX_set1_cert_store(ctx->native_handle(), store);
    }
  }
  if (!options.client_certificate_pem.empty() || !options.client_key_pem.empty()) {
    ctx->use_certificate_chain(boost::asio::buffer(options.client_certificate_pem), ec);
    if (ec) return tls_error("client certificate", ec);
    ctx->use_private_key(boost::asio::buffer(options.client_key_pem), ssl::context::pem, ec);
    if (ec) return tls_error("client private key", ec);
  }
  return ctx;
}

}  // namespace kp::transport::detail
