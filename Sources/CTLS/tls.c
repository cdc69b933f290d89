// See CTLS.h. OpenSSL does the TLS and libxcrypt the password hashing; this file only
// adapts their calls to values Swift can take.
//
// Both are loaded when first needed (`dlopen` of libssl.so.3 and libcrypto.so.3, of
// libcrypt.so.1), not linked: a `netpath` that never serves TLS neither carries nor loads
// OpenSSL (libcrypto's load runs CPU feature detection, which costs start-up time in every
// command), the TLS it serves is the system's patched OpenSSL, not a copy frozen into the
// binary, and building needs neither library nor its headers. Each function is called
// through a pointer resolved once, of the type declared below.
#ifdef __linux__
#define _GNU_SOURCE
#include "CTLS.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// What this file needs of OpenSSL 3's and libxcrypt's headers, written here so that building
// needs only the toolchain (no libssl-dev, no libcrypt-dev). The types are opaque and named
// by the headers' own structure tags; the values are those of OpenSSL 3's ABI, which keeps
// them for the life of libssl.so.3. `scripts/build-without-headers.sh` compiles this file
// against the real headers too (CTLS_CHECK_HEADERS), where every value and every function's
// type is asserted to be the headers' own.
typedef struct ssl_method_st SSL_METHOD;
typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;
typedef struct x509_st X509;
typedef struct X509_name_st X509_NAME;
typedef struct x509_store_ctx_st X509_STORE_CTX;
typedef struct asn1_string_st ASN1_TIME;
typedef struct stack_st OPENSSL_STACK;
typedef int (*SSL_verify_cb)(int preverify_ok, X509_STORE_CTX *x509_ctx);
typedef void (*OPENSSL_sk_freefunc)(void *);

/// The OpenSSL 3 values used below, under OpenSSL's names (the macros of its headers).
enum {
    CTLS_SSL_CTRL_MODE = 33,
    CTLS_SSL_CTRL_SET_TLSEXT_HOSTNAME = 55,
    CTLS_TLSEXT_NAMETYPE_host_name = 0,
    CTLS_SSL_CTRL_SET_MIN_PROTO_VERSION = 123,
    CTLS_SSL_CTRL_SET_MAX_PROTO_VERSION = 124,
    CTLS_SSL_MODE_ENABLE_PARTIAL_WRITE = 0x1,
    CTLS_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER = 0x2,
    CTLS_SSL_FILETYPE_PEM = 1,
    CTLS_SSL_VERIFY_NONE = 0x0,
    CTLS_SSL_VERIFY_PEER = 0x1,
    CTLS_SSL_VERIFY_FAIL_IF_NO_PEER_CERT = 0x2,
    CTLS_SSL_ERROR_NONE = 0,
    CTLS_SSL_ERROR_WANT_READ = 2,
    CTLS_SSL_ERROR_WANT_WRITE = 3,
    CTLS_SSL_ERROR_SYSCALL = 5,
    CTLS_SSL_ERROR_ZERO_RETURN = 6,
    CTLS_X509_V_OK = 0,
    CTLS_X509_R_KEY_VALUES_MISMATCH = 116,
};
/// SSL_OP_IGNORE_UNEXPECTED_EOF (bit 7) and SSL_OP_NO_RENEGOTIATION (bit 30): uint64_t in OpenSSL 3.
static const uint64_t CTLS_SSL_OP_IGNORE_UNEXPECTED_EOF = (uint64_t)1 << 7;
static const uint64_t CTLS_SSL_OP_NO_RENEGOTIATION = (uint64_t)1 << 30;

/// ERR_GET_REASON, an inline function in OpenSSL 3's <openssl/err.h>: a system error (the
/// top bit, ERR_SYSTEM_FLAG) carries its errno in the other bits; a library error its
/// reason in the low 23 (ERR_REASON_MASK).
static int reason_of(unsigned long code) {
    if ((code & 0x80000000UL) != 0) return (int)(code & 0x7FFFFFFFUL);
    return (int)(code & 0x7FFFFFUL);
}

/// libxcrypt's `struct crypt_data` is 32768 bytes; crypt_rn is told the size and refuses
/// (NULL) a buffer smaller than its own, rather than writing past it.
#define CTLS_CRYPT_DATA_SIZE 32768

