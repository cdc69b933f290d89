/// The check's verdict from the outcome of each endpoint. Pure.
package enum ProbeVerdict {
    /// One endpoint's outcome: whether its name resolved (or it is a literal), its answer's
    /// verdict, its error, and when it ended after the check's start.
    package typealias Outcome = (endpoint: ConnectivityCheck.Endpoint, resolved: Bool, verdict: HTTPResponseClassifier.Verdict?,
                                 error: ConnectivityFailure?, latency: Duration?)

    /// `portal` if one endpoint answered in place of the expected answer (an unexpected
    /// 2xx/3xx, a redirect, 511), even while another passed: a portal that lets one
    /// operator's URL through (a captive bypass list) or a proxy that gives every URL the
    /// same answer passes some endpoints and not others, and only an interceptor makes an
    /// endpoint give what it never gives; `limited` if an `https://` endpoint's TLS failed
    /// (a certificate that does not verify: an interceptor, which no pass outweighs, as
    /// Android decides); `full` if one passed; `limited` if one answered
    /// with an HTTP error (its status in the result) or a name resolved; else `local`. An
    /// endpoint that was silent or failed counts neither way.
    package static func of(
        _ outcomes: [Outcome],
        elapsed: Duration = .zero
    ) -> ConnectivityResult {
        // The result reports its latency in milliseconds (words and JSON).
        let outcomes = outcomes.map {
            (endpoint: $0.endpoint, resolved: $0.resolved, verdict: $0.verdict, error: $0.error, latency: $0.latency?.milliseconds)
        }
        let elapsed = elapsed.milliseconds
        let answered = outcomes.compactMap { outcome -> (ConnectivityCheck.Endpoint, Int, String?, String, Double?)? in
            guard case .unexpected(let status, let location, let reason) = outcome.verdict else { return nil }
            return (outcome.endpoint, status, location, reason, outcome.latency)
        }
        // The portal's own target over the probe URL (what Android and Apple open when the
        // page names none).
        if let portal = answered.first(where: { $0.2 != nil }) ?? answered.first {
            return ConnectivityResult(connectivity: .portal, portalURL: portal.2.map { absolute($0, from: portal.0.target) } ?? portal.0.url,
                                      url: portal.0.url, httpStatus: portal.1, latencyMilliseconds: portal.4 ?? elapsed, failure: ConnectivityFailure(.unexpectedAnswer, portal.3))
        }
        if let intercepted = outcomes.first(where: { $0.error?.kind == .tlsFailed }) {
            return ConnectivityResult(connectivity: .limited, url: intercepted.endpoint.url,
                                      latencyMilliseconds: intercepted.latency ?? elapsed, failure: intercepted.error)
        }
        for outcome in outcomes {
            if case .pass(let status) = outcome.verdict {
                return ConnectivityResult(connectivity: .full, url: outcome.endpoint.url, httpStatus: status, latencyMilliseconds: outcome.latency ?? elapsed)
            }
        }
        // An endpoint that answered with an HTTP error is there but broken: `limited`, with
        // its status, not a portal.
        for outcome in outcomes {
            if case .httpError(let status, let reason) = outcome.verdict {
                // Through a proxy, its own error (502: it cannot reach the endpoint) is said so.
                let failure = outcome.error.flatMap { $0.kind == .proxyFailed || $0.kind == .httpError ? $0 : nil }
                return ConnectivityResult(connectivity: .limited, url: outcome.endpoint.url, httpStatus: status,
                                          latencyMilliseconds: outcome.latency ?? elapsed, failure: failure ?? ConnectivityFailure(.httpError, reason))
            }
        }
        // A failure of the network's is the reason before a local one (no route for the
        // connection): `noRoute` is the result's kind only when every endpoint failed so.
        let first = outcomes.first { $0.resolved && $0.error?.isLocal != true } ?? outcomes.first { $0.resolved } ?? outcomes.first
        let error = first?.error
        if outcomes.contains(where: \.resolved) {
            return ConnectivityResult(connectivity: .limited, url: first?.endpoint.url, latencyMilliseconds: elapsed,
                                      failure: error ?? ConnectivityFailure(.connectionFailed, "no endpoint answered HTTP"))
        }
        return ConnectivityResult(connectivity: .local, url: first?.endpoint.url, latencyMilliseconds: elapsed,
                                  failure: error ?? ConnectivityFailure(.nameNotResolved, "no endpoint's name resolved"))
    }

    /// One family's finished check: its result and its endpoints' outcomes.
    package typealias FamilyCheck = (result: ConnectivityResult, outcomes: [Outcome])

    /// The overall verdict from the families' checks (SPEC §3, per network), decided by
    /// ``of(_:elapsed:)``'s rules over both families' endpoint outcomes, as if each were
    /// one more endpoint: a portal from either is `portal` even while the other passes, a
    /// TLS interception is `limited`, else the better verdict. A family not checked is
    /// `nil`; one alone is the result as it is. Each family's own verdict goes with it.
    /// `nil` when neither was checked.
    ///
    /// - Parameters:
    ///   - ipv4: IPv4's check, or `nil` when IPv4 was not checked.
    ///   - ipv6: IPv6's check, or `nil` when IPv6 was not checked.
    ///   - gatewayUnresponsive: Whether a family's default gateway does not answer on the
    ///     link (the kernel's neighbor entry): its failing step is then the gateway.
    package static func combine(ipv4: FamilyCheck?, ipv6: FamilyCheck?, gatewayUnresponsive: (IPFamily) -> Bool = { _ in false }) -> ConnectivityResult? {
        let family4 = ipv4.map { FamilyConnectivity($0.result, gatewayUnresponsive: gatewayUnresponsive(.ipv4)) }
        let family6 = ipv6.map { FamilyConnectivity($0.result, gatewayUnresponsive: gatewayUnresponsive(.ipv6)) }
        var result: ConnectivityResult
        if let ipv4, let ipv6 {
            if let stopped = [ipv4.result, ipv6.result].first(where: { $0.failure?.kind == .cancelled }) { return stopped }
            let count = max(ipv4.outcomes.count, ipv6.outcomes.count)
            let outcomes = (0..<count).flatMap { index in
                [ipv4.outcomes[safe: index], ipv6.outcomes[safe: index]].compactMap { $0 }
            }
            let elapsed = max(ipv4.result.latencyMilliseconds ?? 0, ipv6.result.latencyMilliseconds ?? 0)
            result = of(outcomes, elapsed: .nanoseconds(Int64(elapsed * 1_000_000)))
            result.proxy = [ipv4.result, ipv6.result].first { $0.url == result.url }?.proxy
            result.nat64Prefix = ipv6.result.nat64Prefix
        } else if let only = ipv4 ?? ipv6 {
            result = only.result
        } else {
            return nil
        }
        result.ipv4 = family4
        result.ipv6 = family6
        return result
    }

    /// The verdict to show when `family`'s check has ended and the other family's has not:
    /// the whole check's `full` when this family passed (only a portal found by the other
    /// could still change it, and a portal is rare on one family alone), with this family's
    /// verdict and the other's not yet known. `nil` when it did not pass, or was cancelled:
    /// then the other family may still give the better verdict, and is waited for.
    ///
    /// - Parameters:
    ///   - check: The family's ended check.
    ///   - family: Its family.
    ///   - gatewayUnresponsive: Whether the family's gateway does not answer on the link.
    /// - Returns: The early verdict, or `nil`.
    package static func early(_ check: FamilyCheck, family: IPFamily, gatewayUnresponsive: Bool = false) -> ConnectivityResult? {
        guard check.result.connectivity == .full else { return nil }
        var result = check.result
        result.ipv4 = family == .ipv4 ? FamilyConnectivity(check.result, gatewayUnresponsive: gatewayUnresponsive) : nil
        result.ipv6 = family == .ipv6 ? FamilyConnectivity(check.result, gatewayUnresponsive: gatewayUnresponsive) : nil
        return result
    }

    /// A `Location` made absolute against the endpoint it came from.
    package static func absolute(_ location: String, from target: HTTPTarget) -> String {
        let lower = location.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return location }
        if location.hasPrefix("//") { return target.scheme + ":" + location }
        let base = "\(target.scheme)://\(target.hostHeader)"
        if location.hasPrefix("/") { return base + location }
        let directory = target.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/"
        if location.hasPrefix("?") { return base + directory + location }
        return base + String(directory[...(directory.lastIndex(of: "/") ?? directory.startIndex)]) + location
    }

}

extension Array {
    /// The element at `index`, or `nil` past the end.
    fileprivate subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
