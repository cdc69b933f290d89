import Testing
@testable import NetPathCore

/// NetworkManager's client protocol, driven with hand-built replies and signals as the
/// system bus and NetworkManager 1.42 send them.
@Suite struct NetworkManagerClientTests {
    typealias Action = DesktopBusAction<NetworkManagerState>
    static let nm = NetworkManagerClient.busName
    static let manager = NetworkManagerClient.managerPath
    static let eth0 = "/org/freedesktop/NetworkManager/Devices/2"
    static let lo = "/org/freedesktop/NetworkManager/Devices/1"

    /// The calls among `actions`, by token.
    func calls(_ actions: [Action]) -> [(message: DBusMessage, token: UInt64)] {
        actions.compactMap { if case .call(let message, let token) = $0 { (message, token) } else { nil } }
    }

    func answers(_ actions: [Action]) -> [NetworkManagerState?] {
        actions.compactMap { if case .answer(let state) = $0 { .some(state) } else { nil } }
    }

    static func variants(_ values: [String: DBusValue]) -> DBusValue {
        .dictionary(keySignature: "s", valueSignature: "v",
                    values.sorted { $0.key < $1.key }.map { DBusValue.Entry(.string($0.key), .variant($0.value)) })
    }

    static func managerProperties(devices: [String], connectivity: UInt32 = 4) -> [DBusValue] {
        [variants(["Devices": .array(elementSignature: "o", devices.map(DBusValue.objectPath)),
                   "Connectivity": .uint32(connectivity), "ConnectivityCheckEnabled": .boolean(true),
                   "ConnectivityCheckAvailable": .boolean(true), "State": .uint32(70), "Version": .string("1.42.4"),
                   "PrimaryConnection": .objectPath("/org/freedesktop/NetworkManager/ActiveConnection/2")])]
    }

    static func deviceProperties(_ name: String, metered: UInt32) -> [DBusValue] {
        [variants(["Interface": .string(name), "IpInterface": .string(name), "Metered": .uint32(metered),
                   "Ip4Connectivity": .uint32(4), "Ip6Connectivity": .uint32(1), "Mtu": .uint32(1500)])]
    }

    static func signal(from sender: String, path: String, interface: String, member: String, _ body: [DBusValue]) -> DBusMessage {
        DBusMessage(type: .signal, path: path, interface: interface, member: member, sender: sender, body: body)
    }

    static func propertiesChanged(from sender: String = ":1.2", path: String, interface: String, _ changed: [String: DBusValue]) -> DBusMessage {
        signal(from: sender, path: path, interface: DBusMessage.propertiesInterface, member: "PropertiesChanged",
               [.string(interface), variants(changed), .array(elementSignature: "s", [])])
    }

    static func ownerChanged(old: String, new: String) -> DBusMessage {
        signal(from: DBusMessage.busName, path: DBusMessage.busPath, interface: DBusMessage.busName, member: "NameOwnerChanged",
               [.string(nm), .string(old), .string(new)])
    }

    static let eth0State = NetworkManagerState.Device(interface: "eth0", ipInterface: "eth0", metered: 1, ip4Connectivity: 4, ip6Connectivity: 1)
    static let loState = NetworkManagerState.Device(interface: "lo", ipInterface: "lo", metered: 0, ip4Connectivity: 4, ip6Connectivity: 1)
    static let whole = NetworkManagerState(devices: [eth0: eth0State, lo: loState], connectivity: 4, checkEnabled: true,
                                           checkAvailable: true, primaryConnection: "/org/freedesktop/NetworkManager/ActiveConnection/2",
                                           state: 70)

    /// A client that has read NetworkManager (owner `:1.2`) with lo and eth0 (metered yes).
    func readClient() throws -> NetworkManagerClient {
        var client = NetworkManagerClient()
        let first = calls(client.handle(.ready))
        let owner = try #require(first.last)
        let getAll = try #require(calls(client.handle(.reply(token: owner.token, .success([.string(":1.2")])))).first)
        let devices = calls(client.handle(.reply(token: getAll.token, .success(Self.managerProperties(devices: [Self.lo, Self.eth0])))))
        try #require(devices.count == 2)
        for (message, token) in devices {
            let name = message.path == Self.eth0 ? "eth0" : "lo"
            _ = client.handle(.reply(token: token, .success(Self.deviceProperties(name, metered: name == "eth0" ? 1 : 0))))
        }
        try #require(client.state == Self.whole)
        return client
    }

