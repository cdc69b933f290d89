/// The flow of the monitor's question socket as the kernel's policy-routing rules see it:
/// a UDP socket of the monitor's user, connecting to the family's Internet destination on
/// port 53, with no mark, leaving from the loopback side (`iif lo`, as every locally made
/// packet), bound to an interface only for a filtered monitor.
///
/// Used for the diagnosis alone (SPEC 2.5): the kernel says "network unreachable" both when
/// no table has a route and when an `unreachable` rule refused; walking the rules for this
/// flow tells the two apart. The verdict itself always comes from the kernel.
package struct RuleFlow: Hashable, Sendable {
    package var family: UInt8
    package var destination: IPAddress
    /// The source addresses the socket may have had when a rule was consulted: unspecified
    /// for the first lookup, then the source the kernel picked.
    package var sources: [IPAddress]
    /// The name of the interface a filtered monitor binds to, or `nil`.
    package var outputInterface: String?
    /// The user the socket belongs to (the monitor's effective uid).
    package var uid: UInt32

    /// `lo`: the input interface of every locally made packet (`LOOPBACK_IFINDEX`).
    package static let loopbackName = "lo"

    /// Whether `rule` selects this flow (`fib_rule_match` and the family's match).
    package func matches(_ rule: RuleMessage) -> Bool {
        guard rule.family == family, !rule.hasOtherSelector else { return false }
        var selected = true
        if rule.flags & (Netlink.Rule.inputDetached | Netlink.Rule.outputDetached) != 0 { selected = false }
        if let input = rule.inputName, input != RuleFlow.loopbackName { selected = false }
        if let output = rule.outputName, output != outputInterface { selected = false }
        if let mark = rule.mark, mark & (rule.markMask ?? .max) != 0 { selected = false }
        if let range = rule.uidRange, !range.contains(uid) { selected = false }
        if rule.tos != 0 { selected = false }
        if rule.ipProtocol != 0 && rule.ipProtocol != Netlink.udpProtocol { selected = false }
        if rule.sourcePorts != nil { selected = false }  // the socket's port is the kernel's pick
        if let ports = rule.destinationPorts, !ports.contains(Netlink.questionPort) { selected = false }
        if let prefix = rule.destination, !prefix.contains(destination, prefixLength: rule.destinationLength) {
            selected = false
        }
        if let prefix = rule.source, !sources.contains(where: { prefix.contains($0, prefixLength: rule.sourceLength) }) {
            selected = false
        }
        return selected != (rule.flags & Netlink.Rule.invert != 0)
    }

    /// Whether the rules, walked in order for this flow with every table lookup failing (the
    /// kernel said "network unreachable"), reach an `unreachable` rule: a kill switch, not a
    /// missing route. `goto` jumps over the rules before its target, as the kernel's does.
    package func reachesUnreachableRule(_ rules: Set<RuleMessage>) -> Bool {
        // Most hosts have no `unreachable` rule: then there is nothing to walk.
        guard rules.contains(where: { $0.family == family && $0.action == Netlink.Rule.unreachable }) else { return false }
        // Into an array, not a filtered set: a set would hash every rule again.
        var ordered: [RuleMessage] = []
        for rule in rules where rule.family == family { ordered.append(rule) }
        ordered.sort { $0.priority < $1.priority }
        var skipBelow: UInt32 = 0
        for rule in ordered where rule.priority >= skipBelow && matches(rule) {
            switch rule.action {
            case Netlink.Rule.goto:
                guard rule.flags & Netlink.Rule.unresolved == 0, let target = rule.gotoTarget, target > rule.priority,
                      ordered.contains(where: { $0.priority == target }) else { continue }
                skipBelow = target
            case Netlink.Rule.unreachable:
                return true
            case Netlink.Rule.prohibit, Netlink.Rule.blackhole:
                return false  // those refuse with another errno
            default:
                continue  // a table lookup that found nothing, or a nop
            }
        }
        return false
    }
}
