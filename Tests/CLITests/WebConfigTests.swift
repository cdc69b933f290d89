import Foundation
import KernelTestSupport
import Testing
@testable import netpath

// `netpath serve --web-config`: exporter-toolkit's web configuration, TLS from the system's
// OpenSSL and bcrypt from crypt(3). The parser on its own, then the real binary with
// certificates made by the `openssl` command, `curl` as the client and a real Prometheus
// scraping over TLS with basic auth.

/// bcrypt hashes (cost 4, so each check is quick) made with crypt(3): `secret` and `changed`.
enum TestHashes {
    static let secret = "$2b$04$4qMiRCmTeH3ZWInVk.35T.0lfNWaTYvhpGvyKrFRJqcIJUxP6DMXG"
    static let changed = "$2b$04$Cx3FUYvDaPDve0U0uaYz0u46FvLQKjEURFpwNTQOHaghD4UKySRz."
    /// `secret` at cost 10, as `htpasswd -nBC 10` writes it (`$2y$`, the same algorithm).
    static let secretCost10 = "$2y$10$04cRUwPNpf5BCxrOAOwjaO/DovHg36inpblaU1PSOSY1.0/g7TtYC"
}

struct WebConfigurationParserTests {
    @Test func exporterToolkitsExampleIsRead() throws {
        let text = """
        # netpath and node_exporter share this file
        tls_server_config:
          cert_file: server.crt
          key_file: "/etc/netpath/server.key"   # absolute: kept
          client_auth_type: RequireAndVerifyClientCert
          client_ca_file: 'ca.crt'
          min_version: TLS13
          prefer_server_cipher_suites: true
        http_server_config:
          http2: true
          headers:
            X-Frame-Options: deny
        basic_auth_users:
          prometheus: \(TestHashes.secretCost10)
          "grafana": '\(TestHashes.secret)'
        """
        let configuration = try WebConfiguration.parse(text, directory: "/etc/netpath")
        #expect(configuration.tls == WebConfiguration.TLS(
            certificateFile: "/etc/netpath/server.crt", keyFile: "/etc/netpath/server.key", clientAuth: .requireAndVerify,
            clientCAFile: "/etc/netpath/ca.crt", minimumVersion: .tls13, maximumVersion: .tls13))
        #expect(configuration.basicAuthUsers == ["prometheus": TestHashes.secretCost10, "grafana": TestHashes.secret])
        #expect(configuration.headers.map(\.name) == ["X-Frame-Options"] && configuration.headers.map(\.value) == ["deny"])
        // Empty sections and an empty file: plain HTTP, no users.
        #expect(try WebConfiguration.parse("", directory: ".") == WebConfiguration())
        #expect(try WebConfiguration.parse("tls_server_config:\nbasic_auth_users: {}\n", directory: ".") == WebConfiguration())
    }

    /// The example shipped in Deploy/ is one NetPath takes.
    @Test func theShippedExampleIsRead() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Deploy/web.yml")
        let configuration = try WebConfiguration.parse(try String(contentsOf: file, encoding: .utf8), directory: "/etc/netpath")
        #expect(configuration.tls?.certificateFile == "/etc/netpath/server.crt" && configuration.tls?.minimumVersion == .tls12)
        #expect(configuration.basicAuthUsers == ["prometheus": TestHashes.secretCost10])
    }

    /// Every mistake is refused with its line, never half-applied.
    @Test(arguments: [
        ("tls_server_config:\n  cert_file: a\n", "line 1: tls_server_config needs key_file"),
        ("tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites:\n    - TLS_AES_128_GCM_SHA256\n",
         "line 4: tls_server_config.cipher_suites is not supported by netpath serve"),
        ("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS10\n", "line 4: min_version 'TLS10' is not supported (TLS12 or TLS13)"),
        ("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n  max_version: TLS12\n",
         "line 1: min_version TLS13 is above max_version TLS12"),
        ("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAndVerifyClientCert\n",
         "line 1: client_auth_type RequireAndVerifyClientCert needs client_ca_file"),
        ("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Sometimes\n", "line 4: client_auth_type 'Sometimes' is not one of"),
        ("basic_auth_users:\n  alice: secret\n", "line 2: the password of 'alice' is not a bcrypt hash"),
        ("basic_auth_users:\n  alice: \(TestHashes.secret)\n  alice: \(TestHashes.secret)\n", "line 3: 'alice' appears twice"),
        ("tls_config:\n  cert_file: a\n", "line 1: unknown key 'tls_config'"),
        ("http_server_config:\n  headers:\n    Content-Type: text/html\n", "line 3: the header 'Content-Type' cannot be set"),
        ("basic_auth_users: [alice]\n", "line 1: a flow list ('[...]') is not supported"),
        ("tls_server_config:\n\tcert_file: a\n", "line 2: a tab in the indentation"),
        ("tls_server_config:\n  cert_file: \"a\n", "line 2: a quoted value that does not end on its line"),
        ("a: 1\n---\nb: 2\n", "line 2: only one document is supported"),
        ("basic_auth_users: &users\n", "line 1: anchors, aliases and tags are not supported"),
        ("  indented: 1\n", "line 1: the document must start at column 1"),
    ])
    func mistakesAreRefusedWithTheirLine(text: String, message: String) {
        #expect(throws: (any Error).self) { try WebConfiguration.parse(text, directory: ".") }
        do {
            _ = try WebConfiguration.parse(text, directory: ".")
        } catch {
            #expect("\(error)".hasPrefix(message), "\(error)")
        }
    }

    @Test func bcryptHashesAreRecognised() {
        #expect(WebConfiguration.isBcrypt(TestHashes.secret))
        #expect(WebConfiguration.isBcrypt(TestHashes.secretCost10))
        #expect(!WebConfiguration.isBcrypt("$1$abc$def"))  // MD5-crypt
        #expect(!WebConfiguration.isBcrypt(String(TestHashes.secret.dropLast())))
        #expect(!WebConfiguration.isBcrypt(TestHashes.secret.replacingOccurrences(of: "$04$", with: "$99$")))
    }

    @Test func basicCredentials() {
        // RFC 7617's example: Aladdin / open sesame.
        #expect(BasicCredentials.parse("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==") == BasicCredentials(user: "Aladdin", password: "open sesame"))
        #expect(BasicCredentials.parse("basic dTpwOnE=") == BasicCredentials(user: "u", password: "p:q"))  // the first ':' splits
        #expect(BasicCredentials.parse("Basic dTo=") == BasicCredentials(user: "u", password: ""))
        #expect(BasicCredentials.parse("Bearer QWxhZGRpbjpvcGVuIHNlc2FtZQ==") == nil)
        #expect(BasicCredentials.parse("Basic QWxhZGRpbg==") == nil)  // no ':'
        #expect(BasicCredentials.parse("Basic QWxh=ZGRp") == nil)
        #expect(BasicCredentials.parse("Basic !!!!") == nil)
        #expect(BasicCredentials.base64Decode("") == [])
        #expect(BasicCredentials.base64Decode("TWE=") == Array("Ma".utf8))
        #expect(BasicCredentials.base64Decode("TQ==") == Array("M".utf8))
    }

    @Test func theAuthorizationHeaderIsRead() {
        let request = HTTPRequest.parse(Array("GET /metrics HTTP/1.1\r\nHost: a\r\nauthorization:  Basic dTpw \r\n\r\n".utf8))
        #expect(request == .head(method: "GET", path: "/metrics", authorization: "Basic dTpw"))
        let twice = HTTPRequest.parse(Array("GET / HTTP/1.1\r\nAuthorization: a\r\nAuthorization: b\r\n\r\n".utf8))
        #expect(twice == .invalid(status: 400, reason: "two Authorization headers"))
    }
}

