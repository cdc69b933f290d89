/// `netpath serve --web-config FILE`: the web configuration file of Prometheus'
/// exporter-toolkit (node_exporter's `--web.config.file`), so that one file and one
/// scrape configuration serve both. What NetPath reads:
///
/// ```yaml
/// tls_server_config:
///   cert_file: server.crt          # relative paths: from the file's directory
///   key_file: server.key
///   client_auth_type: RequireAndVerifyClientCert   # optional; NoClientCert by default
///   client_ca_file: ca.crt
///   min_version: TLS12             # TLS12 (default) or TLS13
///   max_version: TLS13
/// http_server_config:
///   headers:
///     Strict-Transport-Security: max-age=31536000
/// basic_auth_users:
///   prometheus: $2y$10$...         # bcrypt hashes (htpasswd -nBC 10 USER)
/// ```
///
/// Unknown keys are errors, as in exporter-toolkit, and so are its keys that NetPath does
/// not implement (`cipher_suites`, `curve_preferences`, `client_allowed_sans`, inline
/// `cert`/`key`): a file is never half-applied. Pure: parsed and checked without touching
/// a file (`TLSServerContext` loads the certificate files).
struct WebConfiguration: Equatable, Sendable {
    /// exporter-toolkit's `client_auth_type`.
    enum ClientAuth: String, Equatable, Sendable, CaseIterable {
        case none = "NoClientCert"
        case request = "RequestClientCert"
        case requireAny = "RequireAnyClientCert"
        case verifyIfGiven = "VerifyClientCertIfGiven"
        case requireAndVerify = "RequireAndVerifyClientCert"

        /// Whether certificates that come are checked against `client_ca_file`.
        var verifies: Bool { self == .verifyIfGiven || self == .requireAndVerify }
    }

    enum TLSVersion: String, Equatable, Sendable, Comparable, CaseIterable {
        case tls12 = "TLS12"
        case tls13 = "TLS13"

