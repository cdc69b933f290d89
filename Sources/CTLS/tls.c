// See CTLS.h. OpenSSL does the TLS and libxcrypt the password hashing; this file only
// adapts their calls to values Swift can take.
#ifdef __linux__
#define _GNU_SOURCE
#include "CTLS.h"

#include <crypt.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct ctls_context { SSL_CTX *ssl; };
struct ctls_session { SSL *ssl; };

/// The reason of the first error on this thread's OpenSSL queue (the most specific: later
/// ones say only which layer passed it on, "PEM lib"), after `what`.
static void describe(char *error, size_t size, const char *what) {
    if (error == NULL || size == 0) return;
    unsigned long code = ERR_peek_error();
    const char *reason = code != 0 ? ERR_reason_error_string(code) : NULL;
    if (reason != NULL) {
        snprintf(error, size, "%s: %s", what, reason);
    } else {
        snprintf(error, size, "%s", what);
    }
    ERR_clear_error();
}

/// Takes any client certificate (RequestClientCert, RequireAnyClientCert): asked for, not checked.
static int accept_any(int preverified, X509_STORE_CTX *store) {
    (void)preverified;
    (void)store;
    return 1;
}

static int set_client_auth(SSL_CTX *ssl, int client_auth, const char *client_ca, char *error, size_t size) {
    if (client_ca != NULL) {
        STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(client_ca);
        if (names == NULL || SSL_CTX_load_verify_locations(ssl, client_ca, NULL) != 1) {
            if (names != NULL) sk_X509_NAME_pop_free(names, X509_NAME_free);
            char what[512];
            snprintf(what, sizeof what, "cannot load client_ca_file %s", client_ca);
            describe(error, size, what);
            return 0;
        }
        SSL_CTX_set_client_CA_list(ssl, names);
    }
    switch (client_auth) {
    case CTLS_CLIENT_NONE: SSL_CTX_set_verify(ssl, SSL_VERIFY_NONE, NULL); break;
    case CTLS_CLIENT_REQUEST: SSL_CTX_set_verify(ssl, SSL_VERIFY_PEER, accept_any); break;
    case CTLS_CLIENT_REQUIRE_ANY: SSL_CTX_set_verify(ssl, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, accept_any); break;
    case CTLS_CLIENT_VERIFY_IF_GIVEN: SSL_CTX_set_verify(ssl, SSL_VERIFY_PEER, NULL); break;
    default: SSL_CTX_set_verify(ssl, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL); break;
    }
    return 1;
}

