#if os(Linux)
import CTLS

/// Why TLS cannot be used, in one line.
package struct TLSError: Error, Equatable {
    package var message: String
    package init(message: String) { self.message = message }
}

/// A TLS context of the system's OpenSSL 3, loaded on first use (never by a process that
/// needs no TLS): the connectivity check's client context (``client``), or a server's from
/// its certificate files (``init(server:)``, `serve --web-config`).
package final class TLSContext: @unchecked Sendable {
    // Immutable once made; OpenSSL lets any number of threads make sessions from one
    // SSL_CTX at once, so no lock guards `pointer`.
    fileprivate let pointer: OpaquePointer
    /// The server certificate's end of validity (seconds since 1970); `nil` for a client.
    package let notAfter: Int64?

    private init(pointer: OpaquePointer, notAfter: Int64?) {
        self.pointer = pointer
        self.notAfter = notAfter
    }

    deinit { ctls_context_free(pointer) }

    /// The process's client context, or why there is none (OpenSSL 3 missing, a trust
    /// store it cannot read): made once, so the trust store is read once.
    package static let client: Result<TLSContext, TLSError> = Result { () throws(TLSError) in
        let made = try TLS.calling { error, size in ctls_client_context_new(error, size) }
        return TLSContext(pointer: made, notAfter: nil)
    }

    /// What a server's context is made of (node_exporter's `tls_server_config`).
    package struct ServerSettings: Sendable {
        package enum Version: Sendable { case tls12, tls13 }
        package enum ClientAuthentication: Sendable { case none, request, requireAny, verifyIfGiven, requireAndVerify }
        package var certificateFile: String
        package var keyFile: String
        package var minimumVersion: Version
        package var maximumVersion: Version
        package var clientAuthentication: ClientAuthentication
        package var clientCAFile: String?

        package init(certificateFile: String, keyFile: String, minimumVersion: Version, maximumVersion: Version,
                     clientAuthentication: ClientAuthentication, clientCAFile: String?) {
            (self.certificateFile, self.keyFile, self.clientCAFile) = (certificateFile, keyFile, clientCAFile)
            (self.minimumVersion, self.maximumVersion, self.clientAuthentication) = (minimumVersion, maximumVersion, clientAuthentication)
        }
    }

    /// A server context: the certificate and key, the versions, the client certificates asked for.
    /// - Throws: ``TLSError`` with OpenSSL's reason (a file it cannot read or use).
    package convenience init(server settings: ServerSettings) throws(TLSError) {
        let authentication: Int32 = switch settings.clientAuthentication {
        case .none: Int32(CTLS_CLIENT_NONE)
        case .request: Int32(CTLS_CLIENT_REQUEST)
        case .requireAny: Int32(CTLS_CLIENT_REQUIRE_ANY)
        case .verifyIfGiven: Int32(CTLS_CLIENT_VERIFY_IF_GIVEN)
        case .requireAndVerify: Int32(CTLS_CLIENT_REQUIRE_AND_VERIFY)
        }
        func wire(_ version: ServerSettings.Version) -> Int32 {
            switch version {
            case .tls12: Int32(CTLS_TLS12)
            case .tls13: Int32(CTLS_TLS13)
            }
        }
        let made = try TLS.calling { error, size in
            ctls_context_new(settings.certificateFile, settings.keyFile, wire(settings.minimumVersion), wire(settings.maximumVersion),
                             authentication, settings.clientCAFile, error, size)
        }
        let end = ctls_context_not_after(made)
        self.init(pointer: made, notAfter: end >= 0 ? end : nil)
    }
}