/// Certificates for one test, made with the `openssl` command in a directory of its own:
/// a CA; the server's for 127.0.0.1; a client's signed by the CA; the same client key with a
/// certificate that expired yesterday; a server certificate that expired yesterday.
final class TLSLab: Sendable {
    let directory: String
    static let openssl = "/usr/bin/openssl"

    init(_ label: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("netpath-tls-\(label)-\(getpid())").path
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let openssl = try requireProgram(TLSLab.openssl, package: "openssl")
        func key(_ name: String) throws {
            try run(openssl, ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "\(directory)/\(name).key"])
        }
        func sign(_ name: String, key: String, subject: String, days: String, server: Bool) throws {
            try run(openssl, ["req", "-new", "-key", "\(directory)/\(key).key", "-subj", subject, "-out", "\(directory)/\(name).csr"])
            let extensions = server ? "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n" : "extendedKeyUsage=clientAuth\n"
            try extensions.write(toFile: "\(directory)/\(name).ext", atomically: true, encoding: .utf8)
            try run(openssl, ["x509", "-req", "-in", "\(directory)/\(name).csr", "-CA", "\(directory)/ca.crt", "-CAkey", "\(directory)/ca.key",
                              "-set_serial", String(Int.random(in: 1...Int(Int32.max))), "-days", days,
                              "-extfile", "\(directory)/\(name).ext", "-out", "\(directory)/\(name).crt"])
        }
        try key("ca")
        try run(openssl, ["req", "-x509", "-new", "-key", "\(directory)/ca.key", "-subj", "/CN=netpath test CA", "-days", "2",
                          "-out", "\(directory)/ca.crt"])
        try key("server")
        try key("client")
        try sign("server", key: "server", subject: "/CN=127.0.0.1", days: "2", server: true)
        try sign("expired-server", key: "server", subject: "/CN=127.0.0.1", days: "-1", server: true)
        try sign("client", key: "client", subject: "/CN=scraper", days: "2", server: false)
        try sign("expired-client", key: "client", subject: "/CN=scraper", days: "-1", server: false)
    }

    func path(_ name: String) -> String { "\(directory)/\(name)" }

    /// Writes the web configuration `web.yml` (relative names are the lab's files).
    @discardableResult
    func writeConfiguration(_ text: String, name: String = "web.yml") throws -> String {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    static func configuration(users: [String: String] = ["prometheus": TestHashes.secret], certificate: String = "server.crt",
                              extra: String = "") -> String {
        var text = "tls_server_config:\n  cert_file: \(certificate)\n  key_file: server.key\n" + extra
        if !users.isEmpty {
            text += "basic_auth_users:\n" + users.sorted { $0.key < $1.key }.map { "  \($0.key): '\($0.value)'\n" }.joined()
        }
        return text
    }
}

