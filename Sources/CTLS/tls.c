// See CTLS.h. OpenSSL does the TLS and libxcrypt the password hashing; this file only
// adapts their calls to values Swift can take.
//
// OpenSSL is loaded when first needed (`dlopen` of libssl.so.3 and libcrypto.so.3), not
// linked: a `netpath` that never serves TLS neither carries nor loads it (libcrypto's load
// runs CPU feature detection, which costs start-up time in every command), and the TLS it
// serves is the system's patched OpenSSL, not a copy frozen into the binary. The headers
// give the functions' types; each is called through a pointer resolved once.
#ifdef __linux__
#define _GNU_SOURCE
#include "CTLS.h"

#include <crypt.h>
#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CTLS_SSL_FUNCTIONS(X) X(TLS_server_method) X(SSL_CTX_new) X(SSL_CTX_free) X(SSL_CTX_ctrl) \
    X(SSL_CTX_use_certificate_chain_file) X(SSL_CTX_use_PrivateKey_file) X(SSL_CTX_check_private_key) \
    X(SSL_load_client_CA_file) X(SSL_CTX_load_verify_locations) X(SSL_CTX_set_client_CA_list) X(SSL_CTX_set_verify) \
    X(SSL_CTX_set_options) X(SSL_CTX_get0_certificate) X(SSL_new) X(SSL_set_fd) X(SSL_free) X(SSL_accept) \
    X(SSL_read_ex) X(SSL_write_ex) X(SSL_shutdown) X(SSL_get_version) X(SSL_get_error) X(SSL_get_verify_result)
#define CTLS_CRYPTO_FUNCTIONS(X) X(X509_get0_notAfter) X(ASN1_TIME_to_tm) X(X509_verify_cert_error_string) \
    X(ERR_peek_error) X(ERR_peek_last_error) X(ERR_reason_error_string) X(ERR_clear_error) X(OPENSSL_sk_pop_free) \
    X(X509_NAME_free)

#define CTLS_DECLARE(name) static __typeof__(name) *p_##name;
CTLS_SSL_FUNCTIONS(CTLS_DECLARE)
CTLS_CRYPTO_FUNCTIONS(CTLS_DECLARE)

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[320];

static void *open_library(const char *name) {
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) snprintf(load_error, sizeof load_error, "TLS needs OpenSSL 3 (Debian: libssl3): %s", dlerror());
    return library;
}

