/// The Flatpak portal's network status (`org.freedesktop.portal.NetworkMonitor` on the
/// session bus), kept up to date: the protocol of a client, apart from its connection. Pure.
///
/// On ``DesktopBusEvent/ready`` it asks for the portal's `changed` signal, then calls
/// `GetStatus` (version 3); each `changed` calls it again. A portal older than version 3
/// answers `GetStatus` with `UnknownMethod`: then `GetAvailable`, `GetMetered` and
/// `GetConnectivity` are called instead, and the answer is given once all three replied.
/// No portal (or an error) answers `nil`.
package struct PortalClient: DesktopBusClient {
    package typealias Answer = PortalStatus

    package static let busName = "org.freedesktop.portal.Desktop"
    package static let path = "/org/freedesktop/portal/desktop"
    package static let interface = "org.freedesktop.portal.NetworkMonitor"
    package static let matchRule =
        "type='signal',sender='\(busName)',path='\(path)',interface='\(interface)',member='changed'"
    static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"

    /// What a call in flight was for; a read belongs to a round (one per `changed`), and
    /// replies of an older round than the last are dropped.
    private enum Purpose: Equatable, Sendable {
        case addMatch
        case status(round: UInt64)
        case available(round: UInt64), metered(round: UInt64), connectivity(round: UInt64)
    }

    private var calls: [UInt64: Purpose] = [:]
    private var lastToken: UInt64 = 0
    private var round: UInt64 = 0
    /// Whether the portal lacks `GetStatus` (older than version 3).
    private var separateCalls = false
    /// The separate calls' replies of the current round.
    private var available: Bool?
    private var metered: Bool?
    private var connectivity: UInt32?
    /// The last answer given, and whether one was.
    package private(set) var status: PortalStatus?
    package private(set) var hasAnswered = false

    package init() {}

    package mutating func handle(_ event: DesktopBusEvent) -> [DesktopBusAction<PortalStatus>] {
        switch event {
        case .ready:
            return [call(.addMatch(PortalClient.matchRule), for: .addMatch)] + read()
        case .reply(let token, let result):
            guard let purpose = calls.removeValue(forKey: token) else { return [] }
            return reply(result, for: purpose)
        case .timedOut(let token):
            guard calls.removeValue(forKey: token) != nil else { return [] }
            return [.failed("the portal did not answer in time")]
        case .signal(let message):
            guard message.type == .signal, message.path == PortalClient.path, message.interface == PortalClient.interface,
                  message.member == "changed" else { return [] }
            return read()
        }
    }

    /// A new round of reads.
    private mutating func read() -> [DesktopBusAction<PortalStatus>] {
        round += 1
        guard separateCalls else { return [call(portalCall("GetStatus"), for: .status(round: round))] }
        (available, metered, connectivity) = (nil, nil, nil)
        return [
            call(portalCall("GetAvailable"), for: .available(round: round)),
            call(portalCall("GetMetered"), for: .metered(round: round)),
            call(portalCall("GetConnectivity"), for: .connectivity(round: round)),
        ]
    }

    private mutating func reply(_ result: Result<[DBusValue], DBusError>, for purpose: Purpose) -> [DesktopBusAction<PortalStatus>] {
        switch (purpose, result) {
        case (.addMatch, .success):
            return []
        case (.addMatch, .failure(let error)):
            return [.failed("the bus refused a match rule: \(error)")]
        case (.status(let of), .failure(let error)) where error.name == PortalClient.unknownMethod:
            guard of == round else { return [] }
            separateCalls = true
            return read()
        case (.status(let of), .success(let body)):
            guard of == round else { return [] }
            guard let fields = body.first?.dictionary, let available = fields["available"]?.bool,
                  let metered = fields["metered"]?.bool, let connectivity = fields["connectivity"]?.uint32
            else { return publish(nil) }
            return publish(PortalStatus(available: available, metered: metered, connectivity: connectivity))
        case (.status(let of), .failure):
            // No portal (`ServiceUnknown`), or it refuses.
            return of == round ? publish(nil) : []
        case (.available(let of), _), (.metered(let of), _), (.connectivity(let of), _):
            guard of == round else { return [] }
            let value = (try? result.get())?.first
            let taken: Bool
            switch purpose {
            case .available: available = value?.bool; taken = available != nil
            case .metered: metered = value?.bool; taken = metered != nil
            default: connectivity = value?.uint32; taken = connectivity != nil
            }
            guard taken else {
                round += 1  // the round's other replies no longer count
                return publish(nil)
            }
            guard let available, let metered, let connectivity else { return [] }
            return publish(PortalStatus(available: available, metered: metered, connectivity: connectivity))
        }
    }

    private mutating func publish(_ answer: PortalStatus?) -> [DesktopBusAction<PortalStatus>] {
        guard !hasAnswered || answer != status else { return [] }
        hasAnswered = true
        status = answer
        return [.answer(answer)]
    }

    private func portalCall(_ member: String) -> DBusMessage {
        .methodCall(destination: PortalClient.busName, path: PortalClient.path, interface: PortalClient.interface, member: member)
    }

    private mutating func call(_ message: DBusMessage, for purpose: Purpose) -> DesktopBusAction<PortalStatus> {
        lastToken += 1
        calls[lastToken] = purpose
        return .call(message, token: lastToken)
    }
}
