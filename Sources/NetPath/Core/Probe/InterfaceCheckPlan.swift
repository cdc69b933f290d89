/// When `netpath serve --probe-interfaces` checks each interface of one namespace: a check
/// over every candidate interface (each up interface of the path) when the path changes,
/// then again on the same timing rules as the monitor's own check (SPEC §3): after
/// ``ConnectivityCheck/interval`` while the verdict is `full` (never, when it is `nil`),
/// else after a back-off of 1 s doubling to 300 s. An interface the kernel routes nowhere
/// is not checked again until the path changes.
///
/// Pure: events in, actions out, time given by the caller (``Instant``), so its rules are
/// tested without a clock or a network.
package struct InterfaceCheckPlan: Sendable {
    package enum Event: Sendable {
        /// The namespace's path changed: `interfaces` are the candidates (names), and a
        /// change of `key` (what the path's way out is made of: gateways, network
        /// identity, addresses) re-checks every one of them at once.
        case path(interfaces: Set<String>, key: Int)
        /// A check over `interface` ended; `outcome` says what it found.
        case finished(interface: String, outcome: Outcome)
        /// The time of the ``Action/wake(at:)`` asked for came.
        case timer
    }

    package enum Outcome: Sendable, Equatable {
        /// The Internet answers through the interface.
        case full
        /// A verdict short of `full` (portal, limited, local), or a local failure.
        case short
        /// The kernel routes neither family to the Internet through it: not checked again
        /// until the path changes.
        case notRouted
    }

    package enum Action: Sendable, Equatable {
        /// Start a check over the interface (none runs for it now).
        case start(String)
        /// The interface is no candidate any more: drop its check and its series.
        case forget(String)
        /// Call ``handle(_:at:)`` with ``Event/timer`` at this instant (the earliest due
        /// check). Asked only when no wake asked for before comes earlier; a wake that
        /// comes with nothing due does nothing.
        case wake(at: Instant)
    }

    private struct Interface: Sendable {
        var running = false
        /// A path change came while the check ran: check again when it ends.
        var stale = false
        /// When the next check is due; `nil`: none is.
        var due: Instant?
        var backoff = InterfaceCheckPlan.firstDelay
    }

    package static let firstDelay: Duration = .seconds(1)
    package static let maximumDelay: Duration = .seconds(300)

    /// How long after a `full` verdict to check again; `nil`: not while it stays `full`.
    private let interval: Duration?
    private var interfaces: [String: Interface] = [:]
    private var key: Int?
    /// The wakes asked for that have not come yet.
    private var wakes: [Instant] = []

    package init(interval: Duration?) {
        self.interval = interval
    }

    package mutating func handle(_ event: Event, at now: Instant) -> [Action] {
        var actions: [Action] = []
        switch event {
        case .path(let names, let newKey):
            let changed = newKey != key
            key = newKey
            for name in interfaces.keys.sorted() where !names.contains(name) {
                interfaces[name] = nil
                actions.append(.forget(name))
            }
            for name in names.sorted() {
                var interface = interfaces[name] ?? Interface(due: now)
                if changed || interfaces[name] == nil {
                    interface.backoff = InterfaceCheckPlan.firstDelay
                    if interface.running { interface.stale = true } else { interface.due = now }
                }
                interfaces[name] = interface
            }
        case .finished(let name, let outcome):
            guard var interface = interfaces[name], interface.running else { break }
            interface.running = false
            if interface.stale {
                interface.stale = false
                interface.due = now
            } else {
                switch outcome {
                case .full:
                    interface.backoff = InterfaceCheckPlan.firstDelay
                    interface.due = interval.map { now + $0 }
                case .short:
                    interface.due = now + interface.backoff
                    interface.backoff = min(interface.backoff * 2, InterfaceCheckPlan.maximumDelay)
                case .notRouted:
                    interface.due = nil
                }
            }
            interfaces[name] = interface
        case .timer:
            break
        }
        wakes.removeAll { $0 <= now }
        for name in interfaces.keys.sorted() {
            guard var interface = interfaces[name], !interface.running, let due = interface.due, due <= now else { continue }
            interface.running = true
            interface.due = nil
            interfaces[name] = interface
            actions.append(.start(name))
        }
        if let next = interfaces.values.compactMap({ $0.running ? nil : $0.due }).min(), wakes.allSatisfy({ $0 > next }) {
            wakes.append(next)
            actions.append(.wake(at: next))
        }
        return actions
    }
}
