import Testing
@testable import NetPathCore

/// A client connection's protocol on a manual clock, against the daemon's recorded bytes.
@Suite struct DBusConnectionMachineTests {

    /// A connection past `Hello` (its serial 1); the daemon's serial 1 reply names it `:1.0`.
    private func ready() throws -> DBusConnectionMachine {
        var connection = DBusConnectionMachine(uid: 0)
        _ = connection.handle(.connected, at: .zero)
        _ = connection.handle(.bytes(DBusFixtures.authOK), at: .zero)
        let actions = connection.handle(.bytes(DBusFixtures.helloReply + DBusFixtures.nameAcquired), at: .zero)
        try #require(actions.first == .ready(uniqueName: ":1.0"))
        return connection
    }

    private func sent(_ actions: [DBusConnectionMachine.Action]) throws -> [DBusMessage] {
        try actions.map { action in
            guard case .send(let bytes) = action else { throw DBusWireError(.badHeader) }
            return try DBusMessage.decode(bytes)
        }
    }

    @Test func itAuthenticatesSaysHelloAndHandsOutTheNameAndSignals() throws {
        var connection = DBusConnectionMachine(uid: 0)
        #expect(connection.handle(.connected, at: .zero) == [.send([0] + Array("AUTH EXTERNAL 30\r\n".utf8))])
        #expect(connection.nextDeadline == .at(seconds: 25))
        let afterOK = connection.handle(.bytes(DBusFixtures.authOK), at: .at(milliseconds: 1))
        #expect(afterOK.first == .send(Array("BEGIN\r\n".utf8)) && afterOK.count == 2)
        var hello = DBusMessage.hello
        hello.serial = 1
        #expect(try sent(Array(afterOK.dropFirst())) == [hello])
        // Split anywhere, the daemon's reply and signal give the same actions.
        var actions: [DBusConnectionMachine.Action] = []
        for byte in DBusFixtures.helloReply + DBusFixtures.nameAcquired { actions += connection.handle(.bytes([byte]), at: .at(milliseconds: 2)) }
        #expect(actions == [.ready(uniqueName: ":1.0"), .signal(try DBusMessage.decode(DBusFixtures.nameAcquired))])
        #expect(connection.uniqueName == ":1.0" && connection.nextDeadline == nil)
    }