        static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs == .tls12 && rhs == .tls13 }
    }

    struct TLS: Equatable, Sendable {
        var certificateFile: String
        var keyFile: String
        var clientAuth: ClientAuth = .none
        var clientCAFile: String?
        var minimumVersion: TLSVersion = .tls12
        var maximumVersion: TLSVersion = .tls13
    }

    /// TLS; `nil`: plain HTTP.
    var tls: TLS?
    /// Users and their bcrypt hashes; empty: no authentication.
    var basicAuthUsers: [String: String] = [:]
    /// Headers added to every answer.
    var headers: [(name: String, value: String)] = []

    static func == (lhs: WebConfiguration, rhs: WebConfiguration) -> Bool {
        lhs.tls == rhs.tls && lhs.basicAuthUsers == rhs.basicAuthUsers
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    /// The headers exporter-toolkit lets a configuration set (others could break HTTP).
    static let allowedHeaders = ["Strict-Transport-Security", "X-Content-Type-Options", "X-Frame-Options",
                                 "X-XSS-Protection", "Content-Security-Policy"]

    /// exporter-toolkit's keys that NetPath does not implement.
    static let unsupportedKeys: Set<String> = ["cert", "key", "client_ca", "cipher_suites", "curve_preferences",
                                               "client_allowed_sans"]

    /// Reads a configuration from `text`; relative file names are taken from `directory`
    /// (the configuration file's own).
    static func parse(_ text: String, directory: String) throws -> WebConfiguration {
        let root = try YAMLSubset.parse(text)
        var configuration = WebConfiguration()
        for (key, value) in try entries(of: root, in: "the file") {
            switch key {
            case "tls_server_config": configuration.tls = try tls(value, directory: directory)
            case "basic_auth_users": configuration.basicAuthUsers = try users(value)
            case "http_server_config": configuration.headers = try headers(value)
            default: throw YAMLError(line: value.line, message: "unknown key '\(key)' (tls_server_config, http_server_config, basic_auth_users)")
            }
        }
        return configuration
    }

    /// The entries of a mapping (an empty value has none).
    private static func entries(of node: YAMLNode, in place: String) throws -> [(key: String, value: YAMLNode)] {
        switch node {
        case .mapping(let entries, _): return entries
        case .empty: return []
        default: throw YAMLError(line: node.line, message: "\(place) must be a mapping of 'key: value' lines")
        }
    }

    private static func text(_ node: YAMLNode, key: String) throws -> String {
        guard case .scalar(let value, _) = node, !value.isEmpty else {
            throw YAMLError(line: node.line, message: "'\(key)' needs a value")
        }
        return value
    }

    private static func tls(_ node: YAMLNode, directory: String) throws -> TLS? {
        var certificate: String?, key: String?, clientCA: String?
        var settings = TLS(certificateFile: "", keyFile: "")
        let fields = try entries(of: node, in: "tls_server_config")
        if fields.isEmpty { return nil }
        for (name, value) in fields {
            switch name {
            case "cert_file": certificate = resolve(try text(value, key: name), in: directory)
            case "key_file": key = resolve(try text(value, key: name), in: directory)
            case "client_ca_file": clientCA = resolve(try text(value, key: name), in: directory)
            case "client_auth_type":
                let word = try text(value, key: name)
                // exporter-toolkit's older name for RequireAnyClientCert.
                guard let auth = word == "RequireClientCert" ? .requireAny : ClientAuth(rawValue: word) else {
                    throw YAMLError(line: value.line, message: "client_auth_type '\(word)' is not one of \(ClientAuth.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                settings.clientAuth = auth
            case "min_version": settings.minimumVersion = try version(value, key: name)
            case "max_version": settings.maximumVersion = try version(value, key: name)
            case "prefer_server_cipher_suites":
                // OpenSSL's server order is always used; the key is taken for compatibility.
                guard case .scalar(let flag, _) = value, flag == "true" || flag == "false" else {
                    throw YAMLError(line: value.line, message: "prefer_server_cipher_suites must be true or false")
                }
            case _ where unsupportedKeys.contains(name):
                throw YAMLError(line: value.line, message: "tls_server_config.\(name) is not supported by netpath serve")
            default:
                throw YAMLError(line: value.line, message: "unknown key 'tls_server_config.\(name)'")
            }
        }
        guard let certificate else { throw YAMLError(line: node.line, message: "tls_server_config needs cert_file") }
        guard let key else { throw YAMLError(line: node.line, message: "tls_server_config needs key_file") }
        settings.certificateFile = certificate
        settings.keyFile = key
        settings.clientCAFile = clientCA
        try check(settings, line: node.line)
        return settings
    }

    private static func check(_ settings: TLS, line: Int) throws {
        if settings.clientAuth.verifies && settings.clientCAFile == nil {
            throw YAMLError(line: line, message: "client_auth_type \(settings.clientAuth.rawValue) needs client_ca_file")
        }
        if settings.clientAuth == .none && settings.clientCAFile != nil {
            throw YAMLError(line: line, message: "client_ca_file is set but client_auth_type is NoClientCert")
        }
        if settings.maximumVersion < settings.minimumVersion {
            throw YAMLError(line: line, message: "min_version \(settings.minimumVersion.rawValue) is above max_version \(settings.maximumVersion.rawValue)")
        }
    }

    private static func version(_ node: YAMLNode, key: String) throws -> TLSVersion {
        let word = try text(node, key: key)
        guard let version = TLSVersion(rawValue: word) else {
            throw YAMLError(line: node.line, message: "\(key) '\(word)' is not supported (TLS12 or TLS13)")
        }
        return version
    }

    private static func users(_ node: YAMLNode) throws -> [String: String] {
        var users: [String: String] = [:]
        for (user, value) in try entries(of: node, in: "basic_auth_users") {
            guard !user.contains(":") else { throw YAMLError(line: value.line, message: "the user name '\(user)' has a ':'") }
            guard case .scalar(let hash, _) = value, isBcrypt(hash) else {
                throw YAMLError(line: value.line, message: "the password of '\(user)' is not a bcrypt hash ($2y$10$ and 53 characters; htpasswd -nBC 10 \(user))")
            }
            users[user] = hash
        }
        return users
    }

    private static func headers(_ node: YAMLNode) throws -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        for (name, value) in try entries(of: node, in: "http_server_config") {
            switch name {
            case "http2":
                // HTTP/1.1 only: a scraper falls back to it. Taken for compatibility.
                continue
            case "headers":
                for (header, text) in try entries(of: value, in: "http_server_config.headers") {
                    guard let allowed = allowedHeaders.first(where: { $0.lowercased() == header.lowercased() }) else {
                        throw YAMLError(line: text.line, message: "the header '\(header)' cannot be set (\(allowedHeaders.joined(separator: ", ")))")
                    }
                    let content = try self.text(text, key: header)
                    guard content.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) else {
                        throw YAMLError(line: text.line, message: "the value of '\(header)' is not printable ASCII")
                    }
                    headers.append((allowed, content))
                }
            default:
                throw YAMLError(line: value.line, message: "unknown key 'http_server_config.\(name)' (http2, headers)")
            }
        }
        return headers
    }

    /// A bcrypt hash as htpasswd and Go's bcrypt write it: `$2a$`, `$2b$` or `$2y$`, a cost
    /// of 04 to 31, `$`, 53 characters of bcrypt's base-64 alphabet.
    static func isBcrypt(_ hash: String) -> Bool {
        let bytes = Array(hash.utf8)
        guard bytes.count == 60, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"),
              [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(bytes[2]),
              bytes[3] == UInt8(ascii: "$"), bytes[6] == UInt8(ascii: "$"),
              let cost = Int(String(decoding: bytes[4...5], as: UTF8.self)), (4...31).contains(cost) else { return false }
        return bytes[7...].allSatisfy { byte in
            byte == UInt8(ascii: ".") || byte == UInt8(ascii: "/") || (byte >= 0x30 && byte <= 0x39)
                || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        }
    }

    private static func resolve(_ file: String, in directory: String) -> String {
        if file.hasPrefix("/") || directory.isEmpty { return file }
        return directory.hasSuffix("/") ? directory + file : directory + "/" + file
    }
}

/// The user and password of an `Authorization: Basic …` header (RFC 7617).
struct BasicCredentials: Equatable, Sendable {
    var user: String
    var password: String

    /// `nil` when `header` is not `Basic` with base64 of `user:password`.
    static func parse(_ header: String) -> BasicCredentials? {
        let parts = header.trimmingSpaces().split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let decoded = base64Decode(parts[1].trimmingSpaces()),
              let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        guard let user = strictUTF8(decoded[..<colon]), let password = strictUTF8(decoded[(colon + 1)...]) else { return nil }
        return BasicCredentials(user: user, password: password)
    }

    /// `bytes` as UTF-8 text; `nil` when they are not UTF-8. (`String(validating:as:)` needs
    /// iOS 18 and macOS 15; the tool also builds for older Apple systems.)
    static func strictUTF8(_ bytes: ArraySlice<UInt8>) -> String? {
        var scalars = String.UnicodeScalarView()
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: return String(scalars)
            case .error: return nil
            }
        }
    }

    /// Standard base64 with padding (RFC 4648 §4); `nil` for anything else.
    static func base64Decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        for start in stride(from: 0, to: input.count, by: 4) {
            let group = input[start..<start + 4]
            let padding = group.reversed().prefix { $0 == UInt8(ascii: "=") }.count
            guard padding <= 2, padding == 0 || start + 4 == input.count else { return nil }
            var value: UInt32 = 0
            for (offset, byte) in group.enumerated() {
                let digit: UInt32
                if offset >= 4 - padding {
                    digit = 0
                } else if let sextet = sextet(byte) {
                    digit = sextet
                } else {
                    return nil
                }
                value = value << 6 | digit
            }
            let bytes = [UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            output += bytes.prefix(3 - padding)
        }
        return output
    }

    private static func sextet(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(byte - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
