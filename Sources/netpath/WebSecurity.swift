#if os(Linux)
import CTLS
import Glibc
import NetPath

/// The text a C adapter wrote into `buffer` (up to its NUL).
private func text(of buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Why a web configuration cannot be used: one line naming the file; exit status 3 at
/// start, the previous configuration kept on SIGHUP.
struct WebConfigurationFailure: Error, Equatable {
    var message: String
}

/// An OpenSSL server context: the certificate chain and key read, the client CAs loaded.
/// `SSL_CTX` may be shared by threads once set up (OpenSSL 3): only sessions are made
/// from it, on the server's thread.
final class TLSServerContext: @unchecked Sendable {
    let pointer: OpaquePointer
    /// When the certificate expires (seconds since 1970).
    let notAfter: Int64?

    init(_ settings: WebConfiguration.TLS) throws(WebConfigurationFailure) {
        // OpenSSL says "system lib" for a file it cannot open: the files are tried here first.
        for (key, file) in [("cert_file", settings.certificateFile), ("key_file", settings.keyFile), ("client_ca_file", settings.clientCAFile)] {
            guard let file else { continue }
            if case .failure(let error) = Syscall.readWholeFile(file, limit: 1) {
                throw WebConfigurationFailure(message: "cannot read \(key) \(file): \(error)")
            }
        }
        var error = [CChar](repeating: 0, count: 512)
        let clientAuth: Int32 = switch settings.clientAuth {
        case .none: Int32(CTLS_CLIENT_NONE)
        case .request: Int32(CTLS_CLIENT_REQUEST)
        case .requireAny: Int32(CTLS_CLIENT_REQUIRE_ANY)
        case .verifyIfGiven: Int32(CTLS_CLIENT_VERIFY_IF_GIVEN)
        case .requireAndVerify: Int32(CTLS_CLIENT_REQUIRE_AND_VERIFY)
        }
        let made = ctls_context_new(settings.certificateFile, settings.keyFile,
                                    TLSServerContext.wire(settings.minimumVersion), TLSServerContext.wire(settings.maximumVersion),
                                    clientAuth, settings.clientCAFile, &error, error.count)
        guard let made else {
            throw WebConfigurationFailure(message: text(of: error))
        }
        pointer = made
        let end = ctls_context_not_after(made)
        notAfter = end >= 0 ? end : nil
    }

    deinit { ctls_context_free(pointer) }

    private static func wire(_ version: WebConfiguration.TLSVersion) -> Int32 {
        switch version {
        case .tls12: Int32(CTLS_TLS12)
        case .tls13: Int32(CTLS_TLS13)
        }
    }
}

/// What `serve` applies to every connection: the web configuration and its TLS context,
/// replaced whole when SIGHUP reloads the file (a connection keeps the one it began with).
final class WebSecurity: Sendable {
    let file: String
    let configuration: WebConfiguration
    let context: TLSServerContext?
    /// Credentials that matched, so that a scraper's every request does not cost a bcrypt
    /// hash (tens of milliseconds at cost 10, on the server's one thread): what
    /// exporter-toolkit caches too. Bounded; gone with this configuration.
    private let matched = Locked<Set<String>>([])
    static let cacheLimit = 64

    /// Plain HTTP, no authentication: `serve` without `--web-config`.
    static let plain = WebSecurity(file: "", configuration: WebConfiguration(), context: nil)

    init(file: String, configuration: WebConfiguration, context: TLSServerContext?) {
        self.file = file
        self.configuration = configuration
        self.context = context
    }

    /// Reads, checks and loads `file` (its TLS files too).
    static func load(_ file: String) throws(WebConfigurationFailure) -> WebSecurity {
        let bytes: [UInt8]
        switch Syscall.readWholeFile(file) {
        case .success(let read): bytes = read
        case .failure(let error): throw WebConfigurationFailure(message: "cannot read \(file): \(error)")
        }
        guard let text = BasicCredentials.strictUTF8(bytes[...]) else {
            throw WebConfigurationFailure(message: "\(file) is not UTF-8 text")
        }
        let configuration: WebConfiguration
        do {
            configuration = try WebConfiguration.parse(text, directory: directoryName(of: file))
        } catch {
            throw WebConfigurationFailure(message: "\(file): \(error)")
        }
        let context = try configuration.tls.map { settings throws(WebConfigurationFailure) in try TLSServerContext(settings) }
        // crypt(3) is loaded here, not at the first request: a machine without it is told at start.
        var reason = [CChar](repeating: 0, count: 512)
        if !configuration.basicAuthUsers.isEmpty && ctls_load_crypt(&reason, reason.count) != 1 {
            throw WebConfigurationFailure(message: netpath.text(of: reason))
        }
        return WebSecurity(file: file, configuration: configuration, context: context)
    }

    static func directoryName(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "." }
        return slash == file.startIndex ? "/" : String(file[..<slash])
    }

    /// Whether a request with this `Authorization` header may be answered.
    func authorizes(_ header: String?) -> Bool {
        let users = configuration.basicAuthUsers
        guard !users.isEmpty else { return true }
        guard let header, let credentials = BasicCredentials.parse(header), let hash = users[credentials.user] else { return false }
        let key = credentials.user + "\u{0}" + credentials.password
        if matched.withLock({ $0.contains(key) }) { return true }
        guard ctls_password_matches(credentials.password, hash) == 1 else { return false }
        matched.withLock { cache in
            if cache.count >= WebSecurity.cacheLimit { cache.removeAll() }
            cache.insert(key)
        }
        return true
    }

    /// The warning to print at start or reload when the certificate has expired or will
    /// within a day: Prometheus will refuse it, and the file only says so in its dates.
    func certificateWarning(now: Int64) -> String? {
        guard let end = context?.notAfter, let file = configuration.tls?.certificateFile else { return nil }
        if end <= now { return "warning: the certificate in \(file) expired \(Help.seconds(Double(now - end))) ago; clients will refuse it" }
        if end - now < 86400 { return "warning: the certificate in \(file) expires in \(Help.seconds(Double(end - now)))" }
        return nil
    }

    /// A TLS session for an accepted socket, or `nil` for plain HTTP.
    func session(for descriptor: FileDescriptor) -> TLSSession? {
        context.flatMap { TLSSession(context: $0, descriptor: descriptor.rawValue) }
    }
}

