import Foundation
import Testing
@testable import netpath

/// `netpath` formats its own UTC times (gmtime_r would read the time-zone file at every
/// start): the result must equal gmtime_r's for any second.
@Suite struct TimestampTests {
    @Test func utcMatchesGmtimeAcrossCenturies() {
        // Fixed edges (epoch, leap days, century years, before 1970) and random seconds.
        var samples: [Int64] = [0, -1, 86_399, 86_400, 951_782_400, 951_868_799, 4_107_542_400, 4_107_628_800,
                                13_569_465_600, -2_208_988_800, 1_796_083_200, 253_402_300_799]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 { samples.append(Int64.random(in: -5_000_000_000...20_000_000_000, using: &generator)) }
        for seconds in samples {
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.042Z", parts.tm_year + 1900, parts.tm_mon + 1,
                                  parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec)
            let actual = Output.utc(seconds: seconds, milliseconds: 42)
            if actual != expected {
                Issue.record("\(seconds): \(actual) != \(expected)")
                return
            }
        }
    }

    @Test func theToolStampsTheCurrentTime() throws {
        let before = Date()
        let outcome = try #require(try netpath("status", "--json"))
        let after = Date()
        let line = try #require(outcome.lines.first)
        let stamp = String(line.dropFirst("{\"time\":\"".count).prefix(24))
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let time = try #require(formatter.date(from: stamp), "not an ISO 8601 time: \(stamp)")
        #expect(time >= before.addingTimeInterval(-0.001) && time <= after)
    }
}
