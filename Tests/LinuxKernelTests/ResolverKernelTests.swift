import Foundation
import KernelTestSupport
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// The check's resolver against a real DNS server of the test's (dns_server.py), a dead
/// one, and a web server (SPEC §3: it follows glibc; issue 29, items 2, 4, 6 and 7). Times
/// are asserted as upper bounds, only where the truth is "at once"; one lab at a time, so
/// that starting the next lab's servers does not slow the one being timed.
@Suite(.serialized, .enabled(if: Kernel.canRun, "needs root, iproute2 and python3"))
struct ResolverKernelTests {
    /// The path the lab's client is on.
    func path(_ lab: ResolverLab) throws -> NetworkPath {
        let monitor = PathMonitor(configuration: .init(namespace: lab.client.namespace))
        try monitor.start()
        defer { monitor.cancel() }
        return try #require(monitor.currentPath)
    }

    /// Runs a check of `url` in the lab's client; the result and the seconds it took, timed
    /// on the check's own thread (when other suites keep the test executor busy, the
    /// awaiting test may resume well after the verdict).
    func check(_ url: String, in lab: ResolverLab) async throws -> (ConnectivityResult, Double) {
        let check = try ConnectivityCheck(endpoints: [try .init(url)], timeout: .seconds(5), resolutionTimeout: .seconds(3))
        let path = try path(lab)
        let start = Date()
        return await withCheckedContinuation { continuation in
            _ = check.start(over: path, namespace: lab.client.namespace) { result in
                continuation.resume(returning: (result, Date().timeIntervalSince(start)))
            }
        }
    }

    /// NXDOMAIN from the first server is final: `local`, not found, at once (it waited 3 s
    /// for the dead second server and said "timed out").
    @Test func nxdomainFromTheFirstServerIsFinal() async throws {
        let lab = try ResolverLab(rules: ["--nxdomain", "nowhere.test"], servers: [ResolverLab.liveServer, ResolverLab.deadServer])
        defer { lab.remove() }
        let (result, seconds) = try await check("http://nowhere.test/204", in: lab)
        #expect(result.connectivity == .local && result.failure?.kind == .nameNotResolved, "\(result)")
        #expect(seconds <= 1, "took \(seconds) s: \(result)")
    }

    /// A dead first server and an endpoint that resets the connection: `limited` at once
    /// (it took 5 s: the dead server's queries held the endpoint until the timeout).
    @Test func aDeadFirstServerDoesNotHoldAReset() async throws {
        let lab = try ResolverLab(rules: ["--answer", "check.test=\(ResolverLab.liveServer)"],
                                  servers: [ResolverLab.deadServer, ResolverLab.liveServer])
        defer { lab.remove() }
        let (result, seconds) = try await check("http://check.test:81/204", in: lab)
        #expect(result.connectivity == .limited && result.failure?.kind == .connectionFailed, "\(result)")
        #expect(result.failure?.message.hasSuffix("Connection refused") == true, "\(result)")
        #expect(seconds <= 1, "took \(seconds) s: \(result)")
        // And with the endpoint up, the dead server costs nothing either.
        let (up, upSeconds) = try await check("http://check.test/204", in: lab)
        #expect(up.connectivity == .full && upSeconds <= 1, "\(up), \(upSeconds) s")
    }

    /// A resolver that answers only over TCP (every UDP answer truncated): asked again over
    /// TCP, as glibc and curl do (it read `local`).
    @Test func aTruncatedAnswerIsAskedAgainOverTCP() async throws {
        let lab = try ResolverLab(rules: ["--answer", "big.test=\(ResolverLab.liveServer),\(ResolverLab.liveServer6)", "--truncate", "big.test"],
                                  servers: [ResolverLab.liveServer])
        defer { lab.remove() }
        let (result, _) = try await check("http://big.test/204", in: lab)
        #expect(result.connectivity == .full && result.httpStatus == 204, "\(result)")
    }

    /// A server that predates EDNS0 answers FORMERR to a query with an OPT record: the same
    /// query is sent again without it, as glibc does (it read `local`).
    @Test func aServerWithoutEDNSIsAskedAgainWithoutIt() async throws {
        let lab = try ResolverLab(rules: ["--answer", "old.test=\(ResolverLab.liveServer)", "--no-edns"], servers: [ResolverLab.liveServer])
        defer { lab.remove() }
        let (result, seconds) = try await check("http://old.test/204", in: lab)
        #expect(result.connectivity == .full && result.httpStatus == 204, "\(result)")
        #expect(seconds <= 1, "took \(seconds) s: \(result)")
    }