// Every function used: its result, its name, its parameters, as OpenSSL 3 declares them.
#define CTLS_SSL_FUNCTIONS(X) \
    X(const SSL_METHOD *, TLS_server_method, (void)) \
    X(const SSL_METHOD *, TLS_client_method, (void)) \
    X(int, SSL_CTX_set_default_verify_paths, (SSL_CTX *)) \
    X(long, SSL_ctrl, (SSL *, int, long, void *)) \
    X(int, SSL_set1_host, (SSL *, const char *)) \
    X(int, SSL_connect, (SSL *)) \
    X(SSL_CTX *, SSL_CTX_new, (const SSL_METHOD *)) \
    X(void, SSL_CTX_free, (SSL_CTX *)) \
    X(long, SSL_CTX_ctrl, (SSL_CTX *, int, long, void *)) \
    X(int, SSL_CTX_use_certificate_chain_file, (SSL_CTX *, const char *)) \
    X(int, SSL_CTX_use_PrivateKey_file, (SSL_CTX *, const char *, int)) \
    X(int, SSL_CTX_check_private_key, (const SSL_CTX *)) \
    X(struct stack_st_X509_NAME *, SSL_load_client_CA_file, (const char *)) \
    X(int, SSL_CTX_load_verify_locations, (SSL_CTX *, const char *, const char *)) \
    X(void, SSL_CTX_set_client_CA_list, (SSL_CTX *, struct stack_st_X509_NAME *)) \
    X(void, SSL_CTX_set_verify, (SSL_CTX *, int, SSL_verify_cb)) \
    X(uint64_t, SSL_CTX_set_options, (SSL_CTX *, uint64_t)) \
    X(X509 *, SSL_CTX_get0_certificate, (const SSL_CTX *)) \
    X(SSL *, SSL_new, (SSL_CTX *)) \
    X(int, SSL_set_fd, (SSL *, int)) \
    X(void, SSL_free, (SSL *)) \
    X(int, SSL_accept, (SSL *)) \
    X(int, SSL_read_ex, (SSL *, void *, size_t, size_t *)) \
    X(int, SSL_write_ex, (SSL *, const void *, size_t, size_t *)) \
    X(int, SSL_shutdown, (SSL *)) \
    X(const char *, SSL_get_version, (const SSL *)) \
    X(int, SSL_get_error, (const SSL *, int)) \
    X(long, SSL_get_verify_result, (const SSL *))
#define CTLS_CRYPTO_FUNCTIONS(X) \
    X(const ASN1_TIME *, X509_get0_notAfter, (const X509 *)) \
    X(int, ASN1_TIME_to_tm, (const ASN1_TIME *, struct tm *)) \
    X(const char *, X509_verify_cert_error_string, (long)) \
    X(unsigned long, ERR_peek_error, (void)) \
    X(unsigned long, ERR_peek_last_error, (void)) \
    X(const char *, ERR_reason_error_string, (unsigned long)) \
    X(void, ERR_clear_error, (void)) \
    X(void, OPENSSL_sk_pop_free, (OPENSSL_STACK *, void (*)(void *))) \
    X(void, X509_NAME_free, (X509_NAME *))
#define CTLS_CRYPT_FUNCTIONS(X) \
    X(char *, crypt_rn, (const char *, const char *, void *, int))

