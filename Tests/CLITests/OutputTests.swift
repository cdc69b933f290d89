import Foundation
import NetPath
import NetPathSystem
import Testing
@testable import netpath

/// `netpath` formats its own UTC times (gmtime_r would read the time-zone file at every
/// start) and its own JSON (appended piece by piece, with a fast path for plain text).
@Suite struct OutputTests {
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
            var written = JSONLine()  // the library's writer of the time stamp, without gmtime_r
            written.appendUTC(seconds: seconds, milliseconds: 42)
            let actual = written.text
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

    /// An endpoint that answers 404 is not "no answer": the line must not contradict itself.
    @Test func aCheckAnswered404SaysSoWithoutContradiction() {
        let result = ConnectivityResult(connectivity: .limited, url: "http://check.test/204", httpStatus: 404, latencyMilliseconds: 3,
                                        failure: ConnectivityFailure(.httpError, "HTTP 404: the endpoint is broken or gone"))
        #expect(Output.human(result, time: "2026-12-03T13:40:00.000Z", color: false)
                == "13:40:00.000  limited: no Internet (no endpoint gave the expected answer) — HTTP 404: the endpoint is broken or gone  http://check.test/204 answered 404 in 3 ms")
        // No answer: the endpoint is named, with no time, apart from the verdict and its reason.
        let unresolved = ConnectivityResult(connectivity: .local, url: "http://check.test/204", latencyMilliseconds: 1,
                                            failure: ConnectivityFailure(.nameNotResolved, "the name check.test did not resolve"))
        #expect(Output.human(unresolved, time: "2026-12-03T13:40:00.000Z", color: false)
                == "13:40:00.000  local: DNS does not work — the name check.test did not resolve  endpoint http://check.test/204")
        let withPrefix = ConnectivityResult(connectivity: .full, url: "http://45.77.0.10/204", httpStatus: 204, latencyMilliseconds: 2,
                                            nat64Prefix: "64:ff9b::/96")
        #expect(Output.json(withPrefix, time: "t").contains(",\"error\":null,\"nat64Prefix\":\"64:ff9b::/96\","))
    }

    @Test func jsonStringsEscapeExactlyWhatJSONRequires() throws {
        let samples = ["eth0", "", "a\"b", "back\\slash", "tab\there", "line\nbreak", "\u{1}\u{1F}", "wlan-ü-日本", "\u{7F}"]
        for sample in samples {
            let literal = Output.quote(sample)
            let decoded = try JSONSerialization.jsonObject(with: Data("[\(literal)]".utf8)) as? [String]
            #expect(decoded == [sample], "\(literal)")
            #expect(!literal.unicodeScalars.dropFirst().dropLast().contains { $0.value < 0x20 })
        }
        #expect(Output.quote("a\u{1}") == "\"a\\u0001\"")
    }

    @Test func pathJSONHasSPECKeysInOrderAndParses() throws {
        let path = NetworkPath(status: .satisfied,
                               availableInterfaces: [NetworkInterface(name: "eth0", index: 2, type: .wiredEthernet),
                                                     NetworkInterface(name: "wl\"an", index: 3, type: .wifi)],
                               isExpensive: false, supportsIPv4: true, supportsIPv6: true, supportsDNS: true,
                               gateways: ["10.0.0.1", "fe80::1"])
        let line = path.jsonLine(time: "2026-11-30T00:00:00.000Z", includingConnectivity: true)
        #expect(jsonKeys(line) == ["time", "status", "unsatisfiedReason", "diagnosis", "interfaces", "tunnelInterface",
                                   "underlyingInterface", "isExpensive", "isConstrained", "isUltraConstrained", "linkQuality",
                                   "supportsIPv4", "supportsIPv6", "supportsDNS", "gateways", "unresponsiveGateways", "network",
                                   "expensiveSource", "connectivity",
                                   "portalURL", "connectivitySource", "connectivityProxy", "connectivityIPv4", "connectivityFailureIPv4",
                                   "connectivityIPv6", "connectivityFailureIPv6"])
        #expect(line.contains("\"interfaces\":[{\"name\":\"eth0\",\"index\":2,\"type\":\"wiredEthernet\"},{\"name\":\"wl\\\"an\",\"index\":3,"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["status"] as? String == "satisfied" && object["unsatisfiedReason"] is NSNull)
        #expect((object["interfaces"] as? [[String: Any]])?.last?["name"] as? String == "wl\"an")
        #expect(object["gateways"] as? [String] == ["10.0.0.1", "fe80::1"] && object["supportsDNS"] as? Bool == true)
        let offline = NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: .noInterface)
            .jsonLine(time: "t", includingConnectivity: false)
        #expect(offline == "{\"time\":\"t\",\"status\":\"unsatisfied\",\"unsatisfiedReason\":\"notAvailable\",\"diagnosis\":\"noInterface\","
                + "\"interfaces\":[],\"tunnelInterface\":null,\"underlyingInterface\":null,\"isExpensive\":false,\"isConstrained\":false,"
                + "\"isUltraConstrained\":false,\"linkQuality\":\"unknown\",\"supportsIPv4\":false,\"supportsIPv6\":false,"
                + "\"supportsDNS\":false,\"gateways\":[],\"unresponsiveGateways\":[],\"network\":null,\"expensiveSource\":null}")
    }
}
