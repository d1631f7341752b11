#pragma once
// Internal to kp_transport: the TLS sessions one client may resume. Not for use outside this
// folder.
#include <openssl/ssl.h>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace kp::transport::detail {

// One session per peer (scheme, host and port), so that a new connection to a peer resumes
// instead of repeating the full handshake, whose cost is mostly decoding and verifying the
// peer's certificate chain. A session is offered only to the peer that issued it, through the
// context that verified it (each client has its own context and cache). A peer that does not
// take it (restarted, replaced, another key) gets a full handshake, verified as strictly as any.
class tls_session_cache {
 public:
  // Before a handshake with `peer`: hands `ssl` the session kept for that peer, if any.
  void offer(const std::string& peer, SSL* ssl) const;

  // Once a reply came over `ssl`: keeps its session for `peer` if it can be resumed. TLS 1.3
  // tickets come after the handshake, ahead of the first reply, hence not at the handshake's end.
  // Returns whether a session was kept.
  bool keep(const std::string& peer, SSL* ssl);

  // A handshake with `peer` failed: its session is not offered again.
  void forget(const std::string& peer);

 private:
  struct session_free {
    void operator()(SSL_SESSION* session) const { SSL_SESSION_free(session); }
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::unique_ptr<SSL_SESSION, session_free>> sessions_;
};

}  // namespace kp::transport::detail