ctls_context *ctls_context_new(const char *certificate, const char *key, int min_version, int max_version,
                               int client_auth, const char *client_ca, char *error, size_t error_size) {
    ERR_clear_error();
    SSL_CTX *ssl = SSL_CTX_new(TLS_server_method());
    if (ssl == NULL) {
        describe(error, error_size, "cannot create a TLS context");
        return NULL;
    }
    char what[512];
    int ok = SSL_CTX_set_min_proto_version(ssl, min_version) == 1 && SSL_CTX_set_max_proto_version(ssl, max_version) == 1;
    if (!ok) {
        describe(error, error_size, "the TLS versions are not supported");
    } else if (SSL_CTX_use_certificate_chain_file(ssl, certificate) != 1) {
        snprintf(what, sizeof what, "cannot load cert_file %s", certificate);
        describe(error, error_size, what);
        ok = 0;
    } else if (SSL_CTX_use_PrivateKey_file(ssl, key, SSL_FILETYPE_PEM) != 1) {
        if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
            snprintf(error, error_size, "key_file %s is not the key of cert_file %s", key, certificate);
            ERR_clear_error();
        } else {
            snprintf(what, sizeof what, "cannot load key_file %s", key);
            describe(error, error_size, what);
        }
        ok = 0;
    } else if (SSL_CTX_check_private_key(ssl) != 1) {
        snprintf(what, sizeof what, "key_file %s is not the key of cert_file %s", key, certificate);
        describe(error, error_size, what);
        ok = 0;
    } else {
        ok = set_client_auth(ssl, client_auth, client_ca, error, error_size);
    }
    if (!ok) {
        SSL_CTX_free(ssl);
        return NULL;
    }
    // Writes may move and be partial (the socket is non-blocking); no renegotiation (a
    // client could make the server redo handshakes); a peer that closes without
    // close_notify has merely closed.
    SSL_CTX_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_options(ssl, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
    ctls_context *context = malloc(sizeof *context);
    if (context == NULL) {
        SSL_CTX_free(ssl);
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    context->ssl = ssl;
    return context;
}

void ctls_context_free(ctls_context *context) {
    if (context == NULL) return;
    SSL_CTX_free(context->ssl);
    free(context);
}

int64_t ctls_context_not_after(const ctls_context *context) {
    X509 *certificate = SSL_CTX_get0_certificate(context->ssl);
    const ASN1_TIME *end = certificate != NULL ? X509_get0_notAfter(certificate) : NULL;
    struct tm parts;
    if (end == NULL || ASN1_TIME_to_tm(end, &parts) != 1) return -1;
    return (int64_t)timegm(&parts);
}

ctls_session *ctls_session_new(ctls_context *context, int fd) {
    SSL *ssl = SSL_new(context->ssl);
    if (ssl == NULL) return NULL;
    ctls_session *session = malloc(sizeof *session);
    if (session == NULL || SSL_set_fd(ssl, fd) != 1) {
        SSL_free(ssl);
        free(session);
        return NULL;
    }
    session->ssl = ssl;
    return session;
}

void ctls_session_free(ctls_session *session) {
    if (session == NULL) return;
    SSL_free(session->ssl);
    free(session);
}

/// What `result` of an SSL call means, with the reason of a failure in `error`.
static int outcome(SSL *ssl, int result, char *error, size_t error_size) {
    switch (SSL_get_error(ssl, result)) {
    case SSL_ERROR_NONE: return CTLS_DONE;
    case SSL_ERROR_WANT_READ: return CTLS_WANT_READ;
    case SSL_ERROR_WANT_WRITE: return CTLS_WANT_WRITE;
    case SSL_ERROR_ZERO_RETURN: return CTLS_CLOSED;
    case SSL_ERROR_SYSCALL:
        if (ERR_peek_last_error() == 0) {
            snprintf(error, error_size, "the connection ended during TLS");
            return CTLS_FAILED;
        }
        break;
    default: break;
    }
    long verified = SSL_get_verify_result(ssl);
    if (verified != X509_V_OK) {
        snprintf(error, error_size, "client certificate: %s", X509_verify_cert_error_string(verified));
        ERR_clear_error();
    } else {
        describe(error, error_size, "TLS");
    }
    return CTLS_FAILED;
}

int ctls_session_accept(ctls_session *session, char *error, size_t error_size) {
    ERR_clear_error();
    int result = SSL_accept(session->ssl);
    return result == 1 ? CTLS_DONE : outcome(session->ssl, result, error, error_size);
}

int ctls_session_read(ctls_session *session, void *buffer, size_t size, size_t *count, char *error, size_t error_size) {
    ERR_clear_error();
    *count = 0;
    int result = SSL_read_ex(session->ssl, buffer, size, count);
    return result == 1 ? CTLS_DONE : outcome(session->ssl, result, error, error_size);
}

int ctls_session_write(ctls_session *session, const void *buffer, size_t size, size_t *count, char *error, size_t error_size) {
    ERR_clear_error();
    *count = 0;
    int result = SSL_write_ex(session->ssl, buffer, size, count);
    return result == 1 ? CTLS_DONE : outcome(session->ssl, result, error, error_size);
}

void ctls_session_shutdown(ctls_session *session) {
    ERR_clear_error();
    (void)SSL_shutdown(session->ssl);
    ERR_clear_error();
}

const char *ctls_session_version(const ctls_session *session) {
    return SSL_get_version(session->ssl);
}

int ctls_password_matches(const char *password, const char *hash) {
    struct crypt_data *data = calloc(1, sizeof *data);
    if (data == NULL) return 0;
    const char *result = crypt_r(password, hash, data);
    int matches = 0;
    // libxcrypt answers a hash it cannot use with a string beginning with '*'.
    if (result != NULL && result[0] != '*') {
        size_t length = strlen(hash);
        matches = strlen(result) == length && CRYPTO_memcmp(result, hash, length) == 0;
    }
    explicit_bzero(data, sizeof *data);
    free(data);
    return matches;
}
#endif
