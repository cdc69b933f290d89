import Foundation
import Testing

/// NetPathUI's strings: every key the views use is translated in each language it ships.
@Suite struct LocalizationTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/NetPathUI").standardized

    func table(_ language: String) throws -> [String: String] {
        let text = try String(contentsOf: Self.sources.appendingPathComponent("Resources/\(language).lproj/Localizable.strings"), encoding: .utf8)
        var table: [String: String] = [:]
        for match in text.matches(of: /"((?:[^"\\]|\\.)*)"\s*=\s*"((?:[^"\\]|\\.)*)"\s*;/) {
            table[String(match.1)] = String(match.2)
        }
        return table
    }

    @Test func everyLanguageTranslatesEveryKeyTheViewsUse() throws {
        var used = Set<String>()
        for file in try FileManager.default.contentsOfDirectory(atPath: Self.sources.path) where file.hasSuffix(".swift") {
            let code = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            for match in code.matches(of: /Text\("([^"]+)", bundle: \.module\)/) { used.insert(String(match.1)) }
        }
        #expect(used == ["No Internet connection", "Check your Wi-Fi or mobile data connection.", "Offline"])
        let english = try table("en")
        #expect(Set(english.keys) == used)
        for language in ["de", "tr", "ja"] {
            let translated = try table(language)
            #expect(Set(translated.keys) == used, "\(language) misses keys")
            #expect(translated["No Internet connection"] != english["No Internet connection"], "\(language) is not translated")
            #expect(translated.values.allSatisfy { !$0.isEmpty })
        }
    }
}
