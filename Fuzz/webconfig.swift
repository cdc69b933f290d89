// libFuzzer target: a web configuration file (`netpath serve --web-config`) →
// YAMLSubset.parse → WebConfiguration.parse; its first line as an Authorization header →
// BasicCredentials.parse and base64.
//
// Rules checked for any input: a configuration that is accepted has absolute file names
// (relative ones resolved from the file's directory), bcrypt hashes only, versions in
// order, a CA file whenever certificates are verified, only the allowed headers; every
// refusal names a line of the file; decoded base64 has the length its text implies.

@testable import NetPathCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    let lineCount = text.split(separator: "\n", omittingEmptySubsequences: false).count
    do {
        let configuration = try WebConfiguration.parse(text, directory: "/etc/netpath")
        check(configuration)
    } catch let error as YAMLError {
        guard error.line >= 1, error.line <= max(1, lineCount), !error.message.isEmpty else {
            fatalError("a refusal at line \(error.line) of \(lineCount): '\(error.message)'")
        }
    } catch {
        fatalError("a refusal that is not a YAMLError: \(error)")
    }
    let header = String(text.prefix { $0 != "\n" })
    if let credentials = BasicCredentials.parse(header), credentials.user.contains(":") {
        fatalError("a user with a ':' from '\(header)'")
    }
    let word = header.trimmingSpaces()
    if let decoded = BasicCredentials.base64Decode(word) {
        let padding = word.reversed().prefix { $0 == "=" }.count
        guard decoded.count == word.utf8.count / 4 * 3 - padding else {
            fatalError("base64 of \(word.utf8.count) characters decoded to \(decoded.count) bytes")
        }
    }
    return 0
}

func check(_ configuration: WebConfiguration) {
    if let tls = configuration.tls {
        guard tls.certificateFile.hasPrefix("/"), tls.keyFile.hasPrefix("/"), tls.clientCAFile?.hasPrefix("/") ?? true else {
            fatalError("a relative file name: \(tls)")
        }
        guard tls.minimumVersion <= tls.maximumVersion, !tls.clientAuth.verifies || tls.clientCAFile != nil else {
            fatalError("inconsistent TLS settings: \(tls)")
        }
    }
    for (user, hash) in configuration.basicAuthUsers where user.contains(":") || !WebConfiguration.isBcrypt(hash) {
        fatalError("user '\(user)' with hash '\(hash)'")
    }
    for header in configuration.headers where !WebConfiguration.allowedHeaders.contains(header.name) {
        fatalError("header '\(header.name)'")
    }
}