/// What `curl` got: its exit status, the HTTP status (0 when there was none) and the body.
struct CurlResult {
    var exit: Int32
    var status: Int
    var body: String
    var errors: String
}

func curl(_ arguments: [String]) throws -> CurlResult {
    let program = try requireProgram("/usr/bin/curl", package: "curl")
    let child = try Child(program, ["--silent", "--show-error", "--max-time", "10", "--write-out", "\n%{http_code}"] + arguments)
    let (output, errors) = child.readToEnd(until: Date().addingTimeInterval(20))
    let exit = child.wait(seconds: 5) ?? -1
    let text = String(decoding: output, as: UTF8.self)
    let split = text.lastIndex(of: "\n") ?? text.endIndex
    let status = Int(text[split...].dropFirst()) ?? 0
    return CurlResult(exit: exit, status: status, body: String(text[..<split]), errors: String(decoding: errors, as: UTF8.self))
}

/// A running `netpath serve --listen 127.0.0.1:0 --web-config FILE`, with its port.
final class SecureServing: Sendable {
    let tool: RunningTool
    let port: UInt16
    var url: String { "https://127.0.0.1:\(port)/metrics" }

    init(_ configuration: String) throws {
        tool = try RunningTool(["serve", "--listen", "127.0.0.1:0", "--web-config", configuration])
        let line = try #require(tool.nextLine(seconds: 15), "serve did not start")
        let prefix = "netpath: serving https://127.0.0.1:"
        guard line.hasPrefix(prefix), let port = UInt16(line.dropFirst(prefix.count).prefix { $0.isNumber }) else {
            throw ServeFailure(description: "unexpected first line: \(line)")
        }
        self.port = port
    }

    func stop() -> Outcome? {
        tool.signal(SIGTERM)
        return tool.finish()
    }
}

