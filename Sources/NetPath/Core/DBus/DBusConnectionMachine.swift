/// An error reply from the bus or a peer: its name (`org.freedesktop.DBus.Error.…`) and
/// the message it carried.
package struct DBusError: Error, Hashable, Sendable, CustomStringConvertible {
    package var name: String
    package var message: String

    package init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    package var description: String { message.isEmpty ? name : "\(name): \(message)" }
}

/// The protocol state of a client's connection to a message bus, apart from its I/O and
/// its clock: events in, actions out. It authenticates (``DBusAuthentication``), says
/// `Hello`, numbers the calls it is given and matches their replies by serial, hands out
/// signals, and times calls out at the deadlines it was given (``Instant``s, as everywhere
/// in the core). Read-only: it answers calls made to it only to say it has no
/// such method (and to `org.freedesktop.DBus.Peer.Ping`). Pure.
package struct DBusConnectionMachine: Sendable {
    package enum Event: Equatable, Sendable {
        /// The socket is connected.
        case connected
        /// Bytes read from the socket.
        case bytes([UInt8])
        /// A deadline (``nextDeadline``) may have come.
        case tick
    }

    package enum Action: Equatable, Sendable {
        case send([UInt8])
        /// The bus gave the connection its unique name: calls are answered from now on.
        case ready(uniqueName: String)
        /// The reply to the call made with `token`: its body or the error it carried.
        case reply(token: UInt64, Result<[DBusValue], DBusError>)
        case signal(DBusMessage)
        /// The call made with `token` had no reply by its deadline; a late reply is dropped.
        case timedOut(token: UInt64)
        /// The connection cannot go on (handshake refused or late, malformed stream): close
        /// it. Calls still waiting get no further action.
        case failed(String)
    }

    private enum State: Sendable {
        case authenticating(DBusAuthentication)
        case open
        case closed
    }

    private var state: State
    private let maximumMessageLength: Int
    private let handshakeTimeout: Duration
    /// Until when the handshake and `Hello` may take; `nil` once ready.
    private var handshakeDeadline: Instant?
    private var lastSerial: UInt32 = 0
    private var helloSerial: UInt32?
    private var pending: [UInt32: (token: UInt64, deadline: Instant)] = [:]
    /// Calls made before authentication ended, sent after `Hello`.
    private var queued: [UInt8] = []
    private var inbox: [UInt8] = []
    package private(set) var uniqueName: String?

    /// - Parameters:
    ///   - uid: the process's user ID, for `EXTERNAL` authentication.
    ///   - maximumMessageLength: the longest message accepted from the bus.
    ///   - handshakeTimeout: how long authentication and `Hello` may take.
    package init(uid: UInt32, maximumMessageLength: Int = DBusMessage.defaultMaximumLength,
                 handshakeTimeout: Duration = .seconds(25)) {
        state = .authenticating(DBusAuthentication(uid: uid))
        self.maximumMessageLength = maximumMessageLength
        self.handshakeTimeout = handshakeTimeout
    }

    /// The earliest deadline: of the handshake or of a call waiting for its reply.
    package var nextDeadline: Instant? {
        pending.values.map(\.deadline).reduce(handshakeDeadline) { earliest, deadline in min(earliest ?? deadline, deadline) }
    }

    /// Takes one event at `now`; returns what to do, in order.
    package mutating func handle(_ event: Event, at now: Instant) -> [Action] {
        switch (event, state) {
        case (.connected, .authenticating(var authentication)):
            handshakeDeadline = now + handshakeTimeout
            let actions = authentication.handle(.start)
            state = .authenticating(authentication)
            return authenticated(actions)
        case (.bytes(let bytes), .authenticating(var authentication)):
            let actions = authentication.handle(.received(bytes))
            state = .authenticating(authentication)
            return authenticated(actions)
        case (.bytes(let bytes), .open):
            inbox += bytes
            return readMessages()
        case (.tick, .authenticating), (.tick, .open):
            if let deadline = handshakeDeadline, now >= deadline { return fail("the bus did not finish the handshake in time") }
            let late = pending.filter { $0.value.deadline <= now }.sorted { $0.key < $1.key }
            for (serial, _) in late { pending[serial] = nil }
            return late.map { .timedOut(token: $0.value.token) }
        default:
            return []
        }
    }

    /// Numbers a method call and returns its bytes to send; its reply or time-out comes back
    /// as an action with `token`. Before authentication has ended, the bytes are kept and
    /// sent after `Hello` (an empty array is returned); once the connection has failed,
    /// nothing is sent or awaited.
    /// - Parameters:
    ///   - deadline: when to give up waiting for the reply.
    /// - Throws: ``DBusWireError`` when the message cannot be written.
    package mutating func call(_ message: DBusMessage, token: UInt64, deadline: Instant) throws -> [UInt8] {
        if case .closed = state { return [] }
        var message = message
        message.serial = nextSerial()
        let bytes = try message.encoded()
        if !message.flags.contains(.noReplyExpected) { pending[message.serial] = (token, deadline) }
        guard case .open = state else {
            queued += bytes
            return []
        }
        return bytes
    }

    private mutating func nextSerial() -> UInt32 {
        lastSerial = lastSerial == UInt32.max ? 1 : lastSerial + 1
        return lastSerial
    }

    /// Passes the handshake's actions on; once it succeeds, says `Hello` and reads what
    /// followed the `OK` line.
    private mutating func authenticated(_ actions: [DBusAuthentication.Action]) -> [Action] {
        var result: [Action] = []
        for action in actions {
            switch action {
            case .send(let bytes):
                result.append(.send(bytes))
            case .failed(let reason):
                return result + fail("authentication: \(reason)")
            case .authenticated(_, let remaining):
                state = .open
                let serial = nextSerial()
                helloSerial = serial
                var hello = DBusMessage.hello
                hello.serial = serial
                // A constant message with valid names: it always encodes.
                let helloBytes = (try? hello.encoded()) ?? []
                result.append(.send(helloBytes + queued))
                queued = []
                inbox = remaining
                result += readMessages()
            }
        }
        return result
    }

    /// Reads every whole message in the inbox.
    private mutating func readMessages() -> [Action] {
        var actions: [Action] = []
        var consumed = 0
        defer { if case .open = state { inbox.removeFirst(consumed) } }
        while case .open = state {
            let length: Int
            do {
                guard let whole = try DBusMessage.frameLength(in: inbox, at: consumed, maximumLength: maximumMessageLength) else { break }
                length = whole
            } catch {
                return actions + fail("a malformed message from the bus: \(error)")
            }
            let bytes = Array(inbox[consumed..<(consumed + length)])
            consumed += length
            do {
                actions += dispatch(try DBusMessage.decode(bytes, maximumLength: maximumMessageLength))
            } catch let error as DBusWireError where error.reason == .unknownType {
                continue  // the spec: messages of unknown types are ignored
            } catch {
                return actions + fail("a malformed message from the bus: \(error)")
            }
        }
        return actions
    }

    private mutating func dispatch(_ message: DBusMessage) -> [Action] {
        switch message.type {
        case .signal:
            return [.signal(message)]
        case .methodCall:
            return message.flags.contains(.noReplyExpected) ? [] : answer(message)
        case .methodReturn, .error:
            guard let serial = message.replySerial else { return [] }
            let result: Result<[DBusValue], DBusError> = message.type == .methodReturn
                ? .success(message.body)
                : .failure(DBusError(name: message.errorName ?? "", message: message.body.first?.string ?? ""))
            if serial == helloSerial {
                helloSerial = nil
                guard case .success(let body) = result, let name = body.first?.string else {
                    return fail("the bus refused Hello: \(result)")
                }
                uniqueName = name
                handshakeDeadline = nil
                return [.ready(uniqueName: name)]
            }
            guard let call = pending.removeValue(forKey: serial) else { return [] }
            return [.reply(token: call.token, result)]
        }
    }

    /// The answer to a call made to this client: an empty return to `Peer.Ping`, else the
    /// error the spec names for a method that does not exist.
    private mutating func answer(_ call: DBusMessage) -> [Action] {
        let isPing = call.interface == "org.freedesktop.DBus.Peer" && call.member == "Ping"
        var reply = DBusMessage(type: isPing ? .methodReturn : .error, serial: nextSerial(),
                                errorName: isPing ? nil : "org.freedesktop.DBus.Error.UnknownMethod",
                                replySerial: call.serial, destination: call.sender,
                                body: isPing ? [] : [.string("This client has no method \(call.member ?? "")")])
        reply.flags = .noReplyExpected
        guard let bytes = try? reply.encoded() else { return [] }
        return [.send(bytes)]
    }

    private mutating func fail(_ reason: String) -> [Action] {
        state = .closed
        pending = [:]
        queued = []
        inbox = []
        handshakeDeadline = nil
        return [.failed(reason)]
    }
}

