import Foundation
import KernelTestSupport
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// SPEC §3's verdict rules through the library's monitor, against a real router.
@Suite(.enabled(if: Kernel.canRun, "needs root, iproute2, python3 and dnsmasq"))
struct VerdictKernelTests {
    /// The router's ICMP unreachable is the network's answer: the monitor's connectivity
    /// becomes `limited` (it stayed `unknown`, taken as this machine having no route).
    @Test func aRouterWithoutUplinkGivesTheMonitorAVerdict() async throws {
        let lab = try RouterLab(uplink: .rejected)
        defer { lab.remove() }
        let check = try ConnectivityCheck(endpoints: [try .init("http://check.test/204")], timeout: .seconds(5))
        let monitor = PathMonitor(configuration: .init(namespace: lab.client.namespace, connectivityCheck: check))
        let recorder = PathRecorder(monitor)
        try monitor.start()
        defer { monitor.cancel() }
        let checked = await recorder.wait(seconds: 10) { $0.connectivity != .unknown }
        #expect(checked?.connectivity == .limited && checked?.connectivitySource == .check,
                "paths: \(recorder.paths.map { "\($0.summary) \($0.connectivity.rawValue)" })")
    }

    /// Two endpoints, one passing and one redirecting: the monitor says `portal`, with the
    /// redirect's target.
    @Test func aPortalAnswerBesideAPassReachesTheMonitor() async throws {
        let lab = try ProbeLab()
        defer { lab.remove() }
        let check = try ConnectivityCheck(endpoints: [try .init("http://10.77.0.1:8080/204"), try .init("http://check.test:8080/redirect")],
                                          timeout: .seconds(5))
        let monitor = PathMonitor(configuration: .init(namespace: lab.client.namespace, connectivityCheck: check))
        let recorder = PathRecorder(monitor)
        try monitor.start()
        defer { monitor.cancel() }
        let checked = await recorder.wait(seconds: 10) { $0.connectivity != .unknown }
        #expect(checked?.connectivity == .portal && checked?.portalURL == "http://portal.test/login",
                "paths: \(recorder.paths.map { "\($0.summary) \($0.connectivity.rawValue)" })")
    }
}