@Suite(.enabled(if: requiredTool("/usr/bin/curl") && requiredTool(TLSLab.openssl), "needs curl and openssl"))
struct WebConfigServeTests {
    @Test func tlsAndBasicAuthAsAScraperMeetsThem() throws {
        let lab = try TLSLab("auth")
        defer { lab.remove() }
        let serving = try SecureServing(try lab.writeConfiguration(TLSLab.configuration(extra: "  min_version: TLS12\n")))
        defer { _ = serving.stop() }
        let trusted = ["--cacert", lab.path("ca.crt")]
        let good = try curl(trusted + ["--user", "prometheus:secret", serving.url])
        #expect(good.status == 200 && good.body.contains("netpath_path_status{netns=\"\""), "\(good)")
        let wrong = try curl(trusted + ["--user", "prometheus:wrong", "--include", serving.url])
        #expect(wrong.status == 401 && wrong.body.contains("WWW-Authenticate: Basic"), "\(wrong)")
        #expect(try curl(trusted + ["--user", "nobody:secret", serving.url]).status == 401)
        #expect(try curl(trusted + [serving.url]).status == 401)
        // Plain HTTP to the TLS port: a plain answer that says so, as Go's servers give.
        let plain = try curl(["http://127.0.0.1:\(serving.port)/metrics"])
        #expect(plain.status == 400 && plain.body == "Client sent an HTTP request to an HTTPS server.\n", "\(plain)")
        // A client that does not trust the certificate stops at the handshake.
        #expect(try curl([serving.url]).exit == 60)
        // TLS 1.2 and 1.3 both.
        for version in [["--tls-max", "1.2"], ["--tlsv1.3"]] {
            let answer = try curl(trusted + version + ["--user", "prometheus:secret", "--verbose", serving.url])
            let expected = version == ["--tlsv1.3"] ? "TLSv1.3" : "TLSv1.2"
            #expect(answer.status == 200 && answer.errors.contains("SSL connection using \(expected)"), "\(answer.errors)")
        }
        let outcome = try #require(serving.stop())
        #expect(outcome.status == 0 && outcome.standardError.isEmpty, "\(outcome.standardError)")
    }

    /// `--web-config` applies to the sockets systemd passes as to `--listen`: the first
    /// scrape, which starts netpath, meets TLS and basic auth.
    @Test(.enabled(if: requiredTool(systemdSocketActivate), "needs systemd-socket-activate (Debian: systemd)"))
    func aSocketFromSystemdServesTLSAndBasicAuthToo() throws {
        let lab = try TLSLab("activated")
        defer { lab.remove() }
        let port = try freePort()
        let tool = try RunningTool(["-l", "127.0.0.1:\(port)", netpathBinary, "serve", "--systemd-socket", "--ignore-desktop",
                                    "--web-config", try lab.writeConfiguration(TLSLab.configuration())], executable: systemdSocketActivate)
        defer { tool.signal(SIGTERM); _ = tool.finish() }
        #expect(tool.nextErrorLine(seconds: 15)?.hasPrefix("Listening on 127.0.0.1:\(port) as ") == true)
        let url = "https://127.0.0.1:\(port)/metrics", trusted = ["--cacert", lab.path("ca.crt")]
        let good = try curl(trusted + ["--user", "prometheus:secret", url])
        #expect(good.status == 200 && good.body.contains("netpath_path_status{netns=\"\""), "\(good)")
        #expect(tool.nextLine(seconds: 15) == "netpath: serving \(url)")
        #expect(try curl(trusted + [url]).status == 401)
    }

    @Test func tls13OnlyRefusesATLS12Client() throws {
        let lab = try TLSLab("tls13")
        defer { lab.remove() }
        let serving = try SecureServing(try lab.writeConfiguration(TLSLab.configuration(users: [:], extra: "  min_version: TLS13\n")))
        defer { _ = serving.stop() }
        #expect(try curl(["--cacert", lab.path("ca.crt"), serving.url]).status == 200)
        let old = try curl(["--cacert", lab.path("ca.crt"), "--tls-max", "1.2", serving.url])
        #expect(old.status == 0 && old.exit != 0, "\(old)")
    }

