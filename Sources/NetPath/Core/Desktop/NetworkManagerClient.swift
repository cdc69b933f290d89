/// NetworkManager's state as its D-Bus API tells it, kept up to date: the protocol of a
/// client on the system bus, apart from the connection and its I/O. Pure.
///
/// On ``DesktopBusEvent/ready`` it asks the bus for NetworkManager's property changes, for
/// its devices coming and going and for its name changing owner, then who owns the name
/// (the bus answers in order, so nothing falls between the two). While NetworkManager owns
/// it: every property of the manager (`GetAll`), then of each device it lists. Later
/// `PropertiesChanged` signals are applied as they come; a changed device list reads the
/// new devices; a new owner (NetworkManager restarted) reads everything again; no owner
/// makes the answer `nil`. A manager not exported yet (NetworkManager owns its name before
/// it exports its objects) is read when its `InterfacesAdded` comes.
///
/// The answer is given only whole: once the manager and every device it lists have
/// answered. Until then the last whole answer stands (none at first).
package struct NetworkManagerClient: DesktopBusClient {
    package typealias Answer = NetworkManagerState

    package static let busName = "org.freedesktop.NetworkManager"
    package static let managerPath = "/org/freedesktop/NetworkManager"
    package static let managerInterface = "org.freedesktop.NetworkManager"
    package static let deviceInterface = "org.freedesktop.NetworkManager.Device"
    package static let activeConnectionInterface = "org.freedesktop.NetworkManager.Connection.Active"

    /// The signals the client asks the bus for.
    package static let matchRules = [
        "type='signal',sender='\(busName)',interface='\(DBusMessage.propertiesInterface)',member='PropertiesChanged'",
        "type='signal',sender='\(busName)',interface='\(managerInterface)',member='DeviceAdded'",
        "type='signal',sender='\(busName)',interface='\(managerInterface)',member='DeviceRemoved'",
        "type='signal',sender='\(busName)',path='/org/freedesktop',interface='\(objectManagerInterface)',member='InterfacesAdded',arg0path='\(managerPath)'",
        DBusMessage.nameOwnerChangedRule(for: busName),
    ]
    static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"

    /// What a call in flight was for.
    private enum Purpose: Equatable, Sendable {
        case addMatch, nameOwner, manager, device(String), connection(String)
    }

    private var calls: [UInt64: Purpose] = [:]
    private var lastToken: UInt64 = 0
    /// NetworkManager's unique name while it owns its well-known one; its signals come from it.
    private var owner: String?
    /// The state being read or kept: the manager's properties and the devices answered so far.
    private var current = NetworkManagerState()
    private var managerAnswered = false
    /// The device paths the manager lists (`Devices`, `DeviceAdded`, `DeviceRemoved`).
    private var listed: Set<String> = []
    /// The last answer given, and whether one was.
    package private(set) var state: NetworkManagerState?
    package private(set) var hasAnswered = false

    package init() {}

    package mutating func handle(_ event: DesktopBusEvent) -> [DesktopBusAction<NetworkManagerState>] {
        switch event {
        case .ready:
            return NetworkManagerClient.matchRules.map { call(.addMatch($0), for: .addMatch) }
                + [call(.getNameOwner(NetworkManagerClient.busName), for: .nameOwner)]
        case .reply(let token, let result):
            guard let purpose = calls.removeValue(forKey: token) else { return [] }
            return reply(result, for: purpose)
        case .timedOut(let token):
            guard let purpose = calls.removeValue(forKey: token) else { return [] }
            return [.failed(purpose == .addMatch || purpose == .nameOwner
                ? "the bus did not answer in time" : "NetworkManager did not answer in time")]
        case .signal(let message):
            return signal(message)
        }
    }

    // MARK: Replies

    private mutating func reply(_ result: Result<[DBusValue], DBusError>, for purpose: Purpose) -> [DesktopBusAction<NetworkManagerState>] {
        switch (purpose, result) {
        case (.addMatch, .success):
            return []
        case (.addMatch, .failure(let error)):
            return [.failed("the bus refused a match rule: \(error)")]
        case (.nameOwner, .success(let body)):
            guard let name = body.first?.string, !name.isEmpty else { return gone() }
            return name == owner ? [] : start(owner: name)
        case (.nameOwner, .failure):
            // `NameHasNoOwner`: NetworkManager is not running.
            return gone()
        case (.manager, .success(let body)):
            guard let properties = body.first?.dictionary else { return gone() }
            managerAnswered = true
            return applyManager(properties) + publishIfWhole()
        case (.manager, .failure):
            // Starting: NetworkManager 1.42 owns its name before it exports the manager
            // (`UnknownMethod`: no such object), whose `InterfacesAdded` then reads it. Or
            // quitting (its `NameOwnerChanged` follows), or refusing: nothing to say.
            return gone(keepingOwner: true)
        case (.device(let path), .success(let body)):
            guard listed.contains(path) else { return [] }
            if let properties = body.first?.dictionary {
                var device = current.devices[path] ?? NetworkManagerState.Device(interface: "")
                device.apply(properties)
                current.devices[path] = device
            } else {
                listed.remove(path)
            }
            return publishIfWhole()
        case (.device(let path), .failure):
            // The device went away between the list and the call.
            listed.remove(path)
            current.devices[path] = nil
            return publishIfWhole()
        case (.connection(let path), _):
            // Gone between the device's answer and the call (the device's change follows):
            // known as nothing, so the answer is whole.
            var connection = NetworkManagerState.ActiveConnection()
            if case .success(let body) = result, let properties = body.first?.dictionary { connection.apply(properties) }
            current.connections[path] = connection
            return publishIfWhole()
        }
    }

    // MARK: Signals

    private mutating func signal(_ message: DBusMessage) -> [DesktopBusAction<NetworkManagerState>] {
        if let change = message.nameOwnerChange {
            guard change.name == NetworkManagerClient.busName else { return [] }
            if change.newOwner.isEmpty { return gone() }
            return change.newOwner == owner ? [] : start(owner: change.newOwner)
        }
        guard let owner, message.sender == owner, message.type == .signal else { return [] }
        switch (message.interface, message.member) {
        case (DBusMessage.propertiesInterface, "PropertiesChanged"):
            return propertiesChanged(message)
        case (NetworkManagerClient.objectManagerInterface, "InterfacesAdded"):
            // `InterfacesAdded(o path, a{sa{sv}} interfaces)`: the manager is exported.
            guard !managerAnswered, message.body.first?.string == NetworkManagerClient.managerPath,
                  message.body.count > 1, message.body[1].dictionary?[NetworkManagerClient.managerInterface] != nil else { return [] }
            return [readManager()]
        case (NetworkManagerClient.managerInterface, "DeviceAdded") where message.path == NetworkManagerClient.managerPath:
            guard managerAnswered, let path = message.body.first?.string, !listed.contains(path) else { return [] }
            listed.insert(path)
            return [readDevice(path)]
        case (NetworkManagerClient.managerInterface, "DeviceRemoved") where message.path == NetworkManagerClient.managerPath:
            guard let path = message.body.first?.string, listed.remove(path) != nil else { return [] }
            current.devices[path] = nil
            return publishIfWhole()
        default:
            return []
        }
    }

    /// `PropertiesChanged(s interface, a{sv} changed, as invalidated)` of the manager or a
    /// device. Before an object's `GetAll` has answered, its changes are skipped: the reply,
    /// sent after the signal, already holds them.
    private mutating func propertiesChanged(_ message: DBusMessage) -> [DesktopBusAction<NetworkManagerState>] {
        guard message.body.count >= 2, let interface = message.body[0].string,
              let changed = message.body[1].dictionary, let path = message.path else { return [] }
        let invalidated = Set((message.body.count > 2 ? message.body[2].array : nil)?.compactMap(\.string) ?? [])
        if path == NetworkManagerClient.managerPath && interface == NetworkManagerClient.managerInterface {
            guard managerAnswered else { return [] }
            if !invalidated.isDisjoint(with: NetworkManagerState.managerProperties) { return [readManager()] }
            return applyManager(changed) + publishIfWhole()
        }
        if interface == NetworkManagerClient.activeConnectionInterface, var connection = current.connections[path] {
            connection.apply(changed)
            current.connections[path] = connection
            return publishIfWhole()
        }
        guard interface == NetworkManagerClient.deviceInterface, var device = current.devices[path] else { return [] }
        if !invalidated.isDisjoint(with: NetworkManagerState.Device.properties) { return [readDevice(path)] }
        device.apply(changed)
        current.devices[path] = device
        return publishIfWhole()
    }

    // MARK: State

    /// NetworkManager (re)appeared as `name`: forget what the old owner said and read it all.
    private mutating func start(owner name: String) -> [DesktopBusAction<NetworkManagerState>] {
        owner = name
        forgetReads()
        return [readManager()]
    }

    /// NetworkManager is not there (or says nothing): the answer is `nil`.
    private mutating func gone(keepingOwner: Bool = false) -> [DesktopBusAction<NetworkManagerState>] {
        if !keepingOwner { owner = nil }
        forgetReads()
        return publish(nil)
    }

    /// Drops the state read so far; replies to calls made for it will be ignored.
    private mutating func forgetReads() {
        calls = calls.filter { $0.value == .addMatch || $0.value == .nameOwner }
        current = NetworkManagerState()
        managerAnswered = false
        listed = []
    }

    /// Applies the manager's properties; a new device list drops the devices no longer in
    /// it and reads the new ones.
    private mutating func applyManager(_ properties: [String: DBusValue]) -> [DesktopBusAction<NetworkManagerState>] {
        current.apply(properties)
        guard let paths = properties["Devices"]?.array?.compactMap(\.string) else { return [] }
        let new = Set(paths)
        for path in listed.subtracting(new) { current.devices[path] = nil }
        let added = new.subtracting(listed)
        listed = new
        return added.sorted().map { readDevice($0) }
    }

    private mutating func readManager() -> DesktopBusAction<NetworkManagerState> {
        call(.getAllProperties(destination: NetworkManagerClient.busName, path: NetworkManagerClient.managerPath,
                               interface: NetworkManagerClient.managerInterface), for: .manager)
    }

    private mutating func readDevice(_ path: String) -> DesktopBusAction<NetworkManagerState> {
        call(.getAllProperties(destination: NetworkManagerClient.busName, path: path, interface: NetworkManagerClient.deviceInterface),
             for: .device(path))
    }

    /// The answer, once the manager, every listed device and every device's active
    /// connection have answered (the connections no device names any more are dropped; the
    /// ones not read yet are asked for).
    private mutating func publishIfWhole() -> [DesktopBusAction<NetworkManagerState>] {
        guard owner != nil, managerAnswered, listed.allSatisfy({ current.devices[$0] != nil }) else { return [] }
        let named = Set(current.devices.values.map(\.activeConnection).filter { $0 != "/" && !$0.isEmpty })
        current.connections = current.connections.filter { named.contains($0.key) }
        let asked = Set(calls.values.compactMap { if case .connection(let path) = $0 { path } else { nil } })
        let missing = named.filter { current.connections[$0] == nil }
        guard missing.isEmpty else {
            return missing.subtracting(asked).sorted().map { path in
                call(.getAllProperties(destination: NetworkManagerClient.busName, path: path,
                                       interface: NetworkManagerClient.activeConnectionInterface), for: .connection(path))
            }
        }
        return publish(current)
    }

    private mutating func publish(_ answer: NetworkManagerState?) -> [DesktopBusAction<NetworkManagerState>] {
        guard !hasAnswered || answer != state else { return [] }
        hasAnswered = true
        state = answer
        return [.answer(answer)]
    }

    private mutating func call(_ message: DBusMessage, for purpose: Purpose) -> DesktopBusAction<NetworkManagerState> {
        lastToken += 1
        calls[lastToken] = purpose
        return .call(message, token: lastToken)
    }
}