#ifdef CTLS_CHECK_HEADERS
// Compiled only by the check (never by the build): the declarations above against the headers.
#include <crypt.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#define CTLS_CHECK_TYPE(result, name, parameters) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), result (*) parameters), #name " is declared differently by the headers");
CTLS_SSL_FUNCTIONS(CTLS_CHECK_TYPE)
CTLS_CRYPTO_FUNCTIONS(CTLS_CHECK_TYPE)
CTLS_CRYPT_FUNCTIONS(CTLS_CHECK_TYPE)
#define CTLS_CHECK_VALUE(name) _Static_assert(CTLS_##name == name, #name " differs from the headers'");
CTLS_CHECK_VALUE(SSL_CTRL_MODE)
CTLS_CHECK_VALUE(SSL_CTRL_SET_TLSEXT_HOSTNAME)
CTLS_CHECK_VALUE(TLSEXT_NAMETYPE_host_name)
CTLS_CHECK_VALUE(SSL_CTRL_SET_MIN_PROTO_VERSION)
CTLS_CHECK_VALUE(SSL_CTRL_SET_MAX_PROTO_VERSION)
CTLS_CHECK_VALUE(SSL_MODE_ENABLE_PARTIAL_WRITE)
CTLS_CHECK_VALUE(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER)
CTLS_CHECK_VALUE(SSL_FILETYPE_PEM)
CTLS_CHECK_VALUE(SSL_VERIFY_NONE)
CTLS_CHECK_VALUE(SSL_VERIFY_PEER)
CTLS_CHECK_VALUE(SSL_VERIFY_FAIL_IF_NO_PEER_CERT)
CTLS_CHECK_VALUE(SSL_ERROR_NONE)
CTLS_CHECK_VALUE(SSL_ERROR_WANT_READ)
CTLS_CHECK_VALUE(SSL_ERROR_WANT_WRITE)
CTLS_CHECK_VALUE(SSL_ERROR_SYSCALL)
CTLS_CHECK_VALUE(SSL_ERROR_ZERO_RETURN)
CTLS_CHECK_VALUE(X509_V_OK)
CTLS_CHECK_VALUE(X509_R_KEY_VALUES_MISMATCH)
_Static_assert(SSL_OP_IGNORE_UNEXPECTED_EOF == (uint64_t)1 << 7 && SSL_OP_NO_RENEGOTIATION == (uint64_t)1 << 30, "SSL_OP_ bits differ");
_Static_assert(ERR_SYSTEM_FLAG == 0x80000000UL && ERR_SYSTEM_MASK == 0x7FFFFFFFUL && ERR_REASON_MASK == 0x7FFFFFUL, "ERR_GET_REASON's masks differ");
_Static_assert(CTLS_TLS12 == TLS1_2_VERSION && CTLS_TLS13 == TLS1_3_VERSION, "TLS versions differ");
_Static_assert(sizeof(struct crypt_data) <= CTLS_CRYPT_DATA_SIZE, "libxcrypt's struct crypt_data is larger");
#endif

#define CTLS_DECLARE(result, name, parameters) static result (*p_##name) parameters;
CTLS_SSL_FUNCTIONS(CTLS_DECLARE)
CTLS_CRYPTO_FUNCTIONS(CTLS_DECLARE)
CTLS_CRYPT_FUNCTIONS(CTLS_DECLARE)

/// A library loaded once, by `pthread_once`: whether it is there, and if not why.
struct loading {
    pthread_once_t once;
    int loaded;
    char error[320];
};

static struct loading openssl = { PTHREAD_ONCE_INIT, 0, "" };
static struct loading libcrypt = { PTHREAD_ONCE_INIT, 0, "" };

static void *open_library(struct loading *loading, const char *name, const char *need) {
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) snprintf(loading->error, sizeof loading->error, "%s: %s", need, dlerror());
    return library;
}

