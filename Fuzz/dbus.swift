// libFuzzer target: the bytes a message bus (or anyone who can reach the socket) sends a
// D-Bus client → the frame splitter and DBusMessage.decode; the same bytes as the bus's side
// of the SASL handshake → DBusAuthentication; and, after a real `OK` line, as the message
// stream of a DBusConnectionMachine with calls waiting and the clock moving.
//
// Rules checked for any input: a message that decodes writes and reads back the same (its
// bytes, where a NaN makes values unequal); a frame is not found in fewer bytes than its
// length; the handshake ends the same whether its input comes whole or in two parts (the
// first byte picks the cut); a connection sends only messages that decode, and after
// `failed` does nothing more.

@testable import NetPathCore

private let authOK = Array("OK d65ca56bf5d87527800edf406b12fb1a\r\n".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    messages(bytes)
    handshake(bytes)
    connection(bytes)
    return 0
}

private func messages(_ bytes: [UInt8]) {
    var offset = 0
    while let length = try? DBusMessage.frameLength(in: bytes, at: offset) {
        if (try? DBusMessage.frameLength(in: Array(bytes[..<(offset + length - 1)]), at: offset)) != nil {
            fatalError("a frame of \(length) bytes found in fewer")
        }
        if let message = try? DBusMessage.decode(Array(bytes[offset..<(offset + length)])) {
            guard let written = try? message.encoded() else { fatalError("a decoded message does not encode: \(message)") }
            guard let again = try? DBusMessage.decode(written) else { fatalError("an encoded message does not decode: \(message)") }
            guard again == message || (try? again.encoded()) == written else { fatalError("\(message) read back as \(again)") }
        }
        offset += length
    }
    _ = try? DBusMessage.decode(bytes, maximumLength: 4096)
}

/// What a handshake came to: the bytes it sent, then how it ended with the bytes that follow.
private func outcome(_ chunks: [[UInt8]]) -> [String] {
    var authentication = DBusAuthentication(uid: 1000)
    var sent = authentication.handle(.start).map { "\($0)" }
    var ending: DBusAuthentication.Action?
    var after: [UInt8] = []
    for chunk in chunks {
        if ending == nil {
            for action in authentication.handle(.received(chunk)) {
                if case .send = action { sent.append("\(action)") } else { ending = action }
            }
        } else {
            after += chunk
        }
    }
    if case .authenticated(let guid, let remaining)? = ending { return sent + ["authenticated \(guid)", "\(remaining + after)"] }
    return sent + ["\(String(describing: ending))"]
}

private func handshake(_ bytes: [UInt8]) {
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) * bytes.count / 256
    let whole = outcome([bytes]), split = outcome([Array(bytes[..<cut]), Array(bytes[cut...])])
    guard whole == split else { fatalError("the handshake ends differently cut at \(cut): \(whole) vs \(split)") }
}

private func connection(_ bytes: [UInt8]) {
    var connection = DBusConnectionMachine(uid: 0, maximumMessageLength: 8192)
    var actions = connection.handle(.connected, at: .zero)
    actions += connection.handle(.bytes(authOK), at: Instant(nanoseconds: 1))
    for (token, member) in ["GetAll", "Get", "AddMatch"].enumerated() {
        let call = DBusMessage.methodCall(destination: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager",
                                          interface: "org.freedesktop.NetworkManager", member: member)
        if let sent = try? connection.call(call, token: UInt64(token), deadline: Instant(nanoseconds: 10 + 10 * UInt64(token))) { actions.append(.send(sent)) }
    }
    var now = Instant(nanoseconds: 2)
    var index = 0
    while index < bytes.count {
        let chunk = 1 + Int(bytes[index]) % 64
        actions += connection.handle(.bytes(Array(bytes[index..<min(index + chunk, bytes.count)])), at: now)
        actions += connection.handle(.tick, at: now)
        index += chunk
        now += .nanoseconds(3)
    }
    for (position, action) in actions.enumerated() {
        switch action {
        case .send(let sent) where position > 1:  // after the handshake's: whole messages
            var offset = 0
            while offset < sent.count {
                guard let length = try? DBusMessage.frameLength(in: sent, at: offset),
                      (try? DBusMessage.decode(Array(sent[offset..<(offset + length)]))) != nil else {
                    fatalError("the connection sent bytes that do not decode: \(sent)")
                }
                offset += length
            }
        case .failed where position != actions.count - 1:
            fatalError("actions after failed: \(actions[position...])")
        default:
            break
        }
    }
}