extension NetworkManagerState {
    /// The manager's properties the client reads.
    static let managerProperties: Set<String> = [
        "Devices", "Connectivity", "ConnectivityCheckEnabled", "ConnectivityCheckAvailable", "PrimaryConnection", "State",
    ]

    /// Takes the manager's properties that are present and of the right type (the device
    /// list is the client's to apply).
    mutating func apply(_ properties: [String: DBusValue]) {
        if let value = properties["Connectivity"]?.uint32 { connectivity = value }
        if let value = properties["ConnectivityCheckEnabled"]?.bool { checkEnabled = value }
        if let value = properties["ConnectivityCheckAvailable"]?.bool { checkAvailable = value }
        if let value = properties["PrimaryConnection"]?.string { primaryConnection = value }
        if let value = properties["State"]?.uint32 { state = value }
    }
}

extension NetworkManagerState.ActiveConnection {
    /// Takes the active connection's properties that are present and of the right type.
    mutating func apply(_ properties: [String: DBusValue]) {
        if let value = properties["Uuid"]?.string { uuid = value }
        if let value = properties["Id"]?.string { id = value }
        if let value = properties["Type"]?.string { type = value }
    }
}

extension NetworkManagerState.Device {
    /// The device properties the client reads.
    static let properties: Set<String> = ["Interface", "IpInterface", "Metered", "Ip4Connectivity", "Ip6Connectivity",
                                          "ActiveConnection"]

    /// Takes the device's properties that are present and of the right type.
    mutating func apply(_ properties: [String: DBusValue]) {
        if let value = properties["Interface"]?.string { interface = value }
        if let value = properties["IpInterface"]?.string { ipInterface = value }
        if let value = properties["Metered"]?.uint32 { metered = value }
        if let value = properties["Ip4Connectivity"]?.uint32 { ip4Connectivity = value }
        if let value = properties["Ip6Connectivity"]?.uint32 { ip6Connectivity = value }
        if let value = properties["ActiveConnection"]?.string { activeConnection = value }
    }
}
