#pragma once
// Internal to kp_transport: TLS contexts built from PEM strings and X.509 name reading, shared by
// the client, the server and the certificate factory. Not for use outside this folder.
#include <openssl/x509.h>

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "protocol/transport/http_client.hpp"
#include "protocol/transport/http_message.hpp"
#include "protocol/transport/http_server.hpp"

namespace kp::transport::detail {

// The UTF-8 values of every `nid` entry (NID_commonName, NID_organizationName) in `name`.
std::vector<std::string> x509_name_entries(const X509_NAME* name, int nid);

// CN and O of a certificate.
peer_identity identity_of(const X509* certificate);

// The most recent OpenSSL error as text (and clears the queue), prefixed with `what`.
std::string openssl_error(const std::string& what);

// TLS 1.2+ server context with the chain and key; asks for (but does not require) client
// certificates signed by client_ca_pem when that is set.
result<std::shared_ptr<boost::asio::ssl::context>> make_server_context(const server_tls& tls);

// TLS 1.2+ client context: verification per options (CA PEM or system paths), client certificate.
result<std::shared_ptr<boost::asio::ssl::context>> make_client_context(
    const client_options& options);

}  // namespace kp::transport::detail