// MARK: The calls a client makes

extension DBusMessage {
    /// The bus itself, as a destination.
    package static let busName = "org.freedesktop.DBus"
    package static let busPath = "/org/freedesktop/DBus"
    package static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// A method call on `destination`'s object at `path`.
    package static func methodCall(destination: String, path: String, interface: String, member: String,
                                   body: [DBusValue] = []) -> DBusMessage {
        DBusMessage(type: .methodCall, path: path, interface: interface, member: member, destination: destination, body: body)
    }

    /// `Hello`: the first call on a bus connection, answered with the connection's unique name.
    package static var hello: DBusMessage {
        methodCall(destination: busName, path: busPath, interface: busName, member: "Hello")
    }

    /// `org.freedesktop.DBus.Properties.Get`: one property, answered as a variant.
    package static func getProperty(destination: String, path: String, interface: String, name: String) -> DBusMessage {
        methodCall(destination: destination, path: path, interface: propertiesInterface, member: "Get",
                   body: [.string(interface), .string(name)])
    }

    /// `org.freedesktop.DBus.Properties.GetAll`: every property of `interface`, answered as `a{sv}`.
    package static func getAllProperties(destination: String, path: String, interface: String) -> DBusMessage {
        methodCall(destination: destination, path: path, interface: propertiesInterface, member: "GetAll",
                   body: [.string(interface)])
    }

    /// `AddMatch`: asks the bus for the signals `rule` matches
    /// (`type='signal',interface='org.freedesktop.NetworkManager'`).
    package static func addMatch(_ rule: String) -> DBusMessage {
        methodCall(destination: busName, path: busPath, interface: busName, member: "AddMatch", body: [.string(rule)])
    }

    /// `GetNameOwner`: the unique name that owns `name`, or the error `NameHasNoOwner`.
    package static func getNameOwner(_ name: String) -> DBusMessage {
        methodCall(destination: busName, path: busPath, interface: busName, member: "GetNameOwner", body: [.string(name)])
    }
}
