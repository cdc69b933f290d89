#if os(Linux)
import CTLS

/// The system's OpenSSL 3 as a TLS client for the connectivity check's https endpoints:
/// loaded on first use, never by a check without one (a monitor never loads it otherwise).
///
/// One context per process, made on first use: the trust store is read once.
package final class TLSClientContext: @unchecked Sendable {
    // Immutable once made; OpenSSL lets any number of threads make sessions from one
    // SSL_CTX at once, so no lock guards `pointer`.
    fileprivate let pointer: OpaquePointer

    private init(pointer: OpaquePointer) { self.pointer = pointer }

    /// The process's context, or why there is none (OpenSSL 3 missing, a trust store it
    /// cannot read), as one line.
    package static let shared: Result<TLSClientContext, TLSClientError> = {
        var error = [CChar](repeating: 0, count: 320)
        guard let made = error.withUnsafeMutableBufferPointer({ ctls_client_context_new($0.baseAddress, $0.count) }) else {
            return .failure(TLSClientError(message: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        return .success(TLSClientContext(pointer: made))
    }()
}

/// Why TLS cannot be used, in one line.
package struct TLSClientError: Error, Equatable {
    package var message: String
}

/// One connection's client TLS on a non-blocking socket: the handshake, then reads and
/// writes. Not shared: it lives on the check's thread. Freed before its socket is closed.
package final class TLSClientSession {
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
    private let context: TLSClientContext
    package private(set) var isHandshaken = false

    /// A session on `descriptor` for `host` (sent in SNI unless it is an address, and
    /// checked against the certificate); `nil` when OpenSSL refuses it.
    package init?(context: TLSClientContext, descriptor: FileDescriptor, host: String, hostIsAddress: Bool) {
        guard let made = ctls_client_session_new(context.pointer, descriptor.rawValue, host, hostIsAddress ? 1 : 0) else { return nil }
        pointer = made
        self.context = context
    }

    deinit { ctls_session_free(pointer) }

    /// One step of the handshake.
    package func handshake() -> Step {
        let step = run { error, size in (ctls_session_connect(pointer, error, size), 0) }
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
    package func write(_ bytes: [UInt8]) -> Step {
        bytes.withUnsafeBytes { buffer in
            run { error, size in
                var count = 0
                let result = ctls_session_write(pointer, buffer.baseAddress, buffer.count, &count, error, size)
                return (result, count)
            }
        }
    }

    private func run(_ call: (UnsafeMutablePointer<CChar>, Int) -> (Int32, Int)) -> Step {
        var error = [CChar](repeating: 0, count: 320)
        let (result, count) = error.withUnsafeMutableBufferPointer { call($0.baseAddress!, $0.count) }
        let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch result {
        case Int32(CTLS_DONE): return .done(count)
        case Int32(CTLS_WANT_READ): return .wantRead
        case Int32(CTLS_WANT_WRITE): return .wantWrite
        case Int32(CTLS_CLOSED): return .closed(message)
        default: return .failed(message)
        }
    }
}
#endif
