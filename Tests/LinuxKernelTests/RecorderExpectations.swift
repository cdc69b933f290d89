import Foundation
import Testing
import KernelTestSupport
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

extension PathRecorder {
    /// Adds an IPv6 default route via `gateway` (on eth0) that expires in 2 s, as a router
    /// advertisement leaves it, and expects the monitor to follow the kernel: IPv6 while
    /// the route lives, and no more once its lifetime ends. No kernel message comes at the
    /// end of a lifetime, and the kernel's garbage collector, which would delete the route
    /// (with a message) up to 30 s later, is held off for an hour: only the monitor's expiry
    /// timer can see it. The route counted while it lived is read from the paths delivered
    /// after it was added (`expectIPv6Counted`), not checked against the kernel, which a
    /// loaded run can do after the two seconds.
    func expectExpiryFollowed(_ ns: TestNamespace, gateway: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try run(Kernel.ipPath, ["netns", "exec", ns.name, "sysctl", "-qw", "net.ipv6.route.gc_interval=3600"])
        let before = paths.count
        try ns.ip("-6 route add default via \(gateway) dev eth0 expires 2")
        await expectIPv6Counted(since: before, sourceLocation: sourceLocation)
        if await wait(seconds: 20, until: { !$0.supportsIPv6 }) == nil {
            Issue.record("IPv6 still counted 18 s after the route expired; paths: \(paths.map(\.summary))", sourceLocation: sourceLocation)
        }
    }

    /// Expects a path with IPv6 among those delivered after the first `count`, waiting up to
    /// 20 s for one when none has come yet (a route that lives two seconds may come and go
    /// before a loaded test looks).
    func expectIPv6Counted(since count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        func counted() -> Bool { paths.dropFirst(count).contains(where: \.supportsIPv6) }
        if !counted() { _ = await wait(seconds: 20) { $0.supportsIPv6 } }
        #expect(counted(), "IPv6 never counted; paths: \(paths.map(\.summary).suffix(4))", sourceLocation: sourceLocation)
    }

    /// Waits for a path whose summary is `expected`; records a test issue when it does not come.
    @discardableResult
    func expect(_ expected: String, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) async -> NetworkPath? {
        let path = await wait(seconds: seconds) { $0.summary == expected }
        if path == nil {
            Issue.record("no path '\(expected)' within \(seconds) s; got \(paths.map(\.summary))", sourceLocation: sourceLocation)
        }
        return path
    }

    /// Checks the whole sequence delivered; entries written `?…` may be absent (a state
    /// the kernel passes through only sometimes, such as carrier arriving after IFF_UP).
    func expectSequence(_ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let actual = paths.map(\.summary)
        var index = 0
        var matched = true
        for entry in expected {
            let optional = entry.hasPrefix("?")
            let wanted = optional ? String(entry.dropFirst()) : entry
            if index < actual.count && actual[index] == wanted {
                index += 1
            } else if !optional {
                matched = false
                break
            }
        }
        if !matched || index != actual.count {
            Issue.record("paths delivered: \(actual)\nexpected: \(expected)", sourceLocation: sourceLocation)
        }
    }
}

/// A started monitor of `namespace` with a recorder attached.
func startMonitor(
    _ namespace: TestNamespace,
    required: NetworkInterface.InterfaceType? = nil,
    prohibited: [NetworkInterface.InterfaceType] = [],
    options: LinuxSourceOptions = .init()
) throws -> (PathMonitor, PathRecorder) {
    let monitor = PathMonitor(
        configuration: .init(requiredInterfaceType: required, prohibitedInterfaceTypes: prohibited, namespace: namespace.namespace),
        backend: PathMonitor.systemSource(namespace: namespace.namespace, options: options)
    )
    let recorder = PathRecorder(monitor)
    try monitor.start()
    return (monitor, recorder)
}


extension PathRecorder {
    /// Waits until the monitor's latest path agrees with what the kernel itself says in `ns`
    /// (`ip route get`, read again while it settles), then checks that a fresh one-shot read
    /// (what `netpath status` does) agrees too. Returns the kernel's decision, so a test can
    /// check it built the configuration it meant to.
    @discardableResult
    func expectAgreement(
        _ ns: TestNamespace, required: NetworkInterface.InterfaceType? = nil, seconds: Double = 5,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> KernelDecision {
        // The kernel applies some changes a moment after the command returns (a veth's
        // carrier through the link watch): the watch and the fresh status must both agree
        // with one reading of the kernel, read again until they do or time runs out.
        let deadline = Date().addingTimeInterval(seconds)
        var decision = try KernelDecision.read(ns.name)
        while Date() < deadline {
            let current = decision
            if await wait(seconds: 0.5, until: { current.agrees(with: $0) }) != nil {
                let fresh = try PathMonitor.snapshot(requiredInterfaceType: required, namespace: ns.namespace)
                if decision.agrees(with: fresh), let last = paths.last, decision.agrees(with: last) { return decision }
            }
            decision = try KernelDecision.read(ns.name)
        }
        guard let last = paths.last, decision.agrees(with: last) else {
            Issue.record("the monitor disagrees with the kernel: \(decision); monitor: \(paths.last?.summary ?? "-")",
                         sourceLocation: sourceLocation)
            return decision
        }
        let status = try PathMonitor.snapshot(requiredInterfaceType: required, namespace: ns.namespace)
        if !decision.agrees(with: status) {
            Issue.record("a fresh status disagrees with the kernel: \(decision); status: \(status.summary)", sourceLocation: sourceLocation)
        }
        return decision
    }
}