#define CTLS_RESOLVE(loading, library, what, name) \
    if ((p_##name = (__typeof__(p_##name))dlsym(library, #name)) == NULL) { \
        snprintf((loading)->error, sizeof (loading)->error, "the system's %s has no %s", what, #name); \
        return; \
    }

static void load_openssl(void) {
    const char *need = "TLS needs OpenSSL 3 (Debian: libssl3)";
    void *ssl = open_library(&openssl, "libssl.so.3", need);
    void *crypto = ssl != NULL ? open_library(&openssl, "libcrypto.so.3", need) : NULL;
    if (crypto == NULL) return;
#define CTLS_RESOLVE_SSL(result, name, parameters) CTLS_RESOLVE(&openssl, ssl, "OpenSSL", name)
#define CTLS_RESOLVE_CRYPTO(result, name, parameters) CTLS_RESOLVE(&openssl, crypto, "OpenSSL", name)
    CTLS_SSL_FUNCTIONS(CTLS_RESOLVE_SSL)
    CTLS_CRYPTO_FUNCTIONS(CTLS_RESOLVE_CRYPTO)
    openssl.loaded = 1;
}

static void load_libcrypt(void) {
    void *library = open_library(&libcrypt, "libcrypt.so.1", "basic_auth_users needs crypt(3) from libxcrypt (Debian: libcrypt1)");
    if (library == NULL) return;
#define CTLS_RESOLVE_CRYPT(result, name, parameters) CTLS_RESOLVE(&libcrypt, library, "libcrypt", name)
    CTLS_CRYPT_FUNCTIONS(CTLS_RESOLVE_CRYPT)
    libcrypt.loaded = 1;
}

static int finish_loading(struct loading *loading, char *error, size_t error_size) {
    if (!loading->loaded && error != NULL && error_size > 0) snprintf(error, error_size, "%s", loading->error);
    return loading->loaded;
}

int ctls_load(char *error, size_t error_size) {
    pthread_once(&openssl.once, load_openssl);
    return finish_loading(&openssl, error, error_size);
}

int ctls_load_crypt(char *error, size_t error_size) {
    pthread_once(&libcrypt.once, load_libcrypt);
    return finish_loading(&libcrypt, error, error_size);
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
        struct stack_st_X509_NAME *names = p_SSL_load_client_CA_file(client_ca);
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
    case CTLS_CLIENT_NONE: p_SSL_CTX_set_verify(ssl, CTLS_SSL_VERIFY_NONE, NULL); break;
    case CTLS_CLIENT_REQUEST: p_SSL_CTX_set_verify(ssl, CTLS_SSL_VERIFY_PEER, accept_any); break;
    case CTLS_CLIENT_REQUIRE_ANY: p_SSL_CTX_set_verify(ssl, CTLS_SSL_VERIFY_PEER | CTLS_SSL_VERIFY_FAIL_IF_NO_PEER_CERT, accept_any); break;
    case CTLS_CLIENT_VERIFY_IF_GIVEN: p_SSL_CTX_set_verify(ssl, CTLS_SSL_VERIFY_PEER, NULL); break;
    default: p_SSL_CTX_set_verify(ssl, CTLS_SSL_VERIFY_PEER | CTLS_SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL); break;
    }
    return 1;
}

/// The settings both sides share, then the context around `ssl` (freed when that fails):
/// writes may move and be partial (the sockets are non-blocking); no renegotiation (a peer
/// could make the other side redo handshakes); a peer that closes without close_notify has
/// merely closed.
static ctls_context *wrap_context(SSL_CTX *ssl, char *error, size_t error_size) {
    p_SSL_CTX_ctrl(ssl, CTLS_SSL_CTRL_MODE, CTLS_SSL_MODE_ENABLE_PARTIAL_WRITE | CTLS_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER, NULL);
    p_SSL_CTX_set_options(ssl, CTLS_SSL_OP_NO_RENEGOTIATION | CTLS_SSL_OP_IGNORE_UNEXPECTED_EOF);
    ctls_context *context = malloc(sizeof *context);
    if (context == NULL) {
        p_SSL_CTX_free(ssl);
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    context->ssl = ssl;
    return context;
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
    int ok = p_SSL_CTX_ctrl(ssl, CTLS_SSL_CTRL_SET_MIN_PROTO_VERSION, min_version, NULL) == 1 && p_SSL_CTX_ctrl(ssl, CTLS_SSL_CTRL_SET_MAX_PROTO_VERSION, max_version, NULL) == 1;
    if (!ok) {
        describe(error, error_size, "the TLS versions are not supported");
    } else if (p_SSL_CTX_use_certificate_chain_file(ssl, certificate) != 1) {
        snprintf(what, sizeof what, "cannot load cert_file %s", certificate);
        describe(error, error_size, what);
        ok = 0;
    } else if (p_SSL_CTX_use_PrivateKey_file(ssl, key, CTLS_SSL_FILETYPE_PEM) != 1) {
        if (reason_of(p_ERR_peek_last_error()) == CTLS_X509_R_KEY_VALUES_MISMATCH) {
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
    return wrap_context(ssl, error, error_size);
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
    case CTLS_SSL_ERROR_NONE: return CTLS_DONE;
    case CTLS_SSL_ERROR_WANT_READ: return CTLS_WANT_READ;
    case CTLS_SSL_ERROR_WANT_WRITE: return CTLS_WANT_WRITE;
    case CTLS_SSL_ERROR_ZERO_RETURN: return CTLS_CLOSED;
    case CTLS_SSL_ERROR_SYSCALL:
        if (p_ERR_peek_last_error() == 0) {
            snprintf(error, error_size, "the connection ended during TLS");
            return CTLS_FAILED;
        }
        break;
    default: break;
    }
    long verified = p_SSL_get_verify_result(ssl);
    if (verified != CTLS_X509_V_OK) {
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

ctls_context *ctls_client_context_new(char *error, size_t error_size) {
    if (!ctls_load(error, error_size)) return NULL;
    p_ERR_clear_error();
    SSL_CTX *ssl = p_SSL_CTX_new(p_TLS_client_method());
    if (ssl == NULL) {
        describe(error, error_size, "cannot create a TLS context");
        return NULL;
    }
    // The system's trust store, where OpenSSL looks by default (SSL_CERT_FILE and
    // SSL_CERT_DIR override it, as for every OpenSSL client); TLS 1.2 at least; the peer's
    // certificate verified, the handshake failing when it does not verify.
    if (p_SSL_CTX_set_default_verify_paths(ssl) != 1) {
        describe(error, error_size, "cannot load the system's trusted certificates");
        p_SSL_CTX_free(ssl);
        return NULL;
    }
    if (p_SSL_CTX_ctrl(ssl, CTLS_SSL_CTRL_SET_MIN_PROTO_VERSION, CTLS_TLS12, NULL) != 1) {
        describe(error, error_size, "TLS 1.2 is not supported");
        p_SSL_CTX_free(ssl);
        return NULL;
    }
    p_SSL_CTX_set_verify(ssl, CTLS_SSL_VERIFY_PEER, NULL);
    return wrap_context(ssl, error, error_size);
}

ctls_session *ctls_client_session_new(ctls_context *context, int fd, const char *host, int host_is_address) {
    ctls_session *session = ctls_session_new(context, fd);
    if (session == NULL) return NULL;
    // SNI names a host, never an address (RFC 6066 §3); SSL_set1_host checks either against
    // the certificate (its DNS or IP subject alternative names).
    int named = host_is_address || p_SSL_ctrl(session->ssl, CTLS_SSL_CTRL_SET_TLSEXT_HOSTNAME, CTLS_TLSEXT_NAMETYPE_host_name, (void *)host) == 1;
    if (!named || p_SSL_set1_host(session->ssl, host) != 1) {
        p_ERR_clear_error();
        ctls_session_free(session);
        return NULL;
    }
    return session;
}

int ctls_session_connect(ctls_session *session, char *error, size_t error_size) {
    p_ERR_clear_error();
    int result = p_SSL_connect(session->ssl);
    if (result == 1) return CTLS_DONE;
    int reason = p_SSL_get_error(session->ssl, result);
    if (reason == CTLS_SSL_ERROR_ZERO_RETURN || reason == CTLS_SSL_ERROR_SYSCALL) {
        // The peer closed or reset the connection: no TLS answer, but no false one either.
        if (p_ERR_peek_last_error() == 0) {
            snprintf(error, error_size, "the connection ended during the TLS handshake");
        } else {
            describe(error, error_size, "the connection ended during the TLS handshake");
        }
        return CTLS_CLOSED;
    }
    long verified = p_SSL_get_verify_result(session->ssl);
    if (verified != CTLS_X509_V_OK && reason != CTLS_SSL_ERROR_WANT_READ && reason != CTLS_SSL_ERROR_WANT_WRITE) {
        snprintf(error, error_size, "certificate verify failed: %s", p_X509_verify_cert_error_string(verified));
        p_ERR_clear_error();
        return CTLS_FAILED;
    }
    if (reason == CTLS_SSL_ERROR_WANT_READ || reason == CTLS_SSL_ERROR_WANT_WRITE) return outcome(session->ssl, result, error, error_size);
    // A peer that does not speak TLS gives "wrong version number", "packet length too long".
    describe(error, error_size, "handshake");
    return CTLS_FAILED;
}

/// Whether `a` and `b` hold the same `length` bytes, in time that does not depend on where
/// they differ (OpenSSL's CRYPTO_memcmp is not used: basic auth without TLS loads no OpenSSL).
static int same_bytes(const char *a, const char *b, size_t length) {
    volatile unsigned char difference = 0;
    for (size_t index = 0; index < length; index++) difference |= (unsigned char)(a[index] ^ b[index]);
    return difference == 0;
}

int ctls_password_matches(const char *password, const char *hash) {
    if (!ctls_load_crypt(NULL, 0)) return 0;
    char *data = calloc(1, CTLS_CRYPT_DATA_SIZE);
    if (data == NULL) return 0;
    const char *result = p_crypt_rn(password, hash, data, CTLS_CRYPT_DATA_SIZE);
    int matches = 0;
    // libxcrypt answers a hash it cannot use with NULL or a string beginning with '*'.
    if (result != NULL && result[0] != '*') {
        size_t length = strlen(hash);
        matches = strlen(result) == length && same_bytes(result, hash, length);
    }
    explicit_bzero(data, CTLS_CRYPT_DATA_SIZE);
    free(data);
    return matches;
}
#endif
