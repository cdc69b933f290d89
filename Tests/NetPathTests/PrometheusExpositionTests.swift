import Foundation
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem
@testable import NetPathPrometheus

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

    func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The host unsatisfied since 100 s, namespace "lab" with a history, scraped at 200 s.
    var twoNamespaces: [PrometheusExposition.Namespace] {
        [
            PrometheusExposition.Namespace(name: "lab", metrics: MetricsFixture.history(), path: MetricsFixture.satisfied),
            MetricsFixture.watched("", MetricsFixture.unsatisfied),
        ]
    }

    @Test func twoNamespacesWithoutConnectivityChecks() {
        #expect(text(twoNamespaces, probe: false) == #"""
        # HELP netpath_path_status Whether the network path has this status (1) or not (0): satisfied, unsatisfied or requiresConnection.
        # TYPE netpath_path_status gauge
        netpath_path_status{netns="",status="satisfied"} 0
        netpath_path_status{netns="",status="unsatisfied"} 1
        netpath_path_status{netns="",status="requiresConnection"} 0
        netpath_path_status{netns="lab",status="satisfied"} 1
        netpath_path_status{netns="lab",status="unsatisfied"} 0
        netpath_path_status{netns="lab",status="requiresConnection"} 0
        # HELP netpath_path_diagnosis Why the path is not satisfied: 1 for the diagnosis that holds, all 0 when it is satisfied.
        # TYPE netpath_path_diagnosis gauge
        netpath_path_diagnosis{netns="",diagnosis="filtered"} 0
        netpath_path_diagnosis{netns="",diagnosis="noInterface"} 0
        netpath_path_diagnosis{netns="",diagnosis="noCarrier"} 1
        netpath_path_diagnosis{netns="",diagnosis="noAddress"} 0
        netpath_path_diagnosis{netns="",diagnosis="blocked"} 0
        netpath_path_diagnosis{netns="",diagnosis="noDefaultRoute"} 0
        netpath_path_diagnosis{netns="lab",diagnosis="filtered"} 0
        netpath_path_diagnosis{netns="lab",diagnosis="noInterface"} 0
        netpath_path_diagnosis{netns="lab",diagnosis="noCarrier"} 0
        netpath_path_diagnosis{netns="lab",diagnosis="noAddress"} 0
        netpath_path_diagnosis{netns="lab",diagnosis="blocked"} 0
        netpath_path_diagnosis{netns="lab",diagnosis="noDefaultRoute"} 0
        # HELP netpath_path_interface_info An interface the path can use, best first: rank 0 is the one traffic leaves through.
        # TYPE netpath_path_interface_info gauge
        netpath_path_interface_info{netns="lab",interface="eth0",type="wiredEthernet",rank="0"} 1
        netpath_path_interface_info{netns="lab",interface="wlan0",type="wifi",rank="1"} 1
        # HELP netpath_gateway_up A default gateway of the path: 0 when the kernel's neighbor entry for it failed (no ARP reply, no neighbor advertisement).
        # TYPE netpath_gateway_up gauge
        netpath_gateway_up{netns="lab",gateway="192.0.2.1",family="ipv4"} 1
        # HELP netpath_path_link_quality How well the link is doing, as iOS 26 estimates it: 1 for the estimate that holds (unknown on Linux).
        # TYPE netpath_path_link_quality gauge
        netpath_path_link_quality{netns="",quality="unknown"} 1
        netpath_path_link_quality{netns="",quality="minimal"} 0
        netpath_path_link_quality{netns="",quality="moderate"} 0
        netpath_path_link_quality{netns="",quality="good"} 0
        netpath_path_link_quality{netns="lab",quality="unknown"} 1
        netpath_path_link_quality{netns="lab",quality="minimal"} 0
        netpath_path_link_quality{netns="lab",quality="moderate"} 0
        netpath_path_link_quality{netns="lab",quality="good"} 0
        # HELP netpath_path_supports_ipv4 Whether IPv4 is routed to the Internet through a usable interface and source address.
        # TYPE netpath_path_supports_ipv4 gauge
        netpath_path_supports_ipv4{netns=""} 0
        netpath_path_supports_ipv4{netns="lab"} 1
        # HELP netpath_path_supports_ipv6 Whether IPv6 is routed to the Internet through a usable interface and source address.
        # TYPE netpath_path_supports_ipv6 gauge
        netpath_path_supports_ipv6{netns=""} 0
        netpath_path_supports_ipv6{netns="lab"} 1
        # HELP netpath_path_supports_dns Whether the path is satisfied and at least one DNS server is configured for it.
        # TYPE netpath_path_supports_dns gauge
        netpath_path_supports_dns{netns=""} 0
        netpath_path_supports_dns{netns="lab"} 1
        # HELP netpath_path_expensive Whether the physical interface (beneath a tunnel, if any) is expensive: cellular, or configured as metered.
        # TYPE netpath_path_expensive gauge
        netpath_path_expensive{netns=""} 0
        netpath_path_expensive{netns="lab"} 0
        # HELP netpath_path_constrained Whether the path is constrained: the physical interface is configured as constrained.
        # TYPE netpath_path_constrained gauge
        netpath_path_constrained{netns=""} 0
        netpath_path_constrained{netns="lab"} 0
        # HELP netpath_path_ultra_constrained Whether the path is ultra-constrained (a satellite link): the physical interface is configured so.
        # TYPE netpath_path_ultra_constrained gauge
        netpath_path_ultra_constrained{netns=""} 0
        netpath_path_ultra_constrained{netns="lab"} 0
        # HELP netpath_path_tunnel Whether the path leaves through a tunnel (a VPN).
        # TYPE netpath_path_tunnel gauge
        netpath_path_tunnel{netns=""} 0
        netpath_path_tunnel{netns="lab"} 0
        # HELP netpath_path_changes_total Paths the monitor emitted since it started, the first one included.
        # TYPE netpath_path_changes_total counter
        netpath_path_changes_total{netns=""} 1
        netpath_path_changes_total{netns="lab"} 3
        # HELP netpath_path_status_seconds_total Seconds the path spent in each status since the monitor started.
        # TYPE netpath_path_status_seconds_total counter
        netpath_path_status_seconds_total{netns="",status="satisfied"} 0
        netpath_path_status_seconds_total{netns="",status="unsatisfied"} 100
        netpath_path_status_seconds_total{netns="",status="requiresConnection"} 0
        netpath_path_status_seconds_total{netns="lab",status="satisfied"} 90
        netpath_path_status_seconds_total{netns="lab",status="unsatisfied"} 10
        netpath_path_status_seconds_total{netns="lab",status="requiresConnection"} 0
        # HELP netpath_path_last_change_timestamp_seconds Unix time of the last path change.
        # TYPE netpath_path_last_change_timestamp_seconds gauge
        netpath_path_last_change_timestamp_seconds{netns=""} 1764475800
        netpath_path_last_change_timestamp_seconds{netns="lab"} 1764475840.25
        # HELP netpath_resyncs_total Times the monitor lost kernel events (a receive-buffer overrun) and read the whole state again.
        # TYPE netpath_resyncs_total counter
        netpath_resyncs_total{netns=""} 0
        netpath_resyncs_total{netns="lab"} 1
        # HELP netpath_namespace_up Whether the network namespace is watched (1) or cannot be watched (0).
        # TYPE netpath_namespace_up gauge
        netpath_namespace_up{netns=""} 1
        netpath_namespace_up{netns="lab"} 1
        # HELP netpath_build_info The version of netpath that serves these metrics, as a label; always 1.
        # TYPE netpath_build_info gauge
        netpath_build_info{version="1.2.3"} 1

        """#)
    }

    @Test func connectivityOnlyWithChecks() {
        let withChecks = lines(text(twoNamespaces, probe: true))
        #expect(withChecks.filter { $0.hasPrefix("netpath_connectivity{") } == [
            #"netpath_connectivity{netns="",connectivity="unknown"} 0"#,
            #"netpath_connectivity{netns="",connectivity="offline"} 1"#,
            #"netpath_connectivity{netns="",connectivity="local"} 0"#,
            #"netpath_connectivity{netns="",connectivity="limited"} 0"#,
            #"netpath_connectivity{netns="",connectivity="portal"} 0"#,
            #"netpath_connectivity{netns="",connectivity="full"} 0"#,
            #"netpath_connectivity{netns="lab",connectivity="unknown"} 0"#,
            #"netpath_connectivity{netns="lab",connectivity="offline"} 0"#,
            #"netpath_connectivity{netns="lab",connectivity="local"} 0"#,
            #"netpath_connectivity{netns="lab",connectivity="limited"} 0"#,
            #"netpath_connectivity{netns="lab",connectivity="portal"} 0"#,
            #"netpath_connectivity{netns="lab",connectivity="full"} 1"#,
        ])
        #expect(withChecks.contains("# TYPE netpath_connectivity_check_duration_seconds histogram"))
        let withoutChecks = text(twoNamespaces, probe: false)
        #expect(!withoutChecks.contains("netpath_connectivity"))
        // Everything else is the same.
        #expect(withChecks.filter { !$0.contains("netpath_connectivity") } == lines(withoutChecks))
    }

    /// Each family's verdict is a state set of its own: the overall series keep their
    /// labels (a selector on `netpath_connectivity{connectivity="full"}` matches one series
    /// per namespace), and a family not checked reads `unknown`.
    @Test func familyVerdictsAreAStateSetOfTheirOwn() {
        var path = MetricsFixture.satisfied
        path.familyConnectivity = [.ipv4: FamilyConnectivity(connectivity: .full),
                                   .ipv6: FamilyConnectivity(connectivity: .limited, failedStep: .http)]
        let both = lines(text([MetricsFixture.watched("", path)], probe: true))
        #expect(both.filter { $0.hasPrefix("netpath_connectivity_family{") && $0.hasSuffix(" 1") } == [
            #"netpath_connectivity_family{netns="",family="ipv4",connectivity="full"} 1"#,
            #"netpath_connectivity_family{netns="",family="ipv6",connectivity="limited"} 1"#,
        ])
        #expect(both.filter { $0.hasPrefix("netpath_connectivity_family{") }.count == 2 * Connectivity.allCases.count)
        #expect(both.filter { $0.hasPrefix("netpath_connectivity{") && $0.contains(#"connectivity="full""#) } == [
            #"netpath_connectivity{netns="",connectivity="full"} 1"#,
        ])
        path.familyConnectivity = [.ipv4: FamilyConnectivity(connectivity: .full)]
        let one = lines(text([MetricsFixture.watched("", path)], probe: true))
        #expect(one.contains(#"netpath_connectivity_family{netns="",family="ipv6",connectivity="unknown"} 1"#))
        #expect(!lines(text([MetricsFixture.watched("", path)], probe: false)).contains { $0.contains("netpath_connectivity_family") })
    }

    /// `serve --probe-interfaces`: each interface's verdict, and each family's through it, in
    /// state sets of their own; nothing for a namespace without such checks.
    @Test func interfaceVerdictsAreStateSetsOfTheirOwn() {
        var namespace = MetricsFixture.watched("", MetricsFixture.satisfied)
        #expect(!lines(text([namespace], probe: true)).contains { $0.contains("netpath_interface_connectivity") })
        namespace.interfaceConnectivity = [
            "wwan0": ConnectivityResult(connectivity: .full, ipv4: FamilyConnectivity(connectivity: .full)),
            "wlan0": ConnectivityResult(connectivity: .limited, ipv4: FamilyConnectivity(connectivity: .limited, failedStep: .http),
                                        ipv6: FamilyConnectivity(connectivity: .full)),
        ]
        let all = lines(text([namespace], probe: true))
        #expect(all.filter { $0.hasPrefix("netpath_interface_connectivity{") && $0.hasSuffix(" 1") } == [
            #"netpath_interface_connectivity{netns="",interface="wlan0",connectivity="limited"} 1"#,
            #"netpath_interface_connectivity{netns="",interface="wwan0",connectivity="full"} 1"#,
        ])
        #expect(all.filter { $0.hasPrefix("netpath_interface_connectivity_family{") && $0.hasSuffix(" 1") } == [
            #"netpath_interface_connectivity_family{netns="",interface="wlan0",family="ipv4",connectivity="limited"} 1"#,
            #"netpath_interface_connectivity_family{netns="",interface="wlan0",family="ipv6",connectivity="full"} 1"#,
            #"netpath_interface_connectivity_family{netns="",interface="wwan0",family="ipv4",connectivity="full"} 1"#,
            #"netpath_interface_connectivity_family{netns="",interface="wwan0",family="ipv6",connectivity="unknown"} 1"#,
        ])
        #expect(all.filter { $0.hasPrefix("netpath_interface_connectivity{") }.count == 2 * Connectivity.allCases.count)
        // The path's own verdict keeps one series per state.
        #expect(!all.contains { $0.hasPrefix("netpath_connectivity{") && $0.contains("interface=") })
    }

    @Test func theNetworkIsAnInfoSeriesWhileKnown() {
        var path = MetricsFixture.satisfied
        path.network = "9f86d081884c7d65"
        let all = lines(text([MetricsFixture.watched("", path), MetricsFixture.watched("lab", MetricsFixture.unsatisfied)], probe: false))
        #expect(all.filter { $0.hasPrefix("netpath_path_network_info") } == [#"netpath_path_network_info{netns="",network="9f86d081884c7d65"} 1"#])
        #expect(all.contains("# TYPE netpath_path_network_info gauge"))
    }

    @Test func histogramIsCumulativeWithInfSumAndCount() {
        let lab = lines(text(twoNamespaces)).filter {
            $0.hasPrefix("netpath_connectivity_check_duration_seconds") && $0.contains(#"netns="lab""#)
        }
        // Checks of 42 ms and 7 s.
        #expect(lab == [
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="0.005"} 0"#,
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="0.01"} 0"#,
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="0.025"} 0"#,
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="0.05"} 1"#,
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="0.1"} 1"#,
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="0.25"} 1"#,
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="0.5"} 1"#,
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="1"} 1"#,
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="2.5"} 1"#,
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="5"} 1"#,
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="10"} 2"#,
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="30"} 2"#,
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="60"} 2"#,
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="120"} 2"#,
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="300"} 2"#,
            #"netpath_connectivity_check_duration_seconds_bucket{netns="lab",le="+Inf"} 2"#,
            #"netpath_connectivity_check_duration_seconds_sum{netns="lab"} 7.042"#,
            #"netpath_connectivity_check_duration_seconds_count{netns="lab"} 2"#,
        ])
    }

    @Test func stateSetsOfEveryStatus() {
        let output = lines(text([
            MetricsFixture.watched("a", MetricsFixture.satisfied),
            MetricsFixture.watched("b", MetricsFixture.unsatisfied),
            MetricsFixture.watched("c", MetricsFixture.requiresConnection),
        ]))
        func ones(_ metric: String, _ netns: String) -> [String] {
            let prefix = "\(metric){netns=\"\(netns)\","
            let family = output.filter { $0.hasPrefix(prefix) }
            #expect(family.allSatisfy { $0.hasSuffix(" 0") || $0.hasSuffix(" 1") })
            return family.filter { $0.hasSuffix(" 1") }.map { String($0.dropFirst(prefix.count).prefix { $0 != "}" }) }
        }
        #expect(ones("netpath_path_status", "a") == [#"status="satisfied""#])
        #expect(ones("netpath_path_status", "b") == [#"status="unsatisfied""#])
        #expect(ones("netpath_path_status", "c") == [#"status="requiresConnection""#])
        // All diagnoses present for each namespace, and all 0 unless one holds.
        for netns in ["a", "b", "c"] {
            #expect(output.filter { $0.hasPrefix("netpath_path_diagnosis{netns=\"\(netns)\",") }.count == 6)
        }
        #expect(ones("netpath_path_diagnosis", "a") == [])
        #expect(ones("netpath_path_diagnosis", "b") == [#"diagnosis="noCarrier""#])
        #expect(ones("netpath_path_diagnosis", "c") == [])
        #expect(ones("netpath_connectivity", "a") == [#"connectivity="full""#])
        #expect(ones("netpath_connectivity", "b") == [#"connectivity="offline""#])
        #expect(output.filter { $0.hasPrefix("netpath_path_interface_info{") } == [
            #"netpath_path_interface_info{netns="a",interface="eth0",type="wiredEthernet",rank="0"} 1"#,
            #"netpath_path_interface_info{netns="a",interface="wlan0",type="wifi",rank="1"} 1"#,
        ])
    }

    @Test func flagsOfACellularPortal() {
        let output = lines(text([MetricsFixture.watched("", MetricsFixture.cellularPortal)]))
        for line in [
            #"netpath_path_interface_info{netns="",interface="wwan0",type="cellular",rank="0"} 1"#,
            #"netpath_path_expensive{netns=""} 1"#, #"netpath_path_constrained{netns=""} 1"#,
            #"netpath_path_supports_ipv4{netns=""} 1"#, #"netpath_path_supports_ipv6{netns=""} 0"#,
            #"netpath_path_supports_dns{netns=""} 0"#, #"netpath_connectivity{netns="",connectivity="portal"} 1"#,
        ] {
            #expect(output.contains(line), "\(line)")
        }
    }

    @Test func aVPNOverCellularNamesTheTunnelAndTheLinkBeneath() {
        var path = NetworkPath(
            status: .satisfied,
            availableInterfaces: [NetworkInterface(name: "wg0", index: 7, type: .other), NetworkInterface(name: "wwan0", index: 3, type: .cellular)],
            tunnelInterface: NetworkInterface(name: "wg0", index: 7, type: .other),
            underlyingInterface: NetworkInterface(name: "wwan0", index: 3, type: .cellular),
            isExpensive: true, isUltraConstrained: true, supportsIPv4: true
        )
        path.linkQuality = .moderate
        let output = lines(text([MetricsFixture.watched("", path)], probe: false))
        for line in [
            #"netpath_path_tunnel_info{netns="",interface="wg0",underlying_interface="wwan0",underlying_type="cellular"} 1"#,
            #"netpath_path_tunnel{netns=""} 1"#, #"netpath_path_expensive{netns=""} 1"#,
            #"netpath_path_ultra_constrained{netns=""} 1"#, #"netpath_path_link_quality{netns="",quality="moderate"} 1"#,
            #"netpath_path_link_quality{netns="",quality="unknown"} 0"#,
        ] {
            #expect(output.contains(line), "\(line)")
        }
    }

    @Test func labelValuesAreEscaped() {
        let output = text([MetricsFixture.watched(MetricsFixture.awkwardName, MetricsFixture.satisfied)], probe: false)
        // lab"1\a<newline>b
        #expect(output.contains(#"netpath_namespace_up{netns="lab\"1\\a\nb"} 1"#))
        #expect(output.contains(#"netpath_path_status{netns="lab\"1\\a\nb",status="satisfied"} 1"#))
        // The newline is escaped, so every line is a whole comment or sample.
        #expect(lines(output).allSatisfy { $0.isEmpty || $0.hasPrefix("# ") || $0.hasPrefix("netpath_") })
        #expect(PrometheusExposition.escapeLabelValue("plain") == "plain")
        #expect(PrometheusExposition.escapeLabelValue("é \t ✓") == "é \t ✓")
        #expect(PrometheusExposition.escapeHelp("a \"quoted\" \\ and\nmore") == "a \"quoted\" \\\\ and\\nmore")

        var version = PrometheusExposition.text(for: [], version: "1.0 \"dev\"", probe: false, at: 0)
        #expect(version == """
        # HELP netpath_build_info The version of netpath that serves these metrics, as a label; always 1.
        # TYPE netpath_build_info gauge
        netpath_build_info{version="1.0 \\"dev\\""} 1

        """)
        version = PrometheusExposition.text(for: [], version: "", probe: true, at: 0)
        #expect(version.hasSuffix("netpath_build_info{version=\"\"} 1\n"))
    }

    @Test func aNamespaceThatCannotBeWatchedIsOnlyDown() {
        let failed = PrometheusExposition.Namespace(
            name: "vpn", failure: "no permission to enter network namespace 'vpn' (needs CAP_SYS_ADMIN)\nsecond line"
        )
        let output = lines(text([failed, MetricsFixture.watched("", MetricsFixture.satisfied)]))
        #expect(output.filter { $0.contains("vpn") } == [
            #"# netns "vpn" cannot be watched: no permission to enter network namespace 'vpn' (needs CAP_SYS_ADMIN) second line"#,
            #"netpath_namespace_up{netns="vpn"} 0"#,
        ])
        #expect(output.contains(#"netpath_namespace_up{netns=""} 1"#))
        #expect(output.contains(#"netpath_path_status{netns="",status="satisfied"} 1"#))

        // With no namespace watched, only the families that have samples are written.
        #expect(text([failed]) == """
        # HELP netpath_namespace_up Whether the network namespace is watched (1) or cannot be watched (0).
        # TYPE netpath_namespace_up gauge
        # netns "vpn" cannot be watched: no permission to enter network namespace 'vpn' (needs CAP_SYS_ADMIN) second line
        netpath_namespace_up{netns="vpn"} 0
        # HELP netpath_build_info The version of netpath that serves these metrics, as a label; always 1.
        # TYPE netpath_build_info gauge
        netpath_build_info{version="1.2.3"} 1

        """)
    }

    @Test func namespacesAreSortedAndDuplicatesDropped() {
        let output = lines(text([
            MetricsFixture.watched("b", MetricsFixture.satisfied),
            MetricsFixture.watched("a", MetricsFixture.unsatisfied),
            MetricsFixture.watched("", MetricsFixture.requiresConnection),
            MetricsFixture.watched("a", MetricsFixture.satisfied),
        ]))
        #expect(output.filter { $0.hasPrefix("netpath_namespace_up") } ==
                [#"netpath_namespace_up{netns=""} 1"#, #"netpath_namespace_up{netns="a"} 1"#, #"netpath_namespace_up{netns="b"} 1"#])
        #expect(output.contains(#"netpath_path_status{netns="a",status="unsatisfied"} 1"#))
        #expect(!output.contains(#"netpath_path_status{netns="a",status="satisfied"} 1"#))
    }

    /// Each family's `# HELP` and `# TYPE` once, right before all of its samples, and no
    /// series twice, in every combination the tests use.
    @Test(arguments: ExpositionScenario.allCases)
    func familiesAreGroupedAndSeriesUnique(_ scenario: ExpositionScenario) {
        var families: [String] = [], types: [String: String] = [:], series = Set<String>()
        var current: String?
        for line in lines(scenario.text) where !line.isEmpty {
            if line.hasPrefix("# HELP ") {
                let name = String(line.dropFirst(7).prefix { $0 != " " })
                #expect(!families.contains(name), "HELP of \(name) twice")
                families.append(name)
                current = nil
            } else if line.hasPrefix("# TYPE ") {
                let words = line.split(separator: " ").map(String.init)
                #expect(words.count == 4 && words[2] == families.last, "TYPE not right after its HELP: \(line)")
                current = words.count == 4 ? words[2] : nil
                if let current { types[current] = words[3] }
            } else if line.hasPrefix("# ") {
                continue
            } else {
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                guard let family = current else {
                    Issue.record("a sample before its family's TYPE: \(line)")
                    continue
                }
                let suffixes = types[family] == "histogram" ? ["_bucket", "_sum", "_count"] : [""]
                #expect(suffixes.contains { family + $0 == name }, "\(name) outside its family \(family)")
                #expect(series.insert(String(line.prefix { $0 != " " })).inserted, "\(line) twice")
            }
        }
        #expect(types.values.allSatisfy { ["gauge", "counter", "histogram"].contains($0) })
        #expect(types.filter { $0.value == "counter" }.keys.allSatisfy { $0.hasSuffix("_total") })
        #expect(families.last == "netpath_build_info")
    }

    @Test func numbersAsPrometheusWritesThem() {
        let format = PrometheusExposition.format
        #expect(format(0) == "0" && format(-0.0) == "0" && format(1) == "1" && format(300) == "300" && format(-2) == "-2")
        #expect(format(0.005) == "0.005" && format(2.5) == "2.5" && format(7.042) == "7.042")
        #expect(format(1_764_475_840.25) == "1764475840.25" && format(1_764_475_840) == "1764475840")
        #expect(format(9_007_199_254_740_992) == "9007199254740992")
        #expect(format(1e20) == "1e+20" && format(1e-7) == "1e-07")
        #expect(format(0.1 + 0.2) == "0.30000000000000004")
        #expect(format(.infinity) == "+Inf" && format(-.infinity) == "-Inf" && format(.nan) == "NaN")
        for value in [0.005, 1e-7, 1e20, 1_764_475_840.25, 0.1 + 0.2, 123_456_789.123_456_7] {
            #expect(Double(format(value)) == value)
        }
    }
}

/// The expositions `promtool` and the structure test check.
enum ExpositionScenario: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case satisfied, unsatisfied, requiresConnection, satisfiedWithChecks, unsatisfiedWithChecks
    case severalNamespaces, severalNamespacesWithChecks, onlyFailedNamespaces

    var testDescription: String { rawValue }

    var probe: Bool { rawValue.hasSuffix("WithChecks") }

    var namespaces: [PrometheusExposition.Namespace] {
        switch self {
        case .satisfied, .satisfiedWithChecks:
            return [PrometheusExposition.Namespace(name: "", metrics: MetricsFixture.history(), path: MetricsFixture.satisfied)]
        case .unsatisfied, .unsatisfiedWithChecks:
            return [MetricsFixture.watched("", MetricsFixture.unsatisfied)]
        case .requiresConnection:
            return [MetricsFixture.watched("", MetricsFixture.requiresConnection)]
        case .severalNamespaces, .severalNamespacesWithChecks:
            return [
                PrometheusExposition.Namespace(name: "", metrics: MetricsFixture.history(), path: MetricsFixture.satisfied),
                MetricsFixture.watched(MetricsFixture.awkwardName, MetricsFixture.unsatisfied),
                MetricsFixture.watched("cell", MetricsFixture.cellularPortal),
                MetricsFixture.watched("wifi", MetricsFixture.requiresConnection),
                PrometheusExposition.Namespace(name: "vpn", failure: "network namespace 'vpn' does not exist"),
            ]
        case .onlyFailedNamespaces:
            return [PrometheusExposition.Namespace(name: "gone", failure: "network namespace 'gone' does not exist")]
        }
    }

    var text: String {
        PrometheusExposition.text(for: namespaces, version: "0.9.0-dev", probe: probe, at: 1_000)
    }
}

/// `promtool`, from the Prometheus package (`apt-get install prometheus`).
enum Promtool {
    static let path: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        .split(separator: ":").map { $0 + "/promtool" }
        .first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// The real linter: a skip when it is missing, but under `CI=true` a failure.
@Suite(.enabled(if: Promtool.path != nil || ProcessInfo.processInfo.environment["CI"] == "true",
                "needs promtool (apt-get install prometheus)"))
struct PrometheusExpositionPromtoolTests {
    /// `promtool check metrics` on `text`: what it printed, and its exit status.
    func check(_ text: String) throws -> (output: String, status: Int32) {
        let promtool = try #require(Promtool.path, "promtool is missing (apt-get install prometheus)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: promtool)
        process.arguments = ["check", "metrics"]
        let input = Pipe(), output = Pipe()
        (process.standardInput, process.standardOutput, process.standardError) = (input, output, output)
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: printed, as: UTF8.self), process.terminationStatus)
    }

    @Test(arguments: ExpositionScenario.allCases)
    func promtoolFindsNothingToSay(_ scenario: ExpositionScenario) throws {
        let (output, status) = try check(scenario.text)
        #expect(output == "")
        #expect(status == 0)
    }

    /// The check above can fail: promtool does complain about a malformed exposition.
    @Test func promtoolComplainsAboutACounterWithoutTotal() throws {
        let (output, status) = try check("# HELP netpath_path_changes x\n# TYPE netpath_path_changes counter\nnetpath_path_changes 1\n")
        #expect(output.contains("_total"))
        #expect(status != 0)
    }
}