    @Test func aClientCertificateRequiredAndMissingOrExpired() throws {
        let lab = try TLSLab("client")
        defer { lab.remove() }
        let configuration = TLSLab.configuration(users: [:], extra: "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n")
        let serving = try SecureServing(try lab.writeConfiguration(configuration))
        defer { _ = serving.stop() }
        let trusted = ["--cacert", lab.path("ca.crt")]
        let missing = try curl(trusted + [serving.url])
        #expect(missing.status == 0 && missing.exit != 0, "\(missing)")
        let valid = try curl(trusted + ["--cert", lab.path("client.crt"), "--key", lab.path("client.key"), serving.url])
        #expect(valid.status == 200, "\(valid)")
        let expired = try curl(trusted + ["--cert", lab.path("expired-client.crt"), "--key", lab.path("client.key"), serving.url])
        #expect(expired.status == 0 && expired.exit != 0, "\(expired)")
        // The server stays up for the next client.
        #expect(try curl(trusted + ["--cert", lab.path("client.crt"), "--key", lab.path("client.key"), serving.url]).status == 200)
    }

    @Test func anExpiredServerCertificateIsReportedAndRefusedByClients() throws {
        let lab = try TLSLab("expired")
        defer { lab.remove() }
        let serving = try SecureServing(try lab.writeConfiguration(TLSLab.configuration(users: [:], certificate: "expired-server.crt")))
        defer { _ = serving.stop() }
        let warning = try #require(serving.tool.nextErrorLine(seconds: 15))
        #expect(warning.hasPrefix("netpath: warning: the certificate in \(lab.path("expired-server.crt")) expired "), "\(warning)")
        let refused = try curl(["--cacert", lab.path("ca.crt"), serving.url])
        #expect(refused.exit == 60 && refused.errors.contains("expired"), "\(refused)")
    }

    /// SIGHUP re-reads the file: a new password applies to the next connection; a broken
    /// file is reported and the previous configuration stays.
    @Test func sighupReloadsAndABrokenFileKeepsThePrevious() throws {
        let lab = try TLSLab("reload")
        defer { lab.remove() }
        let file = try lab.writeConfiguration(TLSLab.configuration())
        let serving = try SecureServing(file)
        defer { _ = serving.stop() }
        let trusted = ["--cacert", lab.path("ca.crt"), serving.url]
        #expect(try curl(["--user", "prometheus:secret"] + trusted).status == 200)
        try lab.writeConfiguration(TLSLab.configuration(users: ["prometheus": TestHashes.changed]))
        serving.tool.signal(SIGHUP)
        #expect(serving.tool.nextErrorLine(seconds: 15) == "netpath: reloaded \(file)")
        #expect(try curl(["--user", "prometheus:secret"] + trusted).status == 401)
        #expect(try curl(["--user", "prometheus:changed"] + trusted).status == 200)
        try lab.writeConfiguration(TLSLab.configuration() + "cipher_suites: []\n")
        serving.tool.signal(SIGHUP)
        let refused = try #require(serving.tool.nextErrorLine(seconds: 15))
        #expect(refused == "netpath: cannot reload: \(file): line 6: unknown key 'cipher_suites' (tls_server_config, http_server_config, basic_auth_users); the previous configuration stays")
        #expect(try curl(["--user", "prometheus:changed"] + trusted).status == 200)
        let outcome = try #require(serving.stop())
        #expect(outcome.status == 0)
    }

