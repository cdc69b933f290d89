/// The interfaces a user configured as metered, constrained or ultra-constrained (SPEC §1:
/// `isExpensive` is "the physical interface is cellular, or configured as metered";
/// `isConstrained` and `isUltraConstrained` are `false` on Linux "unless configured").
/// Under a VPN the physical interface is the one beneath the tunnel.
///
/// Linux has no system-wide flag a process can read without D-Bus (NetworkManager keeps
/// its `metered` setting behind it), so the app or the command line names the interfaces:
/// a phone's USB tethering (`usb0`, `enx*`), a satellite link, a data-capped uplink.
/// A pattern is an interface name, or a shell-style pattern where `*` matches any run of
/// characters and `?` any one. The backend's own answer is kept: a cellular path stays
/// expensive, and Apple's Low Data Mode stays constrained.
package struct InterfaceCosts: Sendable, Equatable {
    /// Patterns of interfaces that make a path expensive when they are its primary one.
    package var metered: [String] = []
    /// Patterns of interfaces that make a path constrained when they are its physical one.
    package var constrained: [String] = []
    /// Patterns of interfaces that make a path ultra-constrained (a satellite link).
    package var ultraConstrained: [String] = []

    package init(metered: [String] = [], constrained: [String] = [], ultraConstrained: [String] = []) {
        self.metered = metered
        self.constrained = constrained
        self.ultraConstrained = ultraConstrained
    }

    /// Whether nothing is configured (the path passes unchanged).
    package var isEmpty: Bool { metered.isEmpty && constrained.isEmpty && ultraConstrained.isEmpty }

    /// The path with `isExpensive`, `isConstrained` and `isUltraConstrained` set where the
    /// configuration says so. Applying it twice changes nothing more.
    ///
    /// - Parameters:
    ///   - path: A path as the backend reported it.
    /// - Returns: The path, marked when its physical interface (the primary one, or the one
    ///   beneath its tunnel) matches a configured pattern; otherwise unchanged.
    package func apply(to path: NetworkPath) -> NetworkPath {
        guard !isEmpty, let name = path.physicalInterface?.name else { return path }
        var path = path
        func matched(_ patterns: [String]) -> Bool { patterns.contains { Self.matches($0, name) } }
        if !path.isExpensive, matched(metered) {
            path.isExpensive = true
            path.expensiveSource = .configuration
        }
        if !path.isConstrained, matched(constrained) { path.isConstrained = true }
        if !path.isUltraConstrained, matched(ultraConstrained) { path.isUltraConstrained = true }
        return path
    }

    /// Whether `name` matches `pattern`, where `*` stands for any run of characters
    /// (none included) and `?` for exactly one; every other character stands for itself.
    ///
    /// - Parameters:
    ///   - pattern: An interface name or a pattern such as `wwan*` or `usb?`.
    ///   - name: An interface name.
    /// - Returns: `true` when the whole name matches.
    package static func matches(_ pattern: String, _ name: String) -> Bool {
        let pattern = Array(pattern.utf8), name = Array(name.utf8)
        // Greedy matching with one backtrack point (the last `*`): linear in practice,
        // and at worst pattern × name steps, both a few bytes long.
        var p = 0, n = 0
        var star: Int?, resume = 0
        while n < name.count {
            if p < pattern.count, pattern[p] == UInt8(ascii: "?") || pattern[p] == name[n] && pattern[p] != UInt8(ascii: "*") {
                p += 1
                n += 1
            } else if p < pattern.count, pattern[p] == UInt8(ascii: "*") {
                star = p
                resume = n
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                n = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }
}
