import Testing
@testable import NetPathCore
@testable import NetPath
import NetPathTestKit

/// What the desktop knows, applied to the kernel's path (SPEC §1, §3): pure.
@Suite struct DesktopKnowledgeTests {
    let wlan = NetworkInterface(name: "wlan0", index: 3, type: .wifi)
    let tun = NetworkInterface(name: "tun0", index: 9, type: .other)

    func online(_ interfaces: [NetworkInterface], tunnel: Bool = false) -> NetworkPath {
        NetworkPath(status: .satisfied, availableInterfaces: interfaces, tunnelInterface: tunnel ? interfaces.first : nil,
                    underlyingInterface: tunnel ? interfaces.last : nil, supportsIPv4: true)
    }

    func manager(metered: UInt32, connectivity: UInt32 = 4, enabled: Bool = true, available: Bool = true) -> NetworkManagerState {
        NetworkManagerState(devices: ["/org/freedesktop/NetworkManager/Devices/3":
                                        .init(interface: "wlan0", ipInterface: "wlan0", metered: metered, ip4Connectivity: connectivity)],
                            connectivity: connectivity, checkEnabled: enabled, checkAvailable: available, state: 70)
    }

    @Test(arguments: [(UInt32(1), true), (3, true), (2, false), (4, false), (0, false)])
    func meteredYesAndGuessYesAreExpensive(metered: UInt32, expensive: Bool) {
        let path = DesktopKnowledge(networkManager: manager(metered: metered)).apply(to: online([wlan]), connectivity: false)
        #expect(path.isExpensive == expensive && path.expensiveSource == (expensive ? .networkManager : nil))
        #expect(path.connectivity == .unknown && path.connectivitySource == nil)  // not asked for
    }

    /// NetworkManager's profile on the physical interface is mixed into the network's
    /// identity, once the kernel's is known: another profile, another network.
    @Test func theActiveProfileNamesTheNetworkToo() {
        var state = manager(metered: 2)
        state.devices["/org/freedesktop/NetworkManager/Devices/3"]?.activeConnection = "/org/freedesktop/NetworkManager/ActiveConnection/1"
        state.connections["/org/freedesktop/NetworkManager/ActiveConnection/1"] = .init(uuid: "u-cafe", id: "Cafe", type: "802-11-wireless")
        var path = online([wlan])
        #expect(DesktopKnowledge(networkManager: state).apply(to: path, connectivity: false).network == nil)
        path.network = "0123456789abcdef"
        let cafe = DesktopKnowledge(networkManager: state).apply(to: path, connectivity: false).network
        #expect(cafe == NetworkIdentity.combining("0123456789abcdef", with: "u-cafe", key: NetworkIdentity.fixedKey))
        state.connections["/org/freedesktop/NetworkManager/ActiveConnection/1"]?.uuid = "u-home"
        let home = DesktopKnowledge(networkManager: state).apply(to: path, connectivity: false).network
        #expect(home != cafe && home != "0123456789abcdef" && home?.count == 16)
        #expect(DesktopKnowledge().apply(to: path, connectivity: false).network == "0123456789abcdef")
    }

    @Test func underATunnelThePhysicalDeviceCounts() {
        let knowledge = DesktopKnowledge(networkManager: manager(metered: 1))
        let path = knowledge.apply(to: online([tun, wlan], tunnel: true), connectivity: false)
        #expect(path.isExpensive && path.expensiveSource == .networkManager)
        // A device NM does not know (the tunnel alone): nothing.
        #expect(!knowledge.apply(to: online([tun]), connectivity: false).isExpensive)
    }

    @Test func theKernelsAndTheConfigurationsAnswersAreKept() {
        var cellular = online([NetworkInterface(name: "wwan0", index: 5, type: .cellular)])
        cellular.isExpensive = true
        cellular.expensiveSource = .interfaceType
        let path = DesktopKnowledge(networkManager: manager(metered: 2)).apply(to: cellular, connectivity: true)
        #expect(path.isExpensive && path.expensiveSource == .interfaceType)
    }

    @Test(arguments: [(UInt32(4), Connectivity.full), (2, .portal), (3, .limited), (1, .offline), (0, .unknown)])
    func networkManagersVerdict(state: UInt32, connectivity: Connectivity) {
        let path = DesktopKnowledge(networkManager: manager(metered: 0, connectivity: state)).apply(to: online([wlan]), connectivity: true)
        #expect(path.connectivity == connectivity && path.connectivitySource == .networkManager)
    }

    @Test func theUsersSwitchOffMeansNoVerdictAndNoOwnCheckWithoutAvailableURI() {
        let off = DesktopKnowledge(networkManager: manager(metered: 0, enabled: false)).apply(to: online([wlan]), connectivity: true)
        #expect(off.connectivity == .unknown && off.connectivitySource == .networkManager)
        // Enabled but no URI configured: NM does not check; NetPath's own check may.
        let unavailable = DesktopKnowledge(networkManager: manager(metered: 0, available: false)).apply(to: online([wlan]), connectivity: true)
        #expect(unavailable.connectivitySource == nil)
    }

    @Test func thePortalsStatus() {
        let knowledge = DesktopKnowledge(portal: PortalStatus(available: true, metered: true, connectivity: 3))
        let path = knowledge.apply(to: online([wlan]), connectivity: true)
        #expect(path.isExpensive && path.expensiveSource == .flatpakPortal)
        #expect(path.connectivity == .portal && path.connectivitySource == .flatpakPortal)
    }

    @Test func aCaptivePortalTheNetworkAnnounced() {
        let knowledge = DesktopKnowledge(captivePortals: [3: "http://10.202.0.1/portal"])
        let path = knowledge.apply(to: online([wlan]), connectivity: true)
        #expect(path.connectivity == .portal && path.portalURL == "http://10.202.0.1/portal" && path.connectivitySource == .systemdNetworkd)
        // Another interface's announcement is not this path's.
        #expect(DesktopKnowledge(captivePortals: [7: "http://x/"]).apply(to: online([wlan]), connectivity: true).connectivitySource == nil)
    }

    @Test func anUnsatisfiedPathIsLeftAlone() {
        let offline = NetworkPath.offline(.noCarrier)
        #expect(DesktopKnowledge(networkManager: manager(metered: 1)).apply(to: offline, connectivity: true) == offline)
    }

    @Test func networkdsLinkFile() {
        let file = Array("ADMIN_STATE=configured\nOPER_STATE=routable\nCAPTIVE_PORTAL=http://10.202.0.1/portal\nDNS=10.202.0.1\n".utf8)
        #expect(NetworkdLinkFile.captivePortal(in: file) == "http://10.202.0.1/portal")
        #expect(NetworkdLinkFile.captivePortal(in: Array("OPER_STATE=routable\n".utf8)) == nil)
        #expect(NetworkdLinkFile.captivePortal(in: Array("CAPTIVE_PORTAL=javascript:x\n".utf8)) == nil)
        #expect(NetworkdLinkFile.captivePortal(in: Array("CAPTIVE_PORTAL=http://a b\n".utf8)) == nil)
        #expect(NetworkdLinkFile.captivePortal(in: [0xFF, 0x0A, 0x00]) == nil)
    }
}
