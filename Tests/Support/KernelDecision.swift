import Foundation
import NetPath
import NetPathSystem
import CTestSupport

/// What the kernel itself says about a namespace's path to the Internet, asked as an app's
/// socket asks it: a UDP `connect()` made in the namespace to 1.1.1.1 or
/// 2606:4700:4700::1111 port 53 (its verdict and the source the kernel picked), then the
/// reference tool for where its packets go: `ip route get DEST from SRC ipproto udp dport 53`
/// (for IPv6 the source-less lookup when it succeeds: a connected IPv6 socket keeps that
/// route); and `ip -j link`/`ip -j addr` for the carrier of the device and the state of the
/// source address. Tests compare NetPath's paths with this, not with an expectation of their
/// own.
public struct KernelDecision: Equatable, Sendable, CustomStringConvertible {
    /// One family's answer.
    public enum Answer: Equatable, Sendable {
        case route(device: String, gateway: String?, source: String?)
        /// `ip route get` failed: its message ("Network is unreachable", …).
        case refused(String)
    }

    public var ipv4: Answer
    public var ipv6: Answer
    /// Devices with carrier (operstate UP, or UNKNOWN with LOWER_UP), not loopback.
    public var carrier: Set<String>
    /// Addresses that may be a source: not tentative (unless optimistic), not DAD-failed,
    /// scope global.
    public var usableAddresses: Set<String>

    /// Reads the kernel's decision in `namespace` (`nil`: the caller's namespace).
    public static func read(_ namespace: String?) throws -> KernelDecision {
        let prefix = namespace.map { ["-n", $0] } ?? []
        func lookup(_ family: [String], _ destination: String, from source: String?) -> Answer {
            do {
                let from = source.map { ["from", $0] } ?? []
                let text = try run(Kernel.ipPath, prefix + family + ["-j", "route", "get", destination] + from + ["ipproto", "udp", "dport", "53"])
                guard let routes = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]],
                      let route = routes.first, let device = route["dev"] as? String else { return .refused("unparsable: \(text)") }
                if let type = route["type"] as? String, type != "unicast" { return .refused(type) }
                return .route(device: device, gateway: route["gateway"] as? String, source: source ?? route["prefsrc"] as? String)
            } catch {
                let message = "\(error)"
                let reason = message.components(separatedBy: "RTNETLINK answers: ").last ?? message
                return .refused(reason.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        func get(_ family: [String], _ destination: String) -> Answer {
            let isIPv6 = !family.isEmpty
            var buffer = [CChar](repeating: 0, count: 64)
            let path = namespace.map { "/var/run/netns/\($0)" } ?? "/proc/self/ns/net"
            let error = ctest_connect_in(path, isIPv6 ? AF_INET6 : AF_INET, &buffer, 64)
            guard error == 0 else { return .refused(error < 0 ? "cannot enter \(path)" : String(cString: strerror(error))) }
            let source = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let unspecified = source == "0.0.0.0" || source == "::"
            if isIPv6, case .route(let device, let gateway, _) = lookup(family, destination, from: nil) {
                return .route(device: device, gateway: gateway, source: source)
            }
            let answer = lookup(family, destination, from: unspecified ? nil : source)
            if case .route(let device, let gateway, _) = answer { return .route(device: device, gateway: gateway, source: source) }
            return answer
        }
        var carrier = Set<String>()
        let links = try run(Kernel.ipPath, prefix + ["-j", "link", "show"])
        for link in (try JSONSerialization.jsonObject(with: Data(links.utf8)) as? [[String: Any]]) ?? [] {
            guard let name = link["ifname"] as? String, let flags = link["flags"] as? [String],
                  !flags.contains("LOOPBACK"), flags.contains("UP") else { continue }
            let state = link["operstate"] as? String
            if state == "UP" || (state == "UNKNOWN" && flags.contains("LOWER_UP")) { carrier.insert(name) }
        }
        var usable = Set<String>()
        let addresses = try run(Kernel.ipPath, prefix + ["-j", "addr", "show"])
        for link in (try JSONSerialization.jsonObject(with: Data(addresses.utf8)) as? [[String: Any]]) ?? [] {
            for info in (link["addr_info"] as? [[String: Any]]) ?? [] {
                guard let local = info["local"] as? String, info["scope"] as? String == "global",
                      info["tentative"] == nil || info["optimistic"] != nil, info["dadfailed"] == nil else { continue }
                usable.insert(local)
            }
        }
        return KernelDecision(ipv4: get([], "1.1.1.1"), ipv6: get(["-6"], "2606:4700:4700::1111"),
                              carrier: carrier, usableAddresses: usable)
    }

    /// The answer if it is usable (SPEC 2.4): through a device with carrier, from a usable source.
    func usable(_ answer: Answer) -> (device: String, gateway: String?)? {
        guard case .route(let device, let gateway, let source) = answer, carrier.contains(device),
              let source, usableAddresses.contains(source) else { return nil }
        return (device, gateway)
    }

    public var supportsIPv4: Bool { usable(ipv4) != nil }
    public var supportsIPv6: Bool { usable(ipv6) != nil }
    public var isSatisfied: Bool { supportsIPv4 || supportsIPv6 }
    /// The device the kernel sends Internet traffic through: IPv4's, else IPv6's.
    public var primary: String? { usable(ipv4)?.device ?? usable(ipv6)?.device }
    public var gateways: [String] {
        var result: [String] = []
        for case let gateway? in [usable(ipv4)?.gateway, usable(ipv6)?.gateway] where !result.contains(gateway) {
            result.append(gateway)
        }
        return result
    }
    /// The kernel refuses (a prohibit, blackhole or unreachable route or rule) and no
    /// family is usable.
    public var refuses: Bool {
        let refusals = ["Permission denied", "Invalid argument", "No route to host", "Operation not permitted", "blackhole",
                        "unreachable", "prohibit"]
        return !isSatisfied && [ipv4, ipv6].contains { answer in
            if case .refused(let reason) = answer { return refusals.contains(reason) }
            return false
        }
    }

    /// Whether `path` says what the kernel says: status, primary interface, gateways and
    /// families; `blocked` when the kernel refuses.
    public func agrees(with path: NetworkPath) -> Bool {
        guard (path.status == .satisfied) == isSatisfied else { return false }
        if isSatisfied {
            return path.availableInterfaces.first?.name == primary && path.gateways == gateways
                && path.supportsIPv4 == supportsIPv4 && path.supportsIPv6 == supportsIPv6
        }
        return !refuses || path.diagnosis == .blocked
    }

    public var description: String {
        func text(_ answer: Answer) -> String {
            switch answer {
            case .route(let device, let gateway, let source):
                return "dev \(device)" + (gateway.map { " via \($0)" } ?? "") + " src \(source ?? "-")"
                    + (usable(answer) == nil ? " (unusable)" : "")
            case .refused(let reason): return reason
            }
        }
        return "kernel: IPv4 \(text(ipv4)); IPv6 \(text(ipv6))"
    }
}
