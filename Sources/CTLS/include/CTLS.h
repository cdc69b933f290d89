// The system's TLS (OpenSSL 3) and password hashing (crypt(3) from libxcrypt), each loaded
// when first used, for `netpath serve --web-config` and the connectivity check's https endpoints. Building needs neither's headers. Thin wrappers only: OpenSSL's macros
// (SSL_CTX_set_min_proto_version, ...) do not import into Swift, and its error queue is
// per thread, so each call here returns its outcome as a value with the message.
// No cryptography is written here.
#ifndef CTLS_H
#define CTLS_H

#ifdef __linux__
#include <stddef.h>
#include <stdint.h>

/// What a non-blocking TLS step did.
enum {
    CTLS_DONE = 0,        // finished (a handshake), or `*count` bytes moved
    CTLS_WANT_READ = 1,   // call again when the socket is readable
    CTLS_WANT_WRITE = 2,  // call again when the socket is writable
    CTLS_CLOSED = 3,      // the peer closed the TLS session cleanly
    CTLS_FAILED = 4,      // an error: the message is in `error`
};

/// How a client certificate is asked for: exporter-toolkit's `client_auth_type`.
enum {
    CTLS_CLIENT_NONE = 0,               // NoClientCert
    CTLS_CLIENT_REQUEST = 1,            // RequestClientCert: asked for, never checked
    CTLS_CLIENT_REQUIRE_ANY = 2,        // RequireAnyClientCert: required, never checked
    CTLS_CLIENT_VERIFY_IF_GIVEN = 3,    // VerifyClientCertIfGiven
    CTLS_CLIENT_REQUIRE_AND_VERIFY = 4, // RequireAndVerifyClientCert
};

/// TLS versions, as in TLS1_2_VERSION and TLS1_3_VERSION.
enum {
    CTLS_TLS12 = 0x0303,
    CTLS_TLS13 = 0x0304,
};

/// Loads the system's OpenSSL 3 (libssl.so.3, libcrypto.so.3) once; 1 when it is there, else
/// 0 with the reason in `error`. `ctls_context_new` calls it first.
int ctls_load(char *error, size_t error_size);

/// Loads the system's libxcrypt (libcrypt.so.1) once; 1 when it is there, else 0 with the
/// reason in `error`. `ctls_password_matches` calls it first.
int ctls_load_crypt(char *error, size_t error_size);

typedef struct ctls_context ctls_context;
typedef struct ctls_session ctls_session;

/// A server context: the certificate chain and key (PEM files), the versions allowed, how
/// client certificates are asked for and the CAs that sign them (`client_ca`, may be NULL).
/// NULL on failure, with the reason in `error`.
ctls_context *ctls_context_new(const char *certificate, const char *key, int min_version, int max_version,
                               int client_auth, const char *client_ca, char *error, size_t error_size);
void ctls_context_free(ctls_context *context);

/// When the context's certificate stops being valid (seconds since 1970), or -1.
int64_t ctls_context_not_after(const ctls_context *context);

/// A server session on the connected, non-blocking socket `fd`.
ctls_session *ctls_session_new(ctls_context *context, int fd);
void ctls_session_free(ctls_session *session);

/// One step of the server's handshake.
int ctls_session_accept(ctls_session *session, char *error, size_t error_size);
/// Reads up to `size` bytes; `*count` is how many came.
int ctls_session_read(ctls_session *session, void *buffer, size_t size, size_t *count, char *error, size_t error_size);
/// Writes up to `size` bytes; `*count` is how many went.
int ctls_session_write(ctls_session *session, const void *buffer, size_t size, size_t *count, char *error, size_t error_size);
/// Sends the close_notify alert, once, without waiting for the peer's.
void ctls_session_shutdown(ctls_session *session);
/// The negotiated version ("TLSv1.3"), for logs and tests.
const char *ctls_session_version(const ctls_session *session);

/// A client context for the connectivity check: TLS 1.2 or later, the peer's certificate
/// verified against the system's trust store (OpenSSL's default paths, which SSL_CERT_FILE
/// and SSL_CERT_DIR override). NULL on failure, with the reason in `error`.
ctls_context *ctls_client_context_new(char *error, size_t error_size);
/// A client session on the connecting, non-blocking socket `fd`, for `host`: its name sent
/// in SNI (unless `host_is_address`) and checked against the certificate. NULL on failure.
ctls_session *ctls_client_session_new(ctls_context *context, int fd, const char *host, int host_is_address);
/// One step of the client's handshake: CTLS_CLOSED when the peer closed or reset the
/// connection, CTLS_FAILED when TLS failed (a certificate that does not verify: "certificate
/// verify failed: REASON"), with the message in `error`.
int ctls_session_connect(ctls_session *session, char *error, size_t error_size);

/// Whether `password` hashes to `hash` (a crypt(3) hash such as bcrypt's `$2y$...`),
/// compared in constant time. 0 when it does not, the hash is not one crypt(3) knows, or
/// libcrypt.so.1 cannot be loaded.
int ctls_password_matches(const char *password, const char *hash);

#endif
#endif