    /// A loopback or unspecified answer for the probe's name, while this machine runs a web
    /// server that would answer 204: `limited` (filtered), never probed (it read `full` or
    /// `portal`: the probe reached the machine itself).
    @Test(arguments: ["127.0.0.1,::1", "0.0.0.0,::"])
    func aLoopbackAnswerIsFilteredAndNeverProbed(addresses: String) async throws {
        let lab = try ResolverLab(rules: ["--answer", "check.test=\(addresses)"], servers: [ResolverLab.liveServer])
        defer { lab.remove() }
        try lab.startInClient(["/usr/bin/env", "python3", ProbeLab.serverScript, "--port", "80", "--bind", "127.0.0.1", "--bind", "::1"],
                              readyWhenOutputContains: "ready")
        let (result, seconds) = try await check("http://check.test/204", in: lab)
        #expect(result.connectivity == .limited && result.failure?.kind == .filteredAnswer && result.httpStatus == nil, "\(result)")
        // The A and the AAAA answers race: the first filtered one is named.
        #expect(addresses.split(separator: ",").contains { result.failure?.message.contains("resolved to \($0):") == true }, "\(result)")
        #expect(seconds <= 1, "took \(seconds) s: \(result)")
    }

    /// On an IPv6-only network whose resolver never answers for ipv4only.arpa, the name
    /// endpoint's pass is the verdict at once (the discovery held it to the resolution
    /// deadline, then to the pass's grace second: never under 1 s).
    @Test func nat64DiscoveryHoldsNoVerdict() async throws {
        let lab = try ResolverLab(rules: ["--answer", "check.test=\(ResolverLab.liveServer6)", "--drop", "ipv4only.arpa"],
                                  servers: [ResolverLab.liveServer6], ipv6Only: true)
        defer { lab.remove() }
        let path = try path(lab)
        #expect(path.supportsIPv6 && !path.supportsIPv4)
        let (result, seconds) = try await check("http://check.test/204", in: lab)
        #expect(result.connectivity == .full && result.nat64Prefix == nil, "\(result)")
        #expect(seconds < 1, "took \(seconds) s: \(result)")
    }

    /// resolv.conf rewritten after the routes came up (as DHCP clients do), naming a server
    /// that answers where the old one was dead: the check in flight starts over, and `full`
    /// comes at once after the write (it came after the old check's 3 s resolution timeout
    /// gave `local`, and a back-off). Users see no path change for the servers alone.
    @Test func aDNSChangeRestartsTheCheckInFlight() async throws {
        let lab = try ResolverLab(rules: ["--answer", "check.test=\(ResolverLab.liveServer)"], servers: [ResolverLab.deadServer])
        defer { lab.remove() }
        let check = try ConnectivityCheck(endpoints: [try .init("http://check.test/204")], timeout: .seconds(5), resolutionTimeout: .seconds(3))
        let monitor = PathMonitor(configuration: .init(namespace: lab.client.namespace, connectivityCheck: check))
        let recorder = PathRecorder(monitor)
        try monitor.start()
        defer { monitor.cancel() }
        // The check is in flight: its queries go to the dead server.
        let satisfied = await recorder.wait { $0.status == .satisfied }
        #expect(satisfied?.connectivity == .unknown)
        let written = Date()
        try lab.writeResolver([ResolverLab.liveServer])
        let full = await recorder.wait(seconds: 10) { $0.connectivity == .full }
        let seconds = recorder.arrivals.first { $0.path.connectivity == .full }.map { $0.time.timeIntervalSince(written) }
        #expect(full != nil && seconds.map { $0 <= 1 } == true,
                "took \(String(describing: seconds)) s; paths: \(recorder.paths.map { "\($0.summary) \($0.connectivity.rawValue)" })")
        // One satisfied path before the verdict, and no `local` from the dead server.
        // (The check's packets make the kernel learn the gateway's address: a path that names
        // the network, still unchecked, may come between.)
        let shown = recorder.paths.filter { $0.status == .satisfied }.map(\.connectivity)
        let verdicts = shown.enumerated().filter { $0.offset == 0 || shown[$0.offset - 1] != $0.element }.map(\.element)
        #expect(verdicts == [.unknown, .full], "\(shown)")
    }
}