static void load(void) {
    void *ssl = open_library("libssl.so.3");
    void *crypto = ssl != NULL ? open_library("libcrypto.so.3") : NULL;
    if (crypto == NULL) return;
#define CTLS_RESOLVE(library, name) \
    if ((p_##name = (__typeof__(p_##name))dlsym(library, #name)) == NULL) { \
        snprintf(load_error, sizeof load_error, "the system's OpenSSL has no %s", #name); \
        return; \
    }
#define CTLS_RESOLVE_SSL(name) CTLS_RESOLVE(ssl, name)
#define CTLS_RESOLVE_CRYPTO(name) CTLS_RESOLVE(crypto, name)
    CTLS_SSL_FUNCTIONS(CTLS_RESOLVE_SSL)
    CTLS_CRYPTO_FUNCTIONS(CTLS_RESOLVE_CRYPTO)
    loaded = 1;
}

int ctls_load(char *error, size_t error_size) {
    pthread_once(&load_once, load);
    if (!loaded && error != NULL && error_size > 0) snprintf(error, error_size, "%s", load_error);
    return loaded;
}

struct ctls_context { SSL_CTX *ssl; };
struct ctls_session { SSL *ssl; };

/// The reason of the first error on this thread's OpenSSL queue (the most specific: later
/// ones say only which layer passed it on, "PEM lib"), after `what`.
static void describe(char *error, size_t size, const char *what) {
    if (error == NULL || size == 0) return;
    unsigned long code = p_ERR_peek_error();
    const char *reason = code != 0 ? p_ERR_reason_error_string(code) : NULL;
    if (reason != NULL) {
        snprintf(error, size, "%s: %s", what, reason);
    } else {
        snprintf(error, size, "%s", what);
    }
    p_ERR_clear_error();
}

/// Takes any client certificate (RequestClientCert, RequireAnyClientCert): asked for, not checked.
static int accept_any(int preverified, X509_STORE_CTX *store) {
    (void)preverified;
    (void)store;
    return 1;
}

static int set_client_auth(SSL_CTX *ssl, int client_auth, const char *client_ca, char *error, size_t size) {
    if (client_ca != NULL) {
        STACK_OF(X509_NAME) *names = p_SSL_load_client_CA_file(client_ca);
        if (names == NULL || p_SSL_CTX_load_verify_locations(ssl, client_ca, NULL) != 1) {
            if (names != NULL) p_OPENSSL_sk_pop_free((OPENSSL_STACK *)names, (OPENSSL_sk_freefunc)p_X509_NAME_free);
            char what[512];
            snprintf(what, sizeof what, "cannot load client_ca_file %s", client_ca);
            describe(error, size, what);
            return 0;
        }
        p_SSL_CTX_set_client_CA_list(ssl, names);
    }
    switch (client_auth) {
    case CTLS_CLIENT_NONE: p_SSL_CTX_set_verify(ssl, SSL_VERIFY_NONE, NULL); break;
    case CTLS_CLIENT_REQUEST: p_SSL_CTX_set_verify(ssl, SSL_VERIFY_PEER, accept_any); break;
    case CTLS_CLIENT_REQUIRE_ANY: p_SSL_CTX_set_verify(ssl, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, accept_any); break;
    case CTLS_CLIENT_VERIFY_IF_GIVEN: p_SSL_CTX_set_verify(ssl, SSL_VERIFY_PEER, NULL); break;
    default: p_SSL_CTX_set_verify(ssl, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL); break;
    }
    return 1;
}

ctls_context *ctls_context_new(const char *certificate, const char *key, int min_version, int max_version,
                               int client_auth, const char *client_ca, char *error, size_t error_size) {
    if (!ctls_load(error, error_size)) return NULL;
    p_ERR_clear_error();
    SSL_CTX *ssl = p_SSL_CTX_new(p_TLS_server_method());
    if (ssl == NULL) {
        describe(error, error_size, "cannot create a TLS context");
        return NULL;
    }
    char what[512];
    int ok = p_SSL_CTX_ctrl(ssl, SSL_CTRL_SET_MIN_PROTO_VERSION, min_version, NULL) == 1 && p_SSL_CTX_ctrl(ssl, SSL_CTRL_SET_MAX_PROTO_VERSION, max_version, NULL) == 1;
    if (!ok) {
        describe(error, error_size, "the TLS versions are not supported");
    } else if (p_SSL_CTX_use_certificate_chain_file(ssl, certificate) != 1) {
        snprintf(what, sizeof what, "cannot load cert_file %s", certificate);
        describe(error, error_size, what);
        ok = 0;
    } else if (p_SSL_CTX_use_PrivateKey_file(ssl, key, SSL_FILETYPE_PEM) != 1) {
        if (ERR_GET_REASON(p_ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
            snprintf(error, error_size, "key_file %s is not the key of cert_file %s", key, certificate);
            p_ERR_clear_error();
        } else {
            snprintf(what, sizeof what, "cannot load key_file %s", key);
            describe(error, error_size, what);
        }
        ok = 0;
    } else if (p_SSL_CTX_check_private_key(ssl) != 1) {
        snprintf(what, sizeof what, "key_file %s is not the key of cert_file %s", key, certificate);
        describe(error, error_size, what);
        ok = 0;
    } else {
        ok = set_client_auth(ssl, client_auth, client_ca, error, error_size);
    }
    if (!ok) {
        p_SSL_CTX_free(ssl);
        return NULL;
    }
    // Writes may move and be partial (the socket is non-blocking); no renegotiation (a
    // client could make the server redo handshakes); a peer that closes without
    // close_notify has merely closed.
    p_SSL_CTX_ctrl(ssl, SSL_CTRL_MODE, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER, NULL);
    p_SSL_CTX_set_options(ssl, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
    ctls_context *context = malloc(sizeof *context);
    if (context == NULL) {
        p_SSL_CTX_free(ssl);
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    context->ssl = ssl;
    return context;
}

void ctls_context_free(ctls_context *context) {
    if (context == NULL) return;
    p_SSL_CTX_free(context->ssl);
    free(context);
}

int64_t ctls_context_not_after(const ctls_context *context) {
    X509 *certificate = p_SSL_CTX_get0_certificate(context->ssl);
    const ASN1_TIME *end = certificate != NULL ? p_X509_get0_notAfter(certificate) : NULL;
    struct tm parts;
    if (end == NULL || p_ASN1_TIME_to_tm(end, &parts) != 1) return -1;
    return (int64_t)timegm(&parts);
}

ctls_session *ctls_session_new(ctls_context *context, int fd) {
    SSL *ssl = p_SSL_new(context->ssl);
    if (ssl == NULL) return NULL;
    ctls_session *session = malloc(sizeof *session);
    if (session == NULL || p_SSL_set_fd(ssl, fd) != 1) {
        p_SSL_free(ssl);
        free(session);
        return NULL;
    }
    session->ssl = ssl;
    return session;
}

void ctls_session_free(ctls_session *session) {
    if (session == NULL) return;
    p_SSL_free(session->ssl);
    free(session);
}

/// What `result` of an SSL call means, with the reason of a failure in `error`.
static int outcome(SSL *ssl, int result, char *error, size_t error_size) {
    switch (p_SSL_get_error(ssl, result)) {
    case SSL_ERROR_NONE: return CTLS_DONE;
    case SSL_ERROR_WANT_READ: return CTLS_WANT_READ;
    case SSL_ERROR_WANT_WRITE: return CTLS_WANT_WRITE;
    case SSL_ERROR_ZERO_RETURN: return CTLS_CLOSED;
    case SSL_ERROR_SYSCALL:
        if (p_ERR_peek_last_error() == 0) {
            snprintf(error, error_size, "the connection ended during TLS");
            return CTLS_FAILED;
        }
        break;
    default: break;
    }
    long verified = p_SSL_get_verify_result(ssl);
    if (verified != X509_V_OK) {
        snprintf(error, error_size, "client certificate: %s", p_X509_verify_cert_error_string(verified));
        p_ERR_clear_error();
    } else {
        describe(error, error_size, "TLS");
    }
    return CTLS_FAILED;
}

int ctls_session_accept(ctls_session *session, char *error, size_t error_size) {
    p_ERR_clear_error();
    int result = p_SSL_accept(session->ssl);
    return result == 1 ? CTLS_DONE : outcome(session->ssl, result, error, error_size);
}

int ctls_session_read(ctls_session *session, void *buffer, size_t size, size_t *count, char *error, size_t error_size) {
    p_ERR_clear_error();
    *count = 0;
    int result = p_SSL_read_ex(session->ssl, buffer, size, count);
    return result == 1 ? CTLS_DONE : outcome(session->ssl, result, error, error_size);
}

int ctls_session_write(ctls_session *session, const void *buffer, size_t size, size_t *count, char *error, size_t error_size) {
    p_ERR_clear_error();
    *count = 0;
    int result = p_SSL_write_ex(session->ssl, buffer, size, count);
    return result == 1 ? CTLS_DONE : outcome(session->ssl, result, error, error_size);
}

void ctls_session_shutdown(ctls_session *session) {
    p_ERR_clear_error();
    (void)p_SSL_shutdown(session->ssl);
    p_ERR_clear_error();
}

const char *ctls_session_version(const ctls_session *session) {
    return p_SSL_get_version(session->ssl);
}

/// Whether `a` and `b` hold the same `length` bytes, in time that does not depend on where
/// they differ (OpenSSL's CRYPTO_memcmp is not used: basic auth without TLS loads no OpenSSL).
static int same_bytes(const char *a, const char *b, size_t length) {
    volatile unsigned char difference = 0;
    for (size_t index = 0; index < length; index++) difference |= (unsigned char)(a[index] ^ b[index]);
    return difference == 0;
}

int ctls_password_matches(const char *password, const char *hash) {
    struct crypt_data *data = calloc(1, sizeof *data);
    if (data == NULL) return 0;
    const char *result = crypt_r(password, hash, data);
    int matches = 0;
    // libxcrypt answers a hash it cannot use with a string beginning with '*'.
    if (result != NULL && result[0] != '*') {
        size_t length = strlen(hash);
        matches = strlen(result) == length && same_bytes(result, hash, length);
    }
    explicit_bzero(data, sizeof *data);
    free(data);
    return matches;
}
#endif