    /// A configuration that cannot be used ends `serve` with one line and exit 3 before it
    /// says it is ready; `--web-config` without `--listen` is a usage error.
    @Test func unusableConfigurationsExit3() throws {
        let lab = try TLSLab("bad")
        defer { lab.remove() }
        let cases: [(String, String)] = [
            (TLSLab.configuration(certificate: "missing.crt"), "netpath: cannot read cert_file \(lab.path("missing.crt")): open: No such file or directory"),
            (TLSLab.configuration(certificate: "server.csr"), "netpath: cannot load cert_file \(lab.path("server.csr")): "),
            ("tls_server_config:\n  cert_file: client.crt\n  key_file: server.key\n",
             "netpath: key_file \(lab.path("server.key")) is not the key of cert_file \(lab.path("client.crt"))"),
            ("basic_auth_users:\n  alice: secret\n", "netpath: \(lab.path("web.yml")): line 2: the password of 'alice' is not a bcrypt hash"),
        ]
        for (text, message) in cases {
            let file = try lab.writeConfiguration(text)
            let outcome = try #require(try netpath("serve", "--listen", "127.0.0.1:0", "--web-config", file))
            #expect(outcome.status == 3 && outcome.standardOutput.isEmpty, "\(outcome)")
            #expect(outcome.standardError.hasPrefix(message) && outcome.standardError.split(separator: "\n").count == 1, "\(outcome.standardError)")
        }
        let absent = try #require(try netpath("serve", "--listen", "127.0.0.1:0", "--web-config", lab.path("absent.yml")))
        #expect(absent.status == 3 && absent.standardError == "netpath: cannot read \(lab.path("absent.yml")): open: No such file or directory\n")
        let usage = try #require(try netpath("serve", "--textfile", lab.path("x.prom"), "--web-config", lab.path("web.yml")))
        #expect(usage.status == 2 && usage.standardError == "netpath: '--web-config' applies to '--listen' and '--systemd-socket', neither of which is given\n")
    }

    /// On a machine without OpenSSL 3 (here: libssl.so.3 hidden by a bind mount of an empty
    /// file, in a mount namespace of its own), TLS cannot be served: one line, exit 3; basic
    /// auth without TLS needs no OpenSSL and still works.
    @Test(.enabled(if: Kernel.canRun, "needs root (a mount namespace)"))
    func withoutLibssl3TLSEndsWithOneLine() throws {
        let lab = try TLSLab("nolibssl")
        defer { lab.remove() }
        let library = try run("/sbin/ldconfig", ["-p"]).split(separator: "\n")
            .first { $0.contains("libssl.so.3 ") && $0.contains("x86-64") }
            .flatMap { $0.components(separatedBy: "=> ").last }
        let path = try #require(library, "ldconfig does not list libssl.so.3")
        let hidden = "mount --bind /dev/null \"$0\" && exec \"$1\" serve --listen 127.0.0.1:0 --web-config \"$2\""
        let tls = try lab.writeConfiguration(TLSLab.configuration(), name: "tls.yml")
        let outcome = try #require(try runTool("/usr/bin/unshare", ["--mount", "--propagation", "private", "sh", "-c", hidden, path, netpathBinary, tls]))
        #expect(outcome.status == 3 && outcome.standardError.hasPrefix("netpath: TLS needs OpenSSL 3 (Debian: libssl3): "), "\(outcome)")
        #expect(outcome.standardError.split(separator: "\n").count == 1 && outcome.standardOutput.isEmpty, "\(outcome)")
        let plain = try lab.writeConfiguration("basic_auth_users:\n  prometheus: '\(TestHashes.secret)'\n", name: "plain.yml")
        let tool = try RunningTool(["--mount", "--propagation", "private", "sh", "-c", hidden, path, netpathBinary, plain],
                                   executable: "/usr/bin/unshare")
        defer { tool.signal(SIGTERM); _ = tool.finish() }
        let line = try #require(tool.nextLine(seconds: 15))
        let prefix = "netpath: serving http://127.0.0.1:"
        let port = try #require(line.hasPrefix(prefix) ? UInt16(line.dropFirst(prefix.count).prefix { $0.isNumber }) : nil, "\(line)")
        #expect(try curl(["--user", "prometheus:secret", "http://127.0.0.1:\(port)/metrics"]).status == 200)
        #expect(try curl(["--user", "prometheus:wrong", "http://127.0.0.1:\(port)/metrics"]).status == 401)
    }

