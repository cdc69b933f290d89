extension NetworkPath: CustomStringConvertible {
    /// One readable line, as `netpath status` prints it: online, the primary interface and
    /// its type, the connectivity when checked, gateways, families and DNS, costs and the
    /// other interfaces; offline, the diagnosis in words and the usable interfaces.
    ///
    /// `online  via eth0 (wiredEthernet)  gateway 192.0.2.1  IPv4 IPv6 DNS`, with
    /// `the router 192.0.2.1 does not answer (no ARP reply)` after the gateway when it does
    /// not; under a VPN
    /// `online  via wg0 (other)  VPN over wlan0 (wifi)  IPv4 DNS  also wlan0 (wifi)`
    public var description: String {
        summary(painting: { text, _ in text })
    }

    /// How a word of the summary is meant to be shown (the tool colours it on a terminal).
    package enum Emphasis: Sendable {
        case good, bad, pending, quiet
    }

    /// ``description`` with each emphasised word passed through `paint`.
    package func summary(painting paint: (String, Emphasis) -> String) -> String {
        var words: [String] = []
        switch status {
        case .satisfied: words.append(paint("online", .good))
        case .unsatisfied: words.append(paint("offline", .bad))
        case .requiresConnection: words.append(paint("connecting", .pending))
        }
        // A router or a container node has hundreds of interfaces: the line names the first
        // few (best first, SPEC 2.8) and counts the rest; JSON lists them all.
        let shown = NetworkPath.namedInterfaces
        let names = availableInterfaces.prefix(shown + 1).map { "\(NetworkPath.visible($0.name)) (\($0.type.rawValue))" }
        func list(_ names: ArraySlice<String>, total: Int) -> String {
            let listed = names.prefix(shown)
            return listed.joined(separator: ", ") + (total > listed.count ? " and \(total - listed.count) more" : "")
        }
        guard status == .satisfied else {
            if let diagnosis { words.append(paint(diagnosis.explanation, .quiet)) }
            if !names.isEmpty { words.append("up: " + list(names[...], total: availableInterfaces.count)) }
            return words.joined(separator: "  ")
        }
        words.append("via " + (names.first ?? "?"))
        if let underlying = underlyingInterface {
            words.append("VPN over \(NetworkPath.visible(underlying.name)) (\(underlying.type.rawValue))")
        }
        if connectivity != .unknown {
            words.append("Internet: " + connectivity.rawValue + (portalURL.map { " (login at \(NetworkPath.visible($0)))" } ?? "")
                          + (connectivityProxy.map { " via proxy \(NetworkPath.visible($0))" } ?? ""))
            // A family whose verdict is not the path's says so, with where it broke.
            for family in IPFamily.allCases {
                guard let verdict = familyConnectivity[family], verdict.connectivity != connectivity else { continue }
                words.append(verdict.summary(of: family))
            }
        }
        if !gateways.isEmpty { words.append("gateway " + gateways.joined(separator: ", ")) }
        for gateway in unresponsiveGateways { words.append(paint(NetworkPath.unresponsiveExplanation(gateway), .bad)) }
        var families: [String] = []
        if supportsIPv4 { families.append("IPv4") }
        if supportsIPv6 { families.append("IPv6") }
        families.append(supportsDNS ? "DNS" : "no DNS")
        words.append(families.joined(separator: " "))
        if isExpensive { words.append("expensive") }
        if isConstrained { words.append("constrained") }
        if isUltraConstrained { words.append("ultra-constrained") }
        if linkQuality != .unknown { words.append("link quality " + linkQuality.rawValue) }
        if names.count > 1 { words.append("also " + list(names.dropFirst(), total: availableInterfaces.count - 1)) }
        return words.joined(separator: "  ")
    }

    /// A gateway that does not answer, in words: ARP's for IPv4, neighbor discovery's for
    /// IPv6.
    package static func unresponsiveExplanation(_ gateway: String) -> String {
        let how = gateway.contains(":") ? "no neighbor advertisement" : "no ARP reply"
        return "the router \(visible(gateway)) does not answer (\(how))"
    }

    /// How many interfaces the line names before it counts the rest.
    package static let namedInterfaces = 8

    /// `text` with control characters shown as `\xNN` escapes: an interface name or a URL
    /// from the network may hold a newline or a terminal escape, which must neither break the
    /// line nor reach the terminal raw.
    package static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                result += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension NetworkPath.Diagnosis {
    /// The diagnosis in words, for people.
    public var explanation: String {
        switch self {
        case .filtered: "a route exists only through excluded interface types"
        case .noInterface: "no network interface is up"
        case .noCarrier: "no link where traffic would leave (cable unplugged, radio off)"
        case .noAddress: "no usable IP address for the route to the Internet"
        case .blocked: "the system refuses traffic to the Internet (a prohibit, blackhole or unreachable route or rule: a kill switch)"
        case .noDefaultRoute: "no route to the Internet (no default route)"
        }
    }
}

extension Connectivity {
    /// The verdict in words, for people.
    public var explanation: String {
        switch self {
        case .unknown: "not checked"
        case .offline: "no network path"
        case .local: "DNS does not work"
        case .limited: "no Internet (no endpoint gave the expected answer)"
        case .portal: "behind a captive portal"
        case .full: "Internet reachable"
        }
    }
}
