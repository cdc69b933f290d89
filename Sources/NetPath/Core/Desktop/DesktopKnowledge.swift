/// What the desktop already knows about the network (SPEC §1, §3): NetworkManager's
/// per-device metered value and connectivity verdict, the Flatpak portal's status, and the
/// captive-portal URLs systemd-networkd recorded. Read over D-Bus and from networkd's state
/// files by the Linux backend; applied to the kernel's path by ``apply(to:)``. Pure.
package struct DesktopKnowledge: Equatable, Sendable {
    /// NetworkManager's view, `nil` when it is not on the bus (or there is no bus).
    package var networkManager: NetworkManagerState?
    /// The Flatpak portal's `GetStatus`, `nil` outside a sandbox or without an answer.
    package var portal: PortalStatus?
    /// Captive-portal URLs the network announced (DHCP option 114, RFC 8910), by interface
    /// index, as systemd-networkd records them (`CAPTIVE_PORTAL=`).
    package var captivePortals: [Int32: String] = [:]
    /// What logind said about sleep (``LogindClient``), `nil` when it is not watched.
    package var logind: LogindState?

    package init(networkManager: NetworkManagerState? = nil, portal: PortalStatus? = nil,
                 captivePortals: [Int32: String] = [:], logind: LogindState? = nil) {
        self.networkManager = networkManager
        self.portal = portal
        self.captivePortals = captivePortals
        self.logind = logind
    }
}

/// NetworkManager's properties that NetPath reads (`org.freedesktop.NetworkManager` and its
/// devices), as NM reports them.
package struct NetworkManagerState: Equatable, Sendable {
    /// One device (`org.freedesktop.NetworkManager.Device`).
    package struct Device: Equatable, Sendable {
        /// `Interface`: the device's name (for a modem, its control port).
        package var interface: String
        /// `IpInterface`: the interface its IP traffic uses, when it has one.
        package var ipInterface: String
        /// `Metered` (`NMMetered`): 0 unknown, 1 yes, 2 no, 3 guess-yes, 4 guess-no.
        package var metered: UInt32
        /// `Ip4Connectivity` / `Ip6Connectivity` (`NMConnectivityState`).
        package var ip4Connectivity: UInt32
        package var ip6Connectivity: UInt32
        /// `ActiveConnection`: the object path of the device's active connection, `/` when none.
        package var activeConnection = "/"

        package init(interface: String, ipInterface: String = "", metered: UInt32 = 0,
                     ip4Connectivity: UInt32 = 0, ip6Connectivity: UInt32 = 0) {
            self.interface = interface
            self.ipInterface = ipInterface
            self.metered = metered
            self.ip4Connectivity = ip4Connectivity
            self.ip6Connectivity = ip6Connectivity
        }
    }

    /// An active connection (`org.freedesktop.NetworkManager.Connection.Active`): which of
    /// the user's profiles a device is on. A profile is made per network (a Wi-Fi's SSID, a
    /// wired network's settings), so its UUID names the network as NetworkManager knows it.
    package struct ActiveConnection: Equatable, Sendable {
        /// `Uuid`: the profile's UUID.
        package var uuid = ""
        /// `Id`: the profile's name (for Wi-Fi, by default the SSID).
        package var id = ""
        /// `Type`: `802-11-wireless`, `802-3-ethernet`, `gsm`, `vpn`…
        package var type = ""

        package init(uuid: String = "", id: String = "", type: String = "") {
            self.uuid = uuid
            self.id = id
            self.type = type
        }
    }

    /// The devices, by object path.
    package var devices: [String: Device] = [:]
    /// The devices' active connections, by object path.
    package var connections: [String: ActiveConnection] = [:]
    /// `Connectivity` (`NMConnectivityState`): 0 unknown, 1 none, 2 portal, 3 limited, 4 full.
    package var connectivity: UInt32 = 0
    /// `ConnectivityCheckEnabled`: the user's switch (a privacy setting).
    package var checkEnabled = false
    /// `ConnectivityCheckAvailable`: a check URI is configured.
    package var checkAvailable = false
    /// `PrimaryConnection`: the object path of the primary active connection, `/` when none.
    package var primaryConnection = "/"
    /// `State` (`NMState`): 70 connected-global, 60 site, 50 local, 20 disconnected, …
    package var state: UInt32 = 0

    package init(devices: [String: Device] = [:], connectivity: UInt32 = 0, checkEnabled: Bool = false,
                 checkAvailable: Bool = false, primaryConnection: String = "/", state: UInt32 = 0) {
        self.devices = devices
        self.connectivity = connectivity
        self.checkEnabled = checkEnabled
        self.checkAvailable = checkAvailable
        self.primaryConnection = primaryConnection
        self.state = state
    }
}

/// The Flatpak portal's `org.freedesktop.portal.NetworkMonitor.GetStatus`.
package struct PortalStatus: Equatable, Sendable {
    package var available: Bool
    package var metered: Bool
    /// GLib's `GNetworkConnectivity` numbering (not NetworkManager's): 1 local, 2 limited,
    /// 3 portal, 4 full.
    package var connectivity: UInt32

    package init(available: Bool, metered: Bool, connectivity: UInt32) {
        self.available = available
        self.metered = metered
        self.connectivity = connectivity
    }
}