    @Test func onReadyItSubscribesThenAsksWhoOwnsTheName() {
        var client = NetworkManagerClient()
        let made = calls(client.handle(.ready))
        #expect(made.map(\.message.member) == ["AddMatch", "AddMatch", "AddMatch", "AddMatch", "AddMatch", "GetNameOwner"])
        #expect(made.prefix(5).map { $0.message.body.first?.string ?? "" } == NetworkManagerClient.matchRules)
        #expect(NetworkManagerClient.matchRules[0] ==
            "type='signal',sender='org.freedesktop.NetworkManager',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'")
        #expect(NetworkManagerClient.matchRules[4] ==
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.freedesktop.NetworkManager'")
        #expect(made.last?.message == .getNameOwner(Self.nm))
        #expect(Set(made.map(\.token)).count == 6)
        #expect(!client.hasAnswered)
    }

    @Test func noOwnerAnswersNil() throws {
        var client = NetworkManagerClient()
        let owner = try #require(calls(client.handle(.ready)).last)
        let actions = client.handle(.reply(token: owner.token, .failure(DBusError(name: "org.freedesktop.DBus.Error.NameHasNoOwner", message: ""))))
        #expect(actions == [.answer(nil)])
        #expect(client.hasAnswered && client.state == nil)
    }

    @Test func theAnswerWaitsForTheManagerAndEveryDevice() throws {
        var client = NetworkManagerClient()
        let owner = try #require(calls(client.handle(.ready)).last)
        let getAll = calls(client.handle(.reply(token: owner.token, .success([.string(":1.2")]))))
        #expect(getAll.map(\.message) == [.getAllProperties(destination: Self.nm, path: Self.manager, interface: "org.freedesktop.NetworkManager")])
        let devices = calls(client.handle(.reply(token: getAll[0].token, .success(Self.managerProperties(devices: [Self.lo, Self.eth0])))))
        #expect(devices.map(\.message) == [Self.lo, Self.eth0].map {
            .getAllProperties(destination: Self.nm, path: $0, interface: "org.freedesktop.NetworkManager.Device")
        })
        #expect(!client.hasAnswered)
        // Changes to a device not yet answered are in its coming reply: skipped.
        #expect(client.handle(.signal(Self.propertiesChanged(path: Self.eth0, interface: NetworkManagerClient.deviceInterface, ["Metered": .uint32(2)]))) == [])
        #expect(client.handle(.reply(token: devices[1].token, .success(Self.deviceProperties("eth0", metered: 1)))) == [])
        let last = client.handle(.reply(token: devices[0].token, .success(Self.deviceProperties("lo", metered: 0))))
        #expect(last == [.answer(Self.whole)])
    }

    @Test func propertyChangesApplyAsTheyComeAndOnlyFromTheOwner() throws {
        var client = try readClient()
        let metered = Self.propertiesChanged(path: Self.eth0, interface: NetworkManagerClient.deviceInterface, ["Metered": .uint32(2)])
        var expected = Self.whole
        expected.devices[Self.eth0]?.metered = 2
        #expect(client.handle(.signal(metered)) == [.answer(expected)])
        // The same again changes nothing: no answer.
        #expect(client.handle(.signal(metered)) == [])
        // Another connection's signal is not NetworkManager's.
        var impostor = metered
        impostor.sender = ":1.9"
        impostor.body[1] = Self.variants(["Metered": .uint32(1)])
        #expect(client.handle(.signal(impostor)) == [])
        // The manager's own properties.
        expected.connectivity = 2
        #expect(client.handle(.signal(Self.propertiesChanged(path: Self.manager, interface: NetworkManagerClient.managerInterface,
                                                             ["Connectivity": .uint32(2), "Metered": .uint32(2)]))) == [.answer(expected)])
        // A device interface's change on the manager's path, or another interface's: ignored.
        #expect(client.handle(.signal(Self.propertiesChanged(path: Self.eth0, interface: "org.freedesktop.NetworkManager.Device.Wired",
                                                             ["Metered": .uint32(1)]))) == [])
    }

    @Test func anInvalidatedPropertyIsReadAgain() throws {
        var client = try readClient()
        var message = Self.propertiesChanged(path: Self.eth0, interface: NetworkManagerClient.deviceInterface, [:])
        message.body[2] = .array(elementSignature: "s", [.string("Metered")])
        #expect(calls(client.handle(.signal(message))).map(\.message) == [
            .getAllProperties(destination: Self.nm, path: Self.eth0, interface: NetworkManagerClient.deviceInterface),
        ])
    }

    @Test func devicesComeAndGo() throws {
        var client = try readClient()
        let wifi = "/org/freedesktop/NetworkManager/Devices/3"
        // Added: read before it counts; the answer stands until it has answered.
        let added = calls(client.handle(.signal(Self.signal(from: ":1.2", path: Self.manager, interface: NetworkManagerClient.managerInterface,
                                                            member: "DeviceAdded", [.objectPath(wifi)]))))
        #expect(added.map(\.message.path) == [wifi])
        // Its listing in `Devices` that follows asks nothing more.
        #expect(calls(client.handle(.signal(Self.propertiesChanged(path: Self.manager, interface: NetworkManagerClient.managerInterface,
                                                                   ["Devices": .array(elementSignature: "o", [.objectPath(Self.lo), .objectPath(Self.eth0), .objectPath(wifi)])])))).isEmpty)
        #expect(client.state == Self.whole)
        var expected = Self.whole
        expected.devices[wifi] = NetworkManagerState.Device(interface: "wlan0", ipInterface: "wlan0", metered: 3, ip4Connectivity: 4, ip6Connectivity: 1)
        #expect(client.handle(.reply(token: added[0].token, .success(Self.deviceProperties("wlan0", metered: 3)))) == [.answer(expected)])
        // Removed by the list: gone at once.
        let fewer = Self.propertiesChanged(path: Self.manager, interface: NetworkManagerClient.managerInterface,
                                           ["Devices": .array(elementSignature: "o", [.objectPath(Self.lo), .objectPath(wifi)])])
        expected.devices[Self.eth0] = nil
        #expect(client.handle(.signal(fewer)) == [.answer(expected)])
        // Removed by the signal.
        expected.devices[wifi] = nil
        #expect(client.handle(.signal(Self.signal(from: ":1.2", path: Self.manager, interface: NetworkManagerClient.managerInterface,
                                                  member: "DeviceRemoved", [.objectPath(wifi)]))) == [.answer(expected)])
    }

    @Test func aDeviceThatVanishesBeforeItsReplyIsDropped() throws {
        var client = NetworkManagerClient()
        let owner = try #require(calls(client.handle(.ready)).last)
        let getAll = calls(client.handle(.reply(token: owner.token, .success([.string(":1.2")]))))[0]
        let devices = calls(client.handle(.reply(token: getAll.token, .success(Self.managerProperties(devices: [Self.lo, Self.eth0])))))
        _ = client.handle(.reply(token: devices[0].token, .success(Self.deviceProperties("lo", metered: 0))))
        let actions = client.handle(.reply(token: devices[1].token, .failure(DBusError(name: "org.freedesktop.DBus.Error.UnknownObject", message: ""))))
        var expected = Self.whole
        expected.devices[Self.eth0] = nil
        #expect(actions == [.answer(expected)])
    }

    @Test func aRestartReadsEverythingAgainAndAStopAnswersNil() throws {
        var client = try readClient()
        #expect(client.handle(.signal(Self.ownerChanged(old: ":1.2", new: ""))) == [.answer(nil)])
        // The old owner's signals no longer count.
        #expect(client.handle(.signal(Self.propertiesChanged(path: Self.eth0, interface: NetworkManagerClient.deviceInterface, ["Metered": .uint32(2)]))) == [])
        let getAll = calls(client.handle(.signal(Self.ownerChanged(old: "", new: ":1.7"))))
        #expect(getAll.map(\.message.path) == [Self.manager])
        let devices = calls(client.handle(.reply(token: getAll[0].token, .success(Self.managerProperties(devices: [Self.eth0])))))
        #expect(client.state == nil)
        var expected = Self.whole
        expected.devices[Self.lo] = nil
        #expect(client.handle(.reply(token: devices[0].token, .success(Self.deviceProperties("eth0", metered: 1)))) == [.answer(expected)])
    }

    /// NetworkManager 1.42 owns its name before it exports the manager, as it starts.
    @Test func aManagerNotYetExportedIsReadWhenItAppears() throws {
        var client = NetworkManagerClient()
        let owner = try #require(calls(client.handle(.ready)).last)
        let getAll = try #require(calls(client.handle(.reply(token: owner.token, .success([.string(":1.20")])))).first)
        let noObject = DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "Object does not exist at path “/org/freedesktop/NetworkManager”")
        #expect(client.handle(.reply(token: getAll.token, .failure(noObject))) == [.answer(nil)])
        // Another object's appearance asks nothing.
        func added(_ path: String, _ interface: String) -> DBusMessage {
            Self.signal(from: ":1.20", path: "/org/freedesktop", interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded",
                        [.objectPath(path), .dictionary(keySignature: "s", valueSignature: "a{sv}", [.init(.string(interface), Self.variants([:]))])])
        }
        #expect(client.handle(.signal(added("/org/freedesktop/NetworkManager/Settings", "org.freedesktop.NetworkManager.Settings"))) == [])
        let again = calls(client.handle(.signal(added(Self.manager, NetworkManagerClient.managerInterface))))
        #expect(again.map(\.message) == [.getAllProperties(destination: Self.nm, path: Self.manager, interface: NetworkManagerClient.managerInterface)])
        let devices = calls(client.handle(.reply(token: again[0].token, .success(Self.managerProperties(devices: [Self.eth0])))))
        var expected = Self.whole
        expected.devices[Self.lo] = nil
        #expect(client.handle(.reply(token: devices[0].token, .success(Self.deviceProperties("eth0", metered: 1)))) == [.answer(expected)])
    }

    @Test func repliesForAnOwnerThatLeftAreIgnored() throws {
        var client = NetworkManagerClient()
        let owner = try #require(calls(client.handle(.ready)).last)
        let getAll = calls(client.handle(.reply(token: owner.token, .success([.string(":1.2")]))))[0]
        let restarted = calls(client.handle(.signal(Self.ownerChanged(old: ":1.2", new: ":1.3"))))[0]
        // The first owner's reply arrives late: not taken.
        #expect(calls(client.handle(.reply(token: getAll.token, .success(Self.managerProperties(devices: [Self.lo]))))).isEmpty)
        #expect(calls(client.handle(.reply(token: restarted.token, .success(Self.managerProperties(devices: [Self.eth0]))))).map(\.message.path) == [Self.eth0])
    }

    @Test func aLateReplyOrARefusedMatchRuleFailsTheConnection() throws {
        var client = NetworkManagerClient()
        let made = calls(client.handle(.ready))
        #expect(client.handle(.reply(token: made[0].token, .failure(DBusError(name: "org.freedesktop.DBus.Error.LimitsExceeded", message: "")))) ==
            [.failed("the bus refused a match rule: org.freedesktop.DBus.Error.LimitsExceeded")])
        var late = NetworkManagerClient()
        let owner = try #require(calls(late.handle(.ready)).last)
        let getAll = calls(late.handle(.reply(token: owner.token, .success([.string(":1.2")]))))[0]
        #expect(late.handle(.timedOut(token: getAll.token)) == [.failed("NetworkManager did not answer in time")])
        // A time-out of a call already forgotten says nothing.
        #expect(late.handle(.timedOut(token: 999)) == [])
    }
}

