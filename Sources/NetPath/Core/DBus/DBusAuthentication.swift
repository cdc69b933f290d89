/// The client's side of D-Bus's SASL handshake with the `EXTERNAL` mechanism (the bus knows
/// who we are from the socket's credentials), apart from its I/O: events in, actions out.
///
/// It sends a NUL byte and `AUTH EXTERNAL <uid>` at once, expects `OK <guid>`, then sends
/// `BEGIN`. Bytes may arrive split anywhere; what follows the `OK` line is the start of the
/// message stream and is handed back. A line over ``maximumLineLength``, a byte that is not
/// printable ASCII, or a reply the protocol does not allow here ends it with `failed`. Pure.
package struct DBusAuthentication: Sendable {
    package enum Event: Equatable, Sendable {
        /// The socket is connected: say who we are.
        case start
        /// Bytes read from the socket.
        case received([UInt8])
    }

    package enum Action: Equatable, Sendable {
        case send([UInt8])
        /// The bus accepted us; `remaining` bytes belong to the message stream.
        case authenticated(guid: String, remaining: [UInt8])
        /// The handshake is over without success; the connection must be closed.
        case failed(String)
    }

    /// The longest line accepted from the bus (its lines are under 100 bytes).
    package static let maximumLineLength = 512
    private static let overlong = "a line from the bus longer than \(maximumLineLength) bytes"

    private enum State: Sendable {
        case idle, waitingForOK, waitingForReject, done
    }

    private let uid: UInt32
    private var state = State.idle
    private var buffer: [UInt8] = []

    /// - Parameter uid: the process's user ID, which the bus compares with the socket's.
    package init(uid: UInt32) {
        self.uid = uid
    }

    /// Takes one event; returns what to do, in order.
    package mutating func handle(_ event: Event) -> [Action] {
        switch (event, state) {
        case (.start, .idle):
            state = .waitingForOK
            let hex = Array(String(uid).utf8).map { byte in String(byte, radix: 16) }.joined()
            return [.send([0] + Array("AUTH EXTERNAL \(hex)\r\n".utf8))]
        case (.received(let bytes), .waitingForOK), (.received(let bytes), .waitingForReject):
            buffer += bytes
            var actions: [Action] = []
            while state != .done, let end = lineEnd() {
                let line = Array(buffer[..<end])
                buffer.removeSubrange(..<(end + 2))
                actions += take(line)
            }
            if state != .done, buffer.count > DBusAuthentication.maximumLineLength {
                actions += fail(DBusAuthentication.overlong)
            }
            return actions
        default:
            return []
        }
    }

    /// Where the first `\r\n` in the buffer starts.
    private func lineEnd() -> Int? {
        guard buffer.count >= 2 else { return nil }
        return (0..<(buffer.count - 1)).first { buffer[$0] == UInt8(ascii: "\r") && buffer[$0 + 1] == UInt8(ascii: "\n") }
    }

    /// One line from the bus, without its `\r\n`.
    private mutating func take(_ line: [UInt8]) -> [Action] {
        guard line.count <= DBusAuthentication.maximumLineLength else { return fail(DBusAuthentication.overlong) }
        guard line.allSatisfy({ (0x20...0x7E).contains($0) }) else { return fail("a line from the bus that is not text") }
        let words = String(decoding: line, as: UTF8.self).split(separator: " ", maxSplits: 1)
        let command = words.first.map(String.init) ?? ""
        let argument = words.count > 1 ? String(words[1]) : ""
        switch (command, state) {
        case ("OK", .waitingForOK):
            guard argument.utf8.count == 32, argument.utf8.allSatisfy({ $0.isHexDigit }) else {
                return fail("the bus's OK has no GUID: \(argument)")
            }
            state = .done
            let remaining = buffer
            buffer = []
            return [.send(Array("BEGIN\r\n".utf8)), .authenticated(guid: argument, remaining: remaining)]
        case ("REJECTED", _):
            return fail("the bus rejected EXTERNAL authentication (it offers: \(argument))")
        case ("DATA", .waitingForOK), ("ERROR", .waitingForOK):
            // The spec's answer: cancel, then the bus rejects the mechanism.
            state = .waitingForReject
            return [.send(Array("CANCEL\r\n".utf8))]
        default:
            return fail("an unexpected reply from the bus: \(command)")
        }
    }

    private mutating func fail(_ reason: String) -> [Action] {
        state = .done
        buffer = []
        return [.failed(reason)]
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
