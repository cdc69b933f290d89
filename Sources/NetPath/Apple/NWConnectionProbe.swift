#if canImport(Network)
import Dispatch
import Foundation
import Network

/// The connectivity check on Apple platforms: one `NWConnection` per endpoint (the system
/// resolves names and picks addresses), restricted to the path's interface type, the same
/// HTTP request and the same classifier as on Linux.
final class NWConnectionProbe: ScheduledWork, @unchecked Sendable {
    // Every mutable field is touched only on `queue`, a serial queue.
    private struct Outcome {
        var resolved = false
        var verdict: HTTPResponseClassifier.Verdict?
        var error: ConnectivityFailure?
        var latency: Duration?
        var done = false
    }

    private let check: ConnectivityCheck
    private let interfaceType: NetworkInterface.InterfaceType?
    private let completion: @Sendable (ConnectivityResult) -> Void
    private let queue = DispatchQueue(label: "NetPath.NWConnectionProbe")
    private var connections: [NWConnection] = []
    private var outcomes: [Outcome]
    private var buffers: [[UInt8]]
    private var finished = false
    private let started = SystemClock.now()

    init(check: ConnectivityCheck, interfaceType: NetworkInterface.InterfaceType?,
         completion: @escaping @Sendable (ConnectivityResult) -> Void) {
        self.check = check
        self.interfaceType = interfaceType
        self.completion = completion
        outcomes = Array(repeating: Outcome(), count: check.endpoints.count)
        buffers = Array(repeating: [], count: check.endpoints.count)
    }

    /// Starts every endpoint at once; the verdict comes within the check's timeout.
    func start() {
        queue.async { [self] in
            for (index, endpoint) in check.endpoints.enumerated() {
                // https: the system's TLS, trust and name checks (App Transport Security's).
                let parameters = endpoint.target.isTLS ? NWParameters.tls : NWParameters.tcp
                if let interfaceType { parameters.requiredInterfaceType = NWInterface.InterfaceType(interfaceType) }
                guard let port = NWEndpoint.Port(rawValue: endpoint.target.port) else { continue }
                let connection = NWConnection(host: NWEndpoint.Host(endpoint.target.host), port: port, using: parameters)
                outcomes[index].resolved = endpoint.target.address != nil
                connection.stateUpdateHandler = { [weak self] state in self?.changed(state, index: index, connection: connection) }
                connections.append(connection)
                connection.start(queue: queue)
            }
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: check.timeout.nanoseconds))) { [weak self] in self?.finish(cancelled: false) }
        }
    }

    func cancel() {
        queue.async { [self] in finish(cancelled: true) }
    }

    /// How long the check has run.
    private func elapsed() -> Duration {
        started.duration(until: SystemClock.now())
    }

    private func changed(_ state: NWConnection.State, index: Int, connection: NWConnection) {
        guard !finished, !outcomes[index].done else { return }
        switch state {
        case .ready:
            outcomes[index].resolved = true
            connection.send(content: Data(check.endpoints[index].target.request), completion: .contentProcessed { _ in })
            receive(index: index, connection: connection)
        case .waiting(let error), .failed(let error):
            if case .dns = error {
                complete(index, error: .init(.nameNotResolved, "the name '\(check.endpoints[index].target.host)' did not resolve"))
            } else if case .tls = error {
                // A certificate that does not verify: what an interceptor gives (ProbeVerdict).
                outcomes[index].resolved = true
                complete(index, error: .init(.tlsFailed, "TLS with \(check.endpoints[index].target.host) failed: \(error.debugDescription)"))
            } else {
                outcomes[index].resolved = true
                outcomes[index].error = .init(.connectionFailed, "cannot connect: \(error.debugDescription)")
                if case .failed = state { complete(index, error: outcomes[index].error ?? .init(.connectionFailed, "cannot connect")) }
            }
        default:
            break
        }
    }

    private func receive(index: Int, connection: NWConnection) {
        let room = check.maximumResponseSize - buffers[index].count
        connection.receive(minimumIncompleteLength: 1, maximumLength: max(room, 1)) { [weak self] data, _, isComplete, error in
            guard let self else { return }
            // Called on `queue`: the connection was started on it.
            guard !finished, !outcomes[index].done else { return }
            if let data { buffers[index].append(contentsOf: data.prefix(room)) }
            let ended = isComplete || error != nil || buffers[index].count >= check.maximumResponseSize
            let classifier = HTTPResponseClassifier(expectation: check.endpoints[index].expectation, limit: check.maximumResponseSize)
            let verdict = classifier.verdict(buffers[index], finished: ended)
            if verdict != .needMore {
                outcomes[index].verdict = verdict
                if case .malformed(let reason) = verdict { outcomes[index].error = .init(.malformedAnswer, reason) }
                complete(index, error: nil)
            } else if ended {
                complete(index, error: .init(.malformedAnswer, "the connection closed early"))
            } else {
                receive(index: index, connection: connection)
            }
        }
    }

    private func complete(_ index: Int, error: ConnectivityFailure?) {
        outcomes[index].done = true
        outcomes[index].latency = elapsed()
        if let error, outcomes[index].error == nil { outcomes[index].error = error }
        // A portal's answer ends the check; a pass waits for the others, which may still
        // answer as a portal does (ProbeVerdict).
        if case .unexpected? = outcomes[index].verdict { finish(cancelled: false); return }
        if outcomes.allSatisfy(\.done) { finish(cancelled: false) }
    }

    private func finish(cancelled: Bool) {
        guard !finished else { return }
        finished = true
        for connection in connections { connection.cancel() }
        connections.removeAll()
        if cancelled {
            completion(ConnectivityResult(connectivity: .unknown, failure: .init(.cancelled, "the check was cancelled")))
            return
        }
        for index in outcomes.indices where !outcomes[index].done {
            // A portal's page still coming when the time is up is its answer all the same.
            let classifier = HTTPResponseClassifier(expectation: check.endpoints[index].expectation, limit: check.maximumResponseSize)
            if let portal = classifier.portal(in: buffers[index]) {
                outcomes[index].verdict = portal
                continue
            }
            outcomes[index].error = outcomes[index].error ?? .init(.timedOut, "no answer within \(check.timeout)")
        }
        let summary = zip(check.endpoints, outcomes).map { ($0, $1.resolved, $1.verdict, $1.error, $1.latency) }
        completion(ProbeVerdict.of(summary, elapsed: elapsed()))
    }
}
#endif