/// One connection's TLS on a non-blocking socket, as a client or a server: the handshake,
/// then reads and writes. Not shared: it lives on one loop's thread. Freed before its
/// socket is closed.
package final class TLSSession {
    /// Which end of the connection this is.
    package enum Role: Sendable {
        /// A client of `host` (sent in SNI unless it is an address, and checked against the
        /// certificate).
        case client(host: String, hostIsAddress: Bool)
        case server
    }

    /// What one step did.
    package enum Step: Equatable {
        /// The handshake is done, or this many bytes moved.
        case done(Int)
        case wantRead
        case wantWrite
        /// The peer closed (at the end of a response), or closed or reset the connection
        /// during the handshake (the message).
        case closed(String)
        /// TLS failed: the message says why ("certificate verify failed: ...").
        case failed(String)
    }

    private let pointer: OpaquePointer
    private let context: TLSContext  // kept alive while the session lives
    private let isClient: Bool
    package private(set) var isHandshaken = false

    /// A session on `descriptor`; `nil` when OpenSSL refuses it.
    package init?(context: TLSContext, descriptor: FileDescriptor, role: Role) {
        let made: OpaquePointer? = switch role {
        case .client(let host, let isAddress): ctls_client_session_new(context.pointer, descriptor.rawValue, host, isAddress ? 1 : 0)
        case .server: ctls_session_new(context.pointer, descriptor.rawValue)
        }
        guard let made else { return nil }
        pointer = made
        self.context = context
        if case .client = role { isClient = true } else { isClient = false }
    }

    deinit { ctls_session_free(pointer) }

    /// One step of the handshake (`SSL_connect` or `SSL_accept`).
    package func handshake() -> Step {
        let step = run { [isClient, pointer] error, size in
            (isClient ? ctls_session_connect(pointer, error, size) : ctls_session_accept(pointer, error, size), 0)
        }
        if case .done = step { isHandshaken = true }
        return step
    }

    /// Reads what has come into `buffer`.
    package func read(into buffer: UnsafeMutableRawBufferPointer) -> Step {
        run { error, size in
            var count = 0
            let result = ctls_session_read(pointer, buffer.baseAddress, buffer.count, &count, error, size)
            return (result, count)
        }
    }

    /// Writes `bytes`, or as many as go at once.
    package func write(_ bytes: [UInt8]) -> Step { write(bytes[...]) }

    /// Writes `bytes`, or as many as go at once.
    package func write(_ bytes: ArraySlice<UInt8>) -> Step {
        bytes.withUnsafeBytes { buffer in
            run { error, size in
                var count = 0
                let result = ctls_session_write(pointer, buffer.baseAddress, buffer.count, &count, error, size)
                return (result, count)
            }
        }
    }

    /// Sends close_notify, without waiting for the peer's.
    package func shutdown() { ctls_session_shutdown(pointer) }

    /// The protocol version agreed ("TLSv1.3").
    package var version: String { String(cString: ctls_session_version(pointer)) }

    private func run(_ call: (UnsafeMutablePointer<CChar>, Int) -> (Int32, Int)) -> Step {
        var message = ""
        let (result, count) = TLS.withErrorBuffer { error, size in call(error, size) } reason: { message = $0 }
        switch result {
        case Int32(CTLS_DONE): return .done(count)
        case Int32(CTLS_WANT_READ): return .wantRead
        case Int32(CTLS_WANT_WRITE): return .wantWrite
        case Int32(CTLS_CLOSED): return .closed(message)
        default: return .failed(message)
        }
    }
}

/// OpenSSL's and libxcrypt's calls that are no session's: the error buffer every call
/// writes its reason into, and basic auth's password hashes.
package enum TLS {
    /// The size of the buffer a call writes its one-line reason into.
    static let errorSize = 512

    /// Calls `body` with an error buffer, then `reason` with what it holds.
    static func withErrorBuffer<T>(_ body: (UnsafeMutablePointer<CChar>, Int) -> T, reason: (String) -> Void) -> T {
        var error = [CChar](repeating: 0, count: errorSize)
        let result = error.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
        reason(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        return result
    }

    /// A call that returns a pointer, or `nil` with its reason: the reason thrown.
    static func calling(_ body: (UnsafeMutablePointer<CChar>, Int) -> OpaquePointer?) throws(TLSError) -> OpaquePointer {
        var message = ""
        guard let made = withErrorBuffer(body, reason: { message = $0 }) else { throw TLSError(message: message) }
        return made
    }

    /// Loads crypt(3) (libxcrypt) for ``passwordMatches(_:hash:)``, at start rather than at the first request.
    /// - Throws: ``TLSError`` when it cannot be loaded.
    package static func loadPasswordHashing() throws(TLSError) {
        var message = ""
        let loaded = withErrorBuffer({ error, size in ctls_load_crypt(error, size) }, reason: { message = $0 })
        if loaded != 1 { throw TLSError(message: message) }
    }

    /// Whether `password` hashes to `hash` (bcrypt, as node_exporter's web configuration has them).
    package static func passwordMatches(_ password: String, hash: String) -> Bool {
        ctls_password_matches(password, hash) == 1
    }
}
#endif