/// One connection's TLS: a handshake, then reads and writes, all non-blocking. Used only by
/// the server's thread.
final class TLSSession {
    enum Step: Equatable {
        case done(Int)
        case wantRead
        case wantWrite
        case closed
        case failed(String)
    }

    private let pointer: OpaquePointer
    private let context: TLSServerContext  // kept alive while the session lives
    private(set) var handshaken = false

    init?(context: TLSServerContext, descriptor: Int32) {
        guard let made = ctls_session_new(context.pointer, descriptor) else { return nil }
        pointer = made
        self.context = context
    }

    deinit { ctls_session_free(pointer) }

    func handshake() -> Step {
        let step = run { error, size in (ctls_session_accept(pointer, error, size), 0) }
        if case .done = step { handshaken = true }
        return step
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Step {
        run { error, size in
            var count = 0
            let result = ctls_session_read(pointer, buffer.baseAddress, buffer.count, &count, error, size)
            return (result, count)
        }
    }

    func write(_ bytes: ArraySlice<UInt8>) -> Step {
        bytes.withUnsafeBytes { buffer in
            run { error, size in
                var count = 0
                let result = ctls_session_write(pointer, buffer.baseAddress, buffer.count, &count, error, size)
                return (result, count)
            }
        }
    }

    func shutdown() { ctls_session_shutdown(pointer) }

    var version: String { String(cString: ctls_session_version(pointer)) }

    private func run(_ call: (UnsafeMutablePointer<CChar>, Int) -> (Int32, Int)) -> Step {
        var error = [CChar](repeating: 0, count: 256)
        let (result, count) = error.withUnsafeMutableBufferPointer { call($0.baseAddress!, $0.count) }
        switch result {
        case Int32(CTLS_DONE): return .done(count)
        case Int32(CTLS_WANT_READ): return .wantRead
        case Int32(CTLS_WANT_WRITE): return .wantWrite
        case Int32(CTLS_CLOSED): return .closed
        default: return .failed(text(of: error))
        }
    }
}
#endif
