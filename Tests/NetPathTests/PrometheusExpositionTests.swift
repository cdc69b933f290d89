import Foundation
import KernelTestSupport
import Testing
@testable import NetPath

/// Paths and namespaces the exposition tests share.
enum MetricsFixture {
    static let ethernet = NetworkInterface(name: "eth0", index: 2, type: .wiredEthernet)
    static let wifi = NetworkInterface(name: "wlan0", index: 3, type: .wifi)

    /// Satisfied over Ethernet, with Wi-Fi as the second choice; checked: full.
    static let satisfied = NetworkPath(
        status: .satisfied, availableInterfaces: [ethernet, wifi], supportsIPv4: true, supportsIPv6: true,
        supportsDNS: true, gateways: ["192.0.2.1"], connectivity: .full
    )
    /// Unsatisfied: Wi-Fi is up, but without carrier.
    static let unsatisfied = NetworkPath(
        status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: .noCarrier, connectivity: .offline
    )
    /// Wi-Fi still authenticating.
    static let requiresConnection = NetworkPath(status: .requiresConnection, connectivity: .offline)
    /// Satisfied over cellular, behind a captive portal.
    static let cellularPortal = NetworkPath(
        status: .satisfied, availableInterfaces: [NetworkInterface(name: "wwan0", index: 4, type: .cellular)],
        isExpensive: true, isConstrained: true, supportsIPv4: true, connectivity: .portal,
        portalURL: "http://portal.example/login"
    )

    /// A name that needs every escape a label value has.
    static let awkwardName = "lab\"1\\a\nb"

    /// Metrics of a namespace that went satisfied (at 100 s) → unsatisfied (130 s) →
    /// satisfied (140 s), with two checks, one resync.
    static func history() -> PathMetrics {
        var metrics = PathMetrics()
        metrics.record(satisfied, at: 1_764_475_800, monotonic: 100)
        metrics.record(unsatisfied, at: 1_764_475_830, monotonic: 130)
        metrics.record(satisfied, at: 1_764_475_840.25, monotonic: 140)
        metrics.recordCheck(duration: 0.042)
        metrics.recordCheck(duration: 7)
        metrics.resyncs = 1
        return metrics
    }

    static func watched(_ name: String, _ path: NetworkPath, at monotonic: Double = 100) -> PrometheusExposition.Namespace {
        var metrics = PathMetrics()
        metrics.record(path, at: 1_764_475_800, monotonic: monotonic)
        return PrometheusExposition.Namespace(name: name, metrics: metrics, path: path)
    }
}

@Suite struct PathMetricsTests {
    @Test func statusSecondsAccumulateAcrossChanges() {
        var metrics = PathMetrics()
        #expect(metrics.statusSeconds(at: 50) == [.satisfied: 0, .unsatisfied: 0, .requiresConnection: 0])
        #expect(metrics.changes == 0 && metrics.lastChangeTime == nil && metrics.status == nil)

        metrics.record(MetricsFixture.satisfied, at: 1_000, monotonic: 100)
        #expect(metrics.statusSeconds(at: 100) == [.satisfied: 0, .unsatisfied: 0, .requiresConnection: 0])
        #expect(metrics.statusSeconds(at: 125.5) == [.satisfied: 25.5, .unsatisfied: 0, .requiresConnection: 0])

        metrics.record(MetricsFixture.unsatisfied, at: 1_030, monotonic: 130)
        metrics.record(MetricsFixture.requiresConnection, at: 1_032, monotonic: 132)
        metrics.record(MetricsFixture.satisfied, at: 1_040, monotonic: 140)
        // The current status's share grows with the scrape time; the closed ones stay.
        #expect(metrics.statusSeconds(at: 140) == [.satisfied: 30, .unsatisfied: 2, .requiresConnection: 8])
        #expect(metrics.statusSeconds(at: 200) == [.satisfied: 90, .unsatisfied: 2, .requiresConnection: 8])
        // A scrape time before the last change (clocks read in another order) adds nothing
        // rather than taking away: a counter never decreases.
        #expect(metrics.statusSeconds(at: 139) == [.satisfied: 30, .unsatisfied: 2, .requiresConnection: 8])
        #expect(metrics.changes == 4 && metrics.lastChangeTime == 1_040 && metrics.status == .satisfied)

        // A path of the same status (another interface) is a change; the status's time
        // goes on without a gap.
        metrics.record(MetricsFixture.cellularPortal, at: 1_050, monotonic: 150)
        #expect(metrics.statusSeconds(at: 160) == [.satisfied: 50, .unsatisfied: 2, .requiresConnection: 8])
        #expect(metrics.changes == 5 && metrics.lastChangeTime == 1_050)
    }

    @Test func histogramBucketsAreCumulative() {
        var metrics = PathMetrics()
        for duration in [0.003, 0.005, 0.7, 4, 400, -1, .nan, .infinity] { metrics.recordCheck(duration: duration) }
        let histogram = metrics.checkDurations
        #expect(histogram.upperBounds == [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300])
        // 0, 0.003 and 0.005 (a bound is inclusive) in the first bucket; 400 only in +Inf;
        // NaN and infinity ignored.
        #expect(histogram.cumulativeCounts == [3, 3, 3, 3, 3, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5, 6])
        #expect(histogram.count == 6)
        #expect(abs(histogram.sum - 404.708) < 1e-9)

        var custom = PathMetrics.Histogram(upperBounds: [1, 2])
        #expect(custom.cumulativeCounts == [0, 0, 0])
        custom.observe(1.5)
        custom.observe(3)
        #expect(custom.cumulativeCounts == [0, 1, 2] && custom.sum == 4.5)
    }
}

@Suite struct PrometheusExpositionTests {
    func text(_ namespaces: [PrometheusExposition.Namespace], probe: Bool = true, at monotonic: Double = 200) -> String {
        PrometheusExposition.text(for: namespaces, version: "1.2.3", probe: probe, at: monotonic)
    }

    /// The sample lines of `text`, without comments.
    func samples(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }
    }

    @Test func twoNamespacesInFull() {
        let output = text([
            PrometheusExposition.Namespace(name: "lab", metrics: MetricsFixture.history(), path: MetricsFixture.satisfied),
            MetricsFixture.watched("", MetricsFixture.unsatisfied),
        ])
        print(output)
    }
}