    /// Without libxcrypt (libcrypt.so.1 hidden as libssl.so.3 is above), basic auth cannot
    /// check a password: one line at start, exit 3, rather than a 401 for every scrape; TLS
    /// without basic auth needs no libcrypt and still serves.
    @Test(.enabled(if: Kernel.canRun, "needs root (a mount namespace)"))
    func withoutLibcryptBasicAuthEndsWithOneLine() throws {
        let lab = try TLSLab("nolibcrypt")
        defer { lab.remove() }
        let library = try run("/sbin/ldconfig", ["-p"]).split(separator: "\n")
            .first { $0.contains("libcrypt.so.1 ") && $0.contains("x86-64") }
            .flatMap { $0.components(separatedBy: "=> ").last }
        let path = try #require(library, "ldconfig does not list libcrypt.so.1")
        let hidden = "mount --bind /dev/null \"$0\" && exec \"$1\" serve --listen 127.0.0.1:0 --web-config \"$2\""
        let auth = try lab.writeConfiguration("basic_auth_users:\n  prometheus: '\(TestHashes.secret)'\n", name: "auth.yml")
        let outcome = try #require(try runTool("/usr/bin/unshare", ["--mount", "--propagation", "private", "sh", "-c", hidden, path, netpathBinary, auth]))
        #expect(outcome.status == 3 && outcome.standardError.hasPrefix("netpath: basic_auth_users needs crypt(3) from libxcrypt (Debian: libcrypt1): "),
                "\(outcome)")
        #expect(outcome.standardError.split(separator: "\n").count == 1 && outcome.standardOutput.isEmpty, "\(outcome)")
        let tls = try lab.writeConfiguration(TLSLab.configuration(users: [:]), name: "tls.yml")
        let tool = try RunningTool(["--mount", "--propagation", "private", "sh", "-c", hidden, path, netpathBinary, tls],
                                   executable: "/usr/bin/unshare")
        defer { tool.signal(SIGTERM); _ = tool.finish() }
        let line = try #require(tool.nextLine(seconds: 15))
        let prefix = "netpath: serving https://127.0.0.1:"
        let port = try #require(line.hasPrefix(prefix) ? UInt16(line.dropFirst(prefix.count).prefix { $0.isNumber }) : nil, "\(line)")
        #expect(try curl(["--cacert", lab.path("ca.crt"), "https://127.0.0.1:\(port)/metrics"]).status == 200)
    }

    /// A real Prometheus scrapes over TLS with basic auth (`up` 1), and a job with a wrong
    /// password is refused (`up` 0, 401); promtool finds nothing to say about the text.
    @Test(.enabled(if: requiredTool("/usr/bin/prometheus"), "needs prometheus"))
    func prometheusScrapesOverTLSWithBasicAuth() throws {
        let lab = try TLSLab("prom")
        defer { lab.remove() }
        let serving = try SecureServing(try lab.writeConfiguration(TLSLab.configuration()))
        defer { _ = serving.stop() }
        func job(_ name: String, password: String) -> String {
            """
              - job_name: \(name)
                scheme: https
                tls_config: {ca_file: \(lab.path("ca.crt"))}
                basic_auth: {username: prometheus, password: \(password)}
                static_configs: [{targets: ["127.0.0.1:\(serving.port)"]}]

            """
        }
        try ("global: {scrape_interval: 1s}\nscrape_configs:\n" + job("good", password: "secret") + job("bad", password: "wrong"))
            .write(toFile: lab.path("prometheus.yml"), atomically: true, encoding: .utf8)
        let port = try freePort()
        let prometheus = try Child(try requireProgram("/usr/bin/prometheus", package: "prometheus"), [
            "--config.file=\(lab.path("prometheus.yml"))", "--storage.tsdb.path=\(lab.path("data"))", "--web.listen-address=127.0.0.1:\(port)",
        ])
        defer { prometheus.kill() }
        var targets = ""
        let deadline = Date().addingTimeInterval(30)
        // Both jobs scraped at least once: each has a health other than "unknown".
        while Date() < deadline {
            targets = (try? HTTPExchange.send("GET /api/v1/targets HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", port: port).body) ?? ""
            if targets.components(separatedBy: "\"health\":\"up\"").count == 2 && targets.contains("\"health\":\"down\"") { break }
            HTTPExchange.pause()
        }
        #expect(targets.components(separatedBy: "\"health\":\"up\"").count == 2, "\(targets)")
        #expect(targets.contains("\"health\":\"down\"") && targets.contains("401"), "\(targets)")
        let text = try curl(["--cacert", lab.path("ca.crt"), "--user", "prometheus:secret", serving.url]).body
        let checked = try runWithInput(try requireProgram(ServeTests.promtool, package: "prometheus"), ["check", "metrics"], input: text)
        #expect(checked.status == 0 && checked.output.isEmpty, "\(checked.output)")
    }
}
