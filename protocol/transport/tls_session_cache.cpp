#include "protocol/transport/tls_session_cache.hpp"

namespace kp::transport::detail {

void tls_session_cache::offer(const std::string& peer, SSL* ssl) const {
  std::lock_guard lock(mutex_);
  auto found = sessions_.find(peer);
  if (found == sessions_.end()) return;
  // A copy: OpenSSL marks a connection's session not resumable when the connection is freed
  // without a TLS shutdown (as a pooled one is when it closes), which must not touch the kept one.
  SSL_SESSION* copy = SSL_SESSION_dup(found->second.get());
  if (copy == nullptr) return;
  SSL_set_session(ssl, copy);  // takes its own reference
  SSL_SESSION_free(copy);
}

bool tls_session_cache::keep(const std::string& peer, SSL* ssl) {
  const SSL_SESSION* current = SSL_get0_session(ssl);
  if (current == nullptr || SSL_SESSION_is_resumable(current) != 1) return false;
  // A copy, for the reason offer() gives.
  std::unique_ptr<SSL_SESSION, session_free> owned(SSL_SESSION_dup(current));
  if (!owned) return false;
  std::lock_guard lock(mutex_);
  sessions_.insert_or_assign(peer, std::move(owned));
  return true;
}

void tls_session_cache::forget(const std::string& peer) {
  std::lock_guard lock(mutex_);
  sessions_.erase(peer);
}

}  // namespace kp::transport::detail