    @Test func repliesAndErrorsAreMatchedToTheirCallsBySerial() throws {
        var connection = try ready()
        let getAll = try connection.call(.getAllProperties(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                           interface: "org.freedesktop.DBus"), token: 10, deadline: .at(seconds: 5))
        let unknown = try connection.call(.methodCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                      interface: "org.freedesktop.DBus", member: "NoSuchMethod"), token: 11, deadline: .at(seconds: 6))
        #expect(try DBusMessage.decode(getAll).serial == 2 && DBusMessage.decode(unknown).serial == 3)
        #expect(try DBusMessage.decode(getAll).body == [.string("org.freedesktop.DBus")])
        #expect(connection.nextDeadline == .at(seconds: 5))
        // The daemon's replies to its serials 2 and 3, arriving in the other order in one read.
        let actions = connection.handle(.bytes(DBusFixtures.errorReply + DBusFixtures.getAllBusReply), at: .at(seconds: 1))
        #expect(actions.count == 2)
        #expect(actions.first == .reply(token: 11, .failure(DBusError(
            name: "org.freedesktop.DBus.Error.UnknownMethod", message: "org.freedesktop.DBus does not understand message NoSuchMethod"))))
        guard case .reply(10, .success(let body))? = actions.last else {
            Issue.record("\(actions)")
            return
        }
        #expect(body.first?.dictionary?["Features"] != nil)
        #expect(connection.nextDeadline == nil)
        // A second reply to the same serial is dropped.
        #expect(connection.handle(.bytes(DBusFixtures.getAllBusReply), at: .at(seconds: 1)) == [])
    }

    @Test func callsTimeOutAtTheirDeadlinesAndLateRepliesAreDropped() throws {
        var connection = try ready()
        _ = try connection.call(.getNameOwner("org.freedesktop.NetworkManager"), token: 1, deadline: .at(milliseconds: 100))
        _ = try connection.call(.addMatch("type='signal',interface='org.freedesktop.NetworkManager'"), token: 2, deadline: .at(milliseconds: 50))
        #expect(connection.nextDeadline == .at(milliseconds: 50))
        #expect(connection.handle(.tick, at: .at(milliseconds: 49)) == [])
        #expect(connection.handle(.tick, at: .at(milliseconds: 50)) == [.timedOut(token: 2)])
        #expect(connection.nextDeadline == .at(milliseconds: 100))
        #expect(connection.handle(.tick, at: .at(milliseconds: 1_000)) == [.timedOut(token: 1)])
        #expect(connection.handle(.bytes(DBusFixtures.getAllBusReply + DBusFixtures.errorReply), at: .at(milliseconds: 1_001)) == [])
    }

    @Test func callsMadeBeforeAuthenticationAreSentAfterHello() throws {
        var connection = DBusConnectionMachine(uid: 0)
        _ = connection.handle(.connected, at: .zero)
        let early = try connection.call(.getProperty(destination: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager",
                                                     interface: "org.freedesktop.NetworkManager", name: "State"), token: 3, deadline: .at(seconds: 1))
        #expect(early == [])
        let actions = connection.handle(.bytes(DBusFixtures.authOK), at: .zero)
        guard case .send(let bytes)? = actions.last, let helloLength = try DBusMessage.frameLength(in: bytes) else {
            Issue.record("\(actions)")
            return
        }
        #expect(try DBusMessage.decode(Array(bytes[..<helloLength])).member == "Hello")
        let get = try DBusMessage.decode(Array(bytes[helloLength...]))
        #expect(get.serial == 1 && get.member == "Get" && get.body == [.string("org.freedesktop.NetworkManager"), .string("State")])
    }

    @Test func aMalformedStreamOrALateHandshakeFailsTheConnection() throws {
        var connection = try ready()
        _ = try connection.call(.hello, token: 1, deadline: .at(seconds: 1))
        var bytes = DBusFixtures.getAllBusReply
        bytes[bytes.count - 2] = 0xFF  // inside the last string
        let actions = connection.handle(.bytes(bytes), at: .zero)
        #expect(actions == [.failed("a malformed message from the bus: badString at byte 236")])
        #expect(connection.nextDeadline == nil && connection.handle(.tick, at: .at(seconds: 2)) == [])
        #expect(try connection.call(.hello, token: 2, deadline: .at(seconds: 1)) == [])

        var late = DBusConnectionMachine(uid: 0, handshakeTimeout: .seconds(1))
        _ = late.handle(.connected, at: .zero)
        #expect(late.handle(.tick, at: .at(seconds: 1) - .nanoseconds(1)) == [])
        #expect(late.handle(.tick, at: .at(seconds: 1)) == [.failed("the bus did not finish the handshake in time")])

        var refused = DBusConnectionMachine(uid: 0)
        _ = refused.handle(.connected, at: .zero)
        #expect(refused.handle(.bytes(Array("REJECTED\r\n".utf8)), at: .zero).count == 1)
        #expect(refused.handle(.bytes(DBusFixtures.authOK), at: .zero) == [])
    }

    @Test func callsToTheClientAreAnsweredAsUnknownExceptPing() throws {
        var connection = try ready()
        let forwarded = try DBusMessage.decode(Self.forwardedCall)
        let answer = try sent(connection.handle(.bytes(Self.forwardedCall), at: .zero))
        #expect(answer.count == 1 && answer.first?.type == .error && answer.first?.replySerial == forwarded.serial)
        #expect(answer.first?.errorName == "org.freedesktop.DBus.Error.UnknownMethod" && answer.first?.destination == ":1.0")
        var ping = DBusMessage.methodCall(destination: ":1.0", path: "/", interface: "org.freedesktop.DBus.Peer", member: "Ping")
        ping.serial = 77
        ping.sender = ":1.5"
        let pong = try sent(connection.handle(.bytes(ping.encoded()), at: .zero))
        #expect(pong.count == 1 && pong.first?.type == .methodReturn && pong.first?.replySerial == 77)
        ping.flags = .noReplyExpected
        #expect(connection.handle(.bytes(try ping.encoded()), at: .zero) == [])
    }

    /// A GetAll call from `:1.0` as the daemon forwarded it to `:1.1`.
    static let forwardedCall = DBusFixtures.bytes("""
        6c01000117000000050000007d00000001016f00130000002f6f72672f6578616d706c652f4465766963650000000000020173001f0000006f
        72672e667265656465736b746f702e444275732e50726f70657274696573000301730006000000476574416c6c000006017300040000003a31
        2e3100000000080167000173000007017300040000003a312e3000000000120000006f72672e6578616d706c652e44657669636500
        """)
}
