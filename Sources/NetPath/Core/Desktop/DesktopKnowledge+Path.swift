extension DesktopKnowledge {
    /// The path with what the desktop knows (SPEC §1, §3):
    ///
    /// - `isExpensive` when NetworkManager's device for the physical interface (the primary
    ///   one, or the one beneath a tunnel) is metered — `Metered` yes (1) or guess-yes (3),
    ///   not NM's global value — or the Flatpak portal says metered; the kernel's own answer
    ///   (cellular) and the configuration's are kept.
    /// - With `connectivity` (the monitor checks), the desktop's verdict: NetworkManager's,
    ///   when its check is available (a URI is configured) — per device when NM knows the
    ///   device's, else its global one — or, with the user's check switched off, `unknown`
    ///   from NM (the default endpoints must not be contacted); else the portal's; else a
    ///   captive-portal URL the network announced to networkd, as `portal`. ``NetworkPath/connectivitySource``
    ///   says which; the connectivity check decides from it whether to send anything.
    /// - ``NetworkPath/network`` with NetworkManager's active connection on the physical
    ///   interface mixed in (its profile's UUID, under `identityKey`): two networks whose
    ///   routers NM tells apart by profile differ even where their gateways look alike. Only
    ///   once the kernel's identity is known, so it changes once, not through a UUID alone.
    ///
    /// A path that is not satisfied is returned unchanged.
    package func apply(to path: NetworkPath, connectivity: Bool, identityKey: [UInt8] = NetworkIdentity.fixedKey) -> NetworkPath {
        var path = path
        path.wakeCount = logind?.resumes ?? 0
        guard path.status == .satisfied, let physical = path.physicalInterface else { return path }
        let device = networkManager?.device(named: physical.name)
        if let network = path.network, let profile = networkManager?.connection(onInterface: physical.name), !profile.uuid.isEmpty {
            path.network = NetworkIdentity.combining(network, with: profile.uuid, key: identityKey)
        }
        if !path.isExpensive {
            if let device, device.metered == 1 || device.metered == 3 {
                path.isExpensive = true
                path.expensiveSource = .networkManager
            } else if portal?.metered == true {
                path.isExpensive = true
                path.expensiveSource = .flatpakPortal
            }
        }
        guard connectivity else { return path }
        let announced = captivePortals[Int32(truncatingIfNeeded: physical.index)]
        if let manager = networkManager, manager.checkAvailable || !manager.checkEnabled {
            let verdict = manager.checkEnabled ? manager.verdict(for: device) : .unknown
            path.connectivity = verdict
            path.portalURL = verdict == .portal ? announced : nil
            path.connectivitySource = .networkManager
            path.familyConnectivity = manager.checkEnabled ? manager.familyVerdicts(for: device, path: path) : [:]
        } else if let portal, portal.available {
            path.connectivity = portal.verdict
            path.portalURL = portal.verdict == .portal ? announced : nil
            path.connectivitySource = .flatpakPortal
        } else if let announced {
            path.connectivity = .portal
            path.portalURL = announced
            path.connectivitySource = .systemdNetworkd
        }
        return path
    }
}

extension NetworkManagerState {
    /// The device whose IP interface (or, without one, whose interface) is `name`.
    package func device(named name: String) -> Device? {
        devices.values.first { $0.ipInterface == name } ?? devices.values.first { $0.ipInterface.isEmpty && $0.interface == name }
    }

    /// The active connection of the device carrying interface `name`, if NetworkManager has one.
    package func connection(onInterface name: String) -> ActiveConnection? {
        guard let path = device(named: name)?.activeConnection, path != "/" else { return nil }
        return connections[path]
    }

    /// NetworkManager's per-family verdicts for `device` (its `Ip4Connectivity` and
    /// `Ip6Connectivity`), for the families the path routes and NM has checked.
    package func familyVerdicts(for device: Device?, path: NetworkPath) -> [IPFamily: FamilyConnectivity] {
        guard let device else { return [:] }
        var verdicts: [IPFamily: FamilyConnectivity] = [:]
        for (family, state, routed) in [(IPFamily.ipv4, device.ip4Connectivity, path.supportsIPv4), (.ipv6, device.ip6Connectivity, path.supportsIPv6)] {
            let verdict = Self.connectivity(state)
            if routed && verdict != .unknown { verdicts[family] = FamilyConnectivity(connectivity: verdict) }
        }
        return verdicts
    }

    /// NetworkManager's verdict for `device`: the better of its IPv4 and IPv6 connectivity
    /// when NM has checked it, else the manager's. `NMConnectivityState`: 4 full, 2 portal,
    /// 3 limited, 1 none (offline), 0 unknown.
    package func verdict(for device: Device?) -> Connectivity {
        let own = device.map { max($0.ip4Connectivity, $0.ip6Connectivity) } ?? 0
        return Self.connectivity(own != 0 ? own : connectivity)
    }

    /// An `NMConnectivityState` as a verdict.
    static func connectivity(_ state: UInt32) -> Connectivity {
        switch state {
        case 4: .full
        case 2: .portal
        case 3: .limited
        case 1: .offline
        default: .unknown
        }
    }
}

extension PortalStatus {
    /// The portal's verdict, in GLib's `GNetworkConnectivity` numbering: 4 full, 3 portal,
    /// 2 limited, 1 local; unavailable: offline.
    package var verdict: Connectivity {
        guard available else { return .offline }
        switch connectivity {
        case 4: return .full
        case 3: return .portal
        case 2: return .limited
        default: return .local
        }
    }
}

/// systemd-networkd's state file of one link (`/run/systemd/netif/links/IFINDEX`), as
/// libsystemd's `sd_network_link_get_captive_portal` reads it: `KEY=value` lines.
package enum NetworkdLinkFile {
    /// The `CAPTIVE_PORTAL=` URL in `contents`, if there is one (an `http://` or
    /// `https://` URL without spaces or control characters; anything else is ignored).
    package static func captivePortal(in contents: [UInt8]) -> String? {
        for line in contents.split(separator: UInt8(ascii: "\n")) {
            let prefix = Array("CAPTIVE_PORTAL=".utf8)
            guard line.starts(with: prefix) else { continue }
            let value = line.dropFirst(prefix.count)
            guard !value.isEmpty, value.count <= 2048, value.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
            let url = String(decoding: value, as: UTF8.self)
            return url.hasPrefix("http://") || url.hasPrefix("https://") ? url : nil
        }
        return nil
    }
}
