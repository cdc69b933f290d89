import Testing
@testable import NetPathCore

/// The SASL handshake on its own: lines in, bytes out.
@Suite struct DBusAuthenticationTests {
    static let guid = "d65ca56bf5d87527800edf406b12fb1a"

    private func started() -> DBusAuthentication {
        var authentication = DBusAuthentication(uid: 1000)
        _ = authentication.handle(.start)
        return authentication
    }

    @Test func itSaysWhoItIsThenBeginsAfterTheDaemonsOK() {
        var authentication = DBusAuthentication(uid: 1000)
        #expect(authentication.handle(.start) == [.send([0] + Array("AUTH EXTERNAL 31303030\r\n".utf8))])
        #expect(authentication.handle(.start) == [])
        #expect(authentication.handle(.received(DBusFixtures.authOK)) == [
            .send(Array("BEGIN\r\n".utf8)), .authenticated(guid: Self.guid, remaining: []),
        ])
        #expect(authentication.handle(.received(Array("OK \(Self.guid)\r\n".utf8))) == [])
    }

    @Test func theOKLineSplitAnywhereAndTheBytesAfterItGoToTheMessageStream() {
        let stream = DBusFixtures.authOK + DBusFixtures.helloReply
        for cut in 1..<stream.count {
            var authentication = started()
            var actions = authentication.handle(.received(Array(stream[..<cut])))
            actions += authentication.handle(.received(Array(stream[cut...])))
            // Once authenticated, the caller passes later bytes on itself.
            let handedBack = cut >= DBusFixtures.authOK.count ? Array(stream[cut...]) : []
            guard case .authenticated(let guid, let remaining)? = actions.last, actions.count == 2 else {
                Issue.record("cut at \(cut): \(actions)")
                continue
            }
            #expect(guid == Self.guid && remaining + handedBack == DBusFixtures.helloReply, "cut at \(cut)")
        }
    }

    @Test func aRejectionFails() {
        var authentication = started()
        let actions = authentication.handle(.received(Array("REJECTED EXTERNAL DBUS_COOKIE_SHA1\r\n".utf8)))
        #expect(actions == [.failed("the bus rejected EXTERNAL authentication (it offers: EXTERNAL DBUS_COOKIE_SHA1)")])
        #expect(authentication.handle(.received(DBusFixtures.authOK)) == [])
    }

    @Test func dataOrAnErrorIsCancelledThenTheRejectionFails() {
        for line in ["DATA\r\n", "ERROR \"no\"\r\n"] {
            var authentication = started()
            #expect(authentication.handle(.received(Array(line.utf8))) == [.send(Array("CANCEL\r\n".utf8))])
            let rejected = authentication.handle(.received(Array("REJECTED EXTERNAL\r\n".utf8)))
            #expect(rejected.count == 1 && rejected.first.map { if case .failed = $0 { true } else { false } } == true)
        }
        // After a cancel, only a rejection may come.
        var authentication = started()
        _ = authentication.handle(.received(Array("DATA\r\n".utf8)))
        #expect(authentication.handle(.received(DBusFixtures.authOK)) == [.failed("an unexpected reply from the bus: OK")])
    }

    @Test func garbageOverlongLinesAndBadGUIDsFail() {
        let inputs: [[UInt8]] = [
            [0xFF, 0xFE, 0x0D, 0x0A], [0, 0x0D, 0x0A], Array("HELLO\r\n".utf8), Array("OK\r\n".utf8), Array("OK 12\r\n".utf8),
            Array("OK \(String(repeating: "g", count: 32))\r\n".utf8), Array(repeating: 0x41, count: 513),
            Array(repeating: 0x41, count: 600) + [0x0D, 0x0A],
        ]
        for input in inputs {
            var authentication = started()
            let actions = authentication.handle(.received(input))
            #expect(actions.count == 1 && actions.first.map { if case .failed = $0 { true } else { false } } == true, "\(input.prefix(8))")
            #expect(authentication.handle(.received(DBusFixtures.authOK)) == [])
        }
        // A line just short of the limit is still waited for.
        var authentication = started()
        #expect(authentication.handle(.received(Array(repeating: 0x41, count: 512))) == [])
    }
}
