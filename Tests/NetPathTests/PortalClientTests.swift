import Testing
@testable import NetPathCore

/// The Flatpak portal's NetworkMonitor client, with replies as xdg-desktop-portal sends them.
@Suite struct PortalClientTests {
    typealias Action = DesktopBusAction<PortalStatus>

    func calls(_ actions: [Action]) -> [(message: DBusMessage, token: UInt64)] {
        actions.compactMap { if case .call(let message, let token) = $0 { (message, token) } else { nil } }
    }

    static func status(available: Bool, metered: Bool, connectivity: UInt32) -> [DBusValue] {
        [.dictionary(keySignature: "s", valueSignature: "v", [
            .init(.string("available"), .variant(.boolean(available))),
            .init(.string("metered"), .variant(.boolean(metered))),
            .init(.string("connectivity"), .variant(.uint32(connectivity))),
        ])]
    }

    static let changed = DBusMessage(type: .signal, path: PortalClient.path, interface: PortalClient.interface, member: "changed",
                                     sender: ":1.4")

    @Test func itSubscribesAsksForTheStatusAndAsksAgainOnChanged() throws {
        var client = PortalClient()
        let made = calls(client.handle(.ready))
        #expect(made.map(\.message) == [
            .addMatch("type='signal',sender='org.freedesktop.portal.Desktop',path='/org/freedesktop/portal/desktop',interface='org.freedesktop.portal.NetworkMonitor',member='changed'"),
            .methodCall(destination: "org.freedesktop.portal.Desktop", path: "/org/freedesktop/portal/desktop",
                        interface: "org.freedesktop.portal.NetworkMonitor", member: "GetStatus"),
        ])
        #expect(client.handle(.reply(token: made[0].token, .success([]))) == [])
        #expect(client.handle(.reply(token: made[1].token, .success(Self.status(available: true, metered: false, connectivity: 4)))) ==
            [.answer(PortalStatus(available: true, metered: false, connectivity: 4))])
        let again = calls(client.handle(.signal(Self.changed)))
        #expect(again.map(\.message.member) == ["GetStatus"])
        #expect(client.handle(.reply(token: again[0].token, .success(Self.status(available: true, metered: true, connectivity: 3)))) ==
            [.answer(PortalStatus(available: true, metered: true, connectivity: 3))])
    }

    @Test func onlyTheLatestReadCounts() throws {
        var client = PortalClient()
        let first = try #require(calls(client.handle(.ready)).last)
        let second = try #require(calls(client.handle(.signal(Self.changed))).first)
        #expect(client.handle(.reply(token: first.token, .success(Self.status(available: true, metered: false, connectivity: 4)))) == [])
        #expect(client.handle(.reply(token: second.token, .success(Self.status(available: true, metered: true, connectivity: 4)))) ==
            [.answer(PortalStatus(available: true, metered: true, connectivity: 4))])
    }

    @Test func anOlderPortalIsAskedPropertyByProperty() throws {
        var client = PortalClient()
        let status = try #require(calls(client.handle(.ready)).last)
        let separate = calls(client.handle(.reply(token: status.token, .failure(DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "")))))
        #expect(separate.map(\.message.member) == ["GetAvailable", "GetMetered", "GetConnectivity"])
        #expect(client.handle(.reply(token: separate[2].token, .success([.uint32(2)]))) == [])
        #expect(client.handle(.reply(token: separate[0].token, .success([.boolean(true)]))) == [])
        #expect(client.handle(.reply(token: separate[1].token, .success([.boolean(true)]))) ==
            [.answer(PortalStatus(available: true, metered: true, connectivity: 2))])
        // A change asks the three again.
        #expect(calls(client.handle(.signal(Self.changed))).map(\.message.member) == ["GetAvailable", "GetMetered", "GetConnectivity"])
    }

    @Test func noPortalOrAMalformedStatusAnswersNil() throws {
        var client = PortalClient()
        let status = try #require(calls(client.handle(.ready)).last)
        #expect(client.handle(.reply(token: status.token, .failure(DBusError(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "")))) == [.answer(nil)])
        var malformed = PortalClient()
        let call = try #require(calls(malformed.handle(.ready)).last)
        #expect(malformed.handle(.reply(token: call.token, .success([.string("full")]))) == [.answer(nil)])
        #expect(malformed.hasAnswered && malformed.status == nil)
    }

    @Test func aLateReplyFailsTheConnection() throws {
        var client = PortalClient()
        let status = try #require(calls(client.handle(.ready)).last)
        #expect(client.handle(.timedOut(token: status.token)) == [.failed("the portal did not answer in time")])
    }
}

/// D-Bus addresses as `DBUS_SYSTEM_BUS_ADDRESS` and `DBUS_SESSION_BUS_ADDRESS` give them.
@Suite struct DesktopBusAddressTests {
    @Test func unixPathsAndAbstractNamesInOrderOthersSkipped() {
        #expect(DBusAddress.endpoints(DBusAddress.defaultSystemBus) == [.path("/run/dbus/system_bus_socket")])
        #expect(DBusAddress.endpoints("unix:abstract=/tmp/dbus-XyZ,guid=0123abcd;unix:path=/run/user/0/bus") ==
            [.abstract("/tmp/dbus-XyZ"), .path("/run/user/0/bus")])
        #expect(DBusAddress.endpoints("tcp:host=localhost,port=1234;launchd:env=X;unix:path=/a%20b%2cc") == [.path("/a b,c")])
        // Listen-only or incomplete entries, malformed escapes, both keys at once: none.
        #expect(DBusAddress.endpoints("unix:tmpdir=/tmp;unix:path=;unix:path=/x%2;unix:path=/a,abstract=b;unix:runtime=yes;") == [])
        #expect(DBusAddress.endpoints("") == [])
    }
}
