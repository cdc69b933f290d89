/// What a desktop-service client (``NetworkManagerClient``, ``PortalClient``) hears from its
/// bus connection: the connection's own actions (``DBusConnectionMachine/Action``) that are
/// about calls and signals.
package enum DesktopBusEvent: Equatable, Sendable {
    /// The connection said `Hello`: calls are answered from now on.
    case ready
    /// The reply to the call the client made with `token`.
    case reply(token: UInt64, Result<[DBusValue], DBusError>)
    /// A signal the client's match rules asked for (or any other the bus sent).
    case signal(DBusMessage)
    /// The call made with `token` had no reply by its deadline.
    case timedOut(token: UInt64)

    /// The event a connection action is for the client; `nil` for the connection's own
    /// business (bytes to send, its failure).
    package init?(_ action: DBusConnectionMachine.Action) {
        switch action {
        case .ready: self = .ready
        case .reply(let token, let result): self = .reply(token: token, result)
        case .signal(let message): self = .signal(message)
        case .timedOut(let token): self = .timedOut(token: token)
        case .send, .failed: return nil
        }
    }
}

/// What a desktop-service client asks of its connection.
package enum DesktopBusAction<Answer: Equatable & Sendable>: Equatable, Sendable {
    /// Make this call (with a deadline of the connection's choosing); its reply or time-out
    /// comes back as an event with `token`.
    case call(DBusMessage, token: UInt64)
    /// The client's answer changed (or is given for the first time): `nil` when the service
    /// is not there or says nothing usable.
    case answer(Answer?)
    /// The service or the bus stopped answering: close the connection and start again later
    /// with a new client.
    case failed(String)
}

/// A client of one desktop service on one bus connection: a state machine that takes the
/// connection's events and returns the calls to make and its answers. Pure.
package protocol DesktopBusClient: Sendable {
    associatedtype Answer: Equatable & Sendable

    /// A client for a new connection (it waits for ``DesktopBusEvent/ready``).
    init()

    /// Takes one event; returns what to do, in order.
    mutating func handle(_ event: DesktopBusEvent) -> [DesktopBusAction<Answer>]
}

extension DBusMessage {
    /// `NameOwnerChanged`'s match rule for one well-known name: the bus says when it gets,
    /// changes or loses its owner.
    package static func nameOwnerChangedRule(for name: String) -> String {
        "type='signal',sender='\(busName)',interface='\(busName)',member='NameOwnerChanged',arg0='\(name)'"
    }

    /// The body of a `NameOwnerChanged` signal from the bus: the name, its old and its new
    /// owner (`""`: none); `nil` for any other message.
    package var nameOwnerChange: (name: String, oldOwner: String, newOwner: String)? {
        guard type == .signal, sender == DBusMessage.busName, interface == DBusMessage.busName,
              member == "NameOwnerChanged", body.count == 3,
              let name = body[0].string, let old = body[1].string, let new = body[2].string else { return nil }
        return (name, old, new)
    }
}
