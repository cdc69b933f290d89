import Foundation
import KernelTestSupport
import Testing

/// `https://` endpoints (issue 29, item 3) through the tool, in the resolver lab: an HTTPS
/// server whose certificate a test CA signed (trusted through `SSL_CERT_FILE`, as OpenSSL
/// honours it), one whose certificate nothing trusts (an interceptor), and a plain-HTTP
/// server on port 443.
@Suite(.serialized, .enabled(if: Kernel.canRun && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"),
                              "needs root, iproute2, python3 and openssl"))
struct HTTPSCLITests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Support/https_server.py").path

    /// A test CA (`ca.pem`), a certificate it signs for `name` (`server.pem`, `server.key`),
    /// and a self-signed one for the same name (`rogue.pem`), in a new directory.
    static func makeCertificates(for name: String = "secure.test") throws -> String {
        let directory = NSTemporaryDirectory() + "netpath-https-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
        let script = """
            set -e; cd '\(directory)'
            openssl req -x509 \(key) -keyout ca.key -out ca.pem -days 2 -subj '/CN=NetPath test CA'
            openssl req \(key) -keyout server.key -out server.csr -subj /CN=\(name)
            printf 'subjectAltName=DNS:\(name)\\n' > san.ext
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile san.ext
            openssl req -x509 \(key) -keyout rogue.key -out rogue.pem -days 2 -subj /CN=\(name) -addext subjectAltName=DNS:\(name)
            """
        let made = try #require(try runTool("/bin/sh", ["-c", script]))
        #expect(made.status == 0, "\(made.standardError)")
        return directory
    }

    func probe(_ lab: ResolverLab, _ urls: [String], certificates: String) throws -> (status: Int32, result: [String: Any], line: String) {
        let arguments = ["probe", "--json", "--netns", lab.client.name] + urls.flatMap { ["--url", $0] }
        let outcome = try #require(try runTool(netpathBinary, arguments, environment: ["SSL_CERT_FILE": certificates + "/ca.pem"]))
        let line = try #require(outcome.lines.first, "\(outcome.standardError)")
        return (outcome.status, try jsonObject(line), line)
    }

    @Test func aTrustedCertificatePassesAndAnInterceptorIsLimited() throws {
        let certificates = try Self.makeCertificates()
        defer { try? FileManager.default.removeItem(atPath: certificates) }
        let live = ResolverLab.liveServer
        let lab = try ResolverLab(rules: ["--answer", "secure.test=\(live)", "--answer", "other.test=\(live)",
                                          "--answer", "check.test=\(live)", "--answer", "plain.test=\(ResolverLab.deadServer)"],
                                  servers: [live])
        defer { lab.remove() }
        let python = ["/usr/bin/env", "python3"]
        try lab.startInServer(python + [Self.script, "--bind", live, "--port", "443",
                                        "--cert", certificates + "/server.pem", "--key", certificates + "/server.key"],
                              readyWhenOutputContains: "ready")
        try lab.startInServer(python + [Self.script, "--bind", live, "--port", "8443",
                                        "--cert", certificates + "/rogue.pem", "--key", certificates + "/rogue.key"],
                              readyWhenOutputContains: "ready")
        try lab.startInServer(python + [Self.script, "--bind", ResolverLab.deadServer, "--port", "443", "--plain"],
                              readyWhenOutputContains: "ready")

        // The name resolved by the lab's DNS, the certificate signed by the trusted test CA.
        var (status, result, line) = try probe(lab, ["https://secure.test/204"], certificates: certificates)
        #expect(status == 0 && result["connectivity"] as? String == "full", "\(line)")

        // A certificate nothing trusts: what an interceptor gives. Not full, and at once.
        (status, result, line) = try probe(lab, ["https://secure.test:8443/204"], certificates: certificates)
        #expect(status == 1 && result["connectivity"] as? String == "limited", "\(line)")
        #expect((result["error"] as? String)?.contains("certificate verify failed: self-signed certificate") == true, "\(line)")
        #expect(try #require(result["latencyMs"] as? Double) <= 1000, "\(line)")

        // A trusted certificate for another name.
        (status, result, line) = try probe(lab, ["https://other.test/204"], certificates: certificates)
        #expect(status == 1 && result["connectivity"] as? String == "limited", "\(line)")
        #expect((result["error"] as? String)?.contains("hostname mismatch") == true, "\(line)")

        // Plain HTTP where TLS should be: limited, said so, at once.
        (status, result, line) = try probe(lab, ["https://plain.test/204"], certificates: certificates)
        #expect(status == 1 && result["connectivity"] as? String == "limited", "\(line)")
        #expect(try #require(result["latencyMs"] as? Double) <= 1000, "\(line)")
        #expect((result["error"] as? String)?.contains("TLS with \(ResolverLab.deadServer) port 443 failed") == true, "\(line)")

        // An HTTP endpoint passing does not outweigh an HTTPS one that is intercepted.
        (status, result, line) = try probe(lab, ["http://check.test/204", "https://secure.test:8443/204"], certificates: certificates)
        #expect(status == 1 && result["connectivity"] as? String == "limited", "\(line)")
        #expect((result["error"] as? String)?.contains("certificate verify failed") == true, "\(line)")
    }
}