/// The active connection of each device (issue 38: the network's identity as NetworkManager
/// knows it): read after the device names it, part of the whole answer, followed.
@Suite struct NetworkManagerActiveConnectionTests {
    typealias Base = NetworkManagerClientTests
    static let active = "/org/freedesktop/NetworkManager/ActiveConnection/7"

    static func deviceProperties(_ name: String, connection: String) -> [DBusValue] {
        [Base.variants(["Interface": .string(name), "IpInterface": .string(name), "Metered": .uint32(2),
                        "Ip4Connectivity": .uint32(4), "Ip6Connectivity": .uint32(1), "ActiveConnection": .objectPath(connection)])]
    }

    static func connectionProperties(uuid: String, id: String) -> [DBusValue] {
        [Base.variants(["Uuid": .string(uuid), "Id": .string(id), "Type": .string("802-11-wireless"), "State": .uint32(2)])]
    }

    @Test func theAnswerWaitsForTheDevicesActiveConnectionAndFollowsIt() throws {
        var client = NetworkManagerClient()
        let base = Base()
        let ready = base.calls(client.handle(.ready))
        let owner = try #require(ready.last)
        let manager = try #require(base.calls(client.handle(.reply(token: owner.token, .success([.string(":1.2")])))).first)
        let listed = client.handle(.reply(token: manager.token, .success(Base.managerProperties(devices: [Base.eth0]))))
        let device = try #require(base.calls(listed).first)
        let afterDevice = client.handle(.reply(token: device.token, .success(Self.deviceProperties("wlan0", connection: Self.active))))
        #expect(base.answers(afterDevice).isEmpty)
        let read = try #require(base.calls(afterDevice).first)
        #expect(read.message.path == Self.active && read.message.body.first?.string == NetworkManagerClient.activeConnectionInterface)
        let answered = base.answers(client.handle(.reply(token: read.token, .success(Self.connectionProperties(uuid: "u-1", id: "Cafe")))))
        let state = try #require(answered.first ?? nil)
        #expect(state.connection(onInterface: "wlan0") == .init(uuid: "u-1", id: "Cafe", type: "802-11-wireless"))
        // Another network: the device names another active connection, which is read.
        let moved = client.handle(.signal(Base.propertiesChanged(path: Base.eth0, interface: NetworkManagerClient.deviceInterface,
                                                                   ["ActiveConnection": .objectPath("/org/freedesktop/NetworkManager/ActiveConnection/8")])))
        let second = try #require(base.calls(moved).first)
        let after = base.answers(client.handle(.reply(token: second.token, .success(Self.connectionProperties(uuid: "u-2", id: "Home")))))
        let last = try #require(after.first ?? nil)
        #expect(last.connection(onInterface: "wlan0")?.uuid == "u-2" && last.connections.count == 1)
        // Disconnected: no connection, nothing to read.
        let off = base.answers(client.handle(.signal(Base.propertiesChanged(path: Base.eth0, interface: NetworkManagerClient.deviceInterface,
                                                                              ["ActiveConnection": .objectPath("/")]))))
        #expect((off.first ?? nil)?.connection(onInterface: "wlan0") == nil && (off.first ?? nil)?.connections.isEmpty == true)
    }

    @Test func aConnectionGoneBeforeItsReplyStillMakesTheAnswerWhole() throws {
        var client = NetworkManagerClient()
        let base = Base()
        let owner = try #require(base.calls(client.handle(.ready)).last)
        let manager = try #require(base.calls(client.handle(.reply(token: owner.token, .success([.string(":1.2")])))).first)
        let listed = client.handle(.reply(token: manager.token, .success(Base.managerProperties(devices: [Base.eth0]))))
        let device = try #require(base.calls(listed).first)
        let named = client.handle(.reply(token: device.token, .success(Self.deviceProperties("eth0", connection: Self.active))))
        let read = try #require(base.calls(named).first)
        let answered = base.answers(client.handle(.reply(token: read.token,
                                                         .failure(DBusError(name: "org.freedesktop.DBus.Error.UnknownObject", message: "gone")))))
        #expect((answered.first ?? nil)?.connection(onInterface: "eth0") == .init())
    }
}
