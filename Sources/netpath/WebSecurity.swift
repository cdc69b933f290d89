#if os(Linux)
import NetPath

/// Why a web configuration cannot be used: one line naming the file; exit status 3 at
/// start, the previous configuration kept on SIGHUP.
struct WebConfigurationFailure: Error, Equatable {
    var message: String
}

extension TLSContext {
    /// A server context for `settings`: the certificate chain and key read, the client CAs
    /// loaded. The files are tried first: OpenSSL says only "system lib" for one it cannot open.
    static func server(_ settings: WebConfiguration.TLS) throws(WebConfigurationFailure) -> TLSContext {
        for (key, file) in [("cert_file", settings.certificateFile), ("key_file", settings.keyFile), ("client_ca_file", settings.clientCAFile)] as [(String, String?)] {
            guard let file else { continue }
            if case .failure(let error) = Syscall.readWholeFile(file, limit: 1) {
                throw WebConfigurationFailure(message: "cannot read \(key) \(file): \(error)")
            }
        }
        func version(_ version: WebConfiguration.TLSVersion) -> ServerSettings.Version {
            switch version {
            case .tls12: .tls12
            case .tls13: .tls13
            }
        }
        let authentication: ServerSettings.ClientAuthentication = switch settings.clientAuth {
        case .none: .none
        case .request: .request
        case .requireAny: .requireAny
        case .verifyIfGiven: .verifyIfGiven
        case .requireAndVerify: .requireAndVerify
        }
        do {
            return try TLSContext(server: ServerSettings(
                certificateFile: settings.certificateFile, keyFile: settings.keyFile,
                minimumVersion: version(settings.minimumVersion), maximumVersion: version(settings.maximumVersion),
                clientAuthentication: authentication, clientCAFile: settings.clientCAFile))
        } catch {
            throw WebConfigurationFailure(message: error.message)
        }
    }
}

/// What `serve` applies to every connection: the web configuration and its TLS context,
/// replaced whole when SIGHUP reloads the file (a connection keeps the one it began with).
final class WebSecurity: Sendable {
    let file: String
    let configuration: WebConfiguration
    let context: TLSContext?
    /// Credentials that matched, so that a scraper's every request does not cost a bcrypt
    /// hash (tens of milliseconds at cost 10, on the server's one thread): what
    /// exporter-toolkit caches too. Bounded; gone with this configuration.
    private let matched = Locked<Set<String>>([])
    static let cacheLimit = 64

    /// Plain HTTP, no authentication: `serve` without `--web-config`.
    static let plain = WebSecurity(file: "", configuration: WebConfiguration(), context: nil)

    init(file: String, configuration: WebConfiguration, context: TLSContext?) {
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
        let context = try configuration.tls.map { settings throws(WebConfigurationFailure) in try TLSContext.server(settings) }
        // crypt(3) is loaded here, not at the first request: a machine without it is told at start.
        if !configuration.basicAuthUsers.isEmpty {
            do {
                try TLS.loadPasswordHashing()
            } catch {
                throw WebConfigurationFailure(message: error.message)
            }
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
        guard TLS.passwordMatches(credentials.password, hash: hash) else { return false }
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
        if end <= now { return "warning: the certificate in \(file) expired \(Help.seconds(.seconds(now - end))) ago; clients will refuse it" }
        if end - now < 86400 { return "warning: the certificate in \(file) expires in \(Help.seconds(.seconds(end - now)))" }
        return nil
    }

    /// A TLS session for an accepted socket, or `nil` for plain HTTP.
    func session(for descriptor: FileDescriptor) -> TLSSession? {
        context.flatMap { TLSSession(context: $0, descriptor: descriptor, role: .server) }
    }
}
#endif
