#if canImport(Network)
import Dispatch
import Network

/// The Apple backend: a fresh `NWPathMonitor` for every start (an `NWPathMonitor` cannot be
/// restarted after `cancel()`), its paths mapped into ``NetworkPath``.
final class NWPathMonitorSource: PathSource, @unchecked Sendable {
    // `monitor` is thread-safe by Apple's contract (start, cancel and the handler property
    // may be used from any thread); `deliver` is immutable.
    private let monitor: NWPathMonitor
    private let queue = DispatchQueue(label: "NetPath.NWPathMonitor")
    private let deliver: @Sendable (NetworkPath) -> Void

    /// `NWPathMonitor` reports its first path asynchronously, on its queue.
    var initialPath: NetworkPath? { nil }

    init(filter: InterfaceFilter, deliver: @escaping @Sendable (NetworkPath) -> Void) {
        if let required = filter.required {
            monitor = NWPathMonitor(requiredInterfaceType: NWInterface.InterfaceType(required))
        } else if !filter.prohibited.isEmpty {
            monitor = NWPathMonitor(prohibitedInterfaceTypes: filter.prohibited.map(NWInterface.InterfaceType.init))
        } else {
            monitor = NWPathMonitor()
        }
        self.deliver = deliver
    }

    func startReading() -> Bool {
        let deliver = self.deliver
        monitor.pathUpdateHandler = { path in deliver(NetworkPath(path)) }
        monitor.start(queue: queue)
        return true
    }

    func stop() {
        monitor.pathUpdateHandler = nil
        monitor.cancel()
    }
}

extension NetworkPath {
    /// The path `NWPathMonitor` reported, as a value.
    ///
    /// `diagnosis` is derived from what `NWPath` tells: `noInterface` when it lists no
    /// interface, else `noDefaultRoute`; `nil` when satisfied. A satisfied path whose first
    /// interface is of type `other` with a physical one listed after it goes through a VPN:
    /// ``tunnelInterface`` is the first, ``underlyingInterface`` the first after it whose
    /// type is not `other` (nor loopback). `isUltraConstrained` and `linkQuality` are read
    /// on iOS 26, macOS 26, tvOS 26, watchOS 26 and visionOS 26 (and with a compiler that
    /// knows them); `false` and `unknown` before.
    public init(_ path: NWPath) {
        let interfaces = path.availableInterfaces.map {
            NetworkInterface(name: $0.name, index: $0.index, type: NetworkInterface.InterfaceType($0.type))
        }
        let status: Status
        switch path.status {
        case .satisfied: status = .satisfied
        case .requiresConnection: status = .requiresConnection
        case .unsatisfied: status = .unsatisfied
        @unknown default: status = .unsatisfied
        }
        var reason: UnsatisfiedReason?
        var diagnosis: Diagnosis?
        if status != .satisfied {
            reason = UnsatisfiedReason(path.unsatisfiedReason)
            diagnosis = interfaces.isEmpty ? .noInterface : .noDefaultRoute
        }
        var tunnel: NetworkInterface?
        var underlying: NetworkInterface?
        if status == .satisfied, let first = interfaces.first, first.type == .other,
           let beneath = interfaces.dropFirst().first(where: { $0.type != .other && $0.type != .loopback }) {
            tunnel = first
            underlying = beneath
        }
        self.init(
            status: status,
            unsatisfiedReason: reason,
            diagnosis: diagnosis,
            availableInterfaces: interfaces,
            tunnelInterface: tunnel,
            underlyingInterface: underlying,
            isExpensive: path.isExpensive,
            isConstrained: path.isConstrained,
            isUltraConstrained: NetworkPath.isUltraConstrained(path),
            linkQuality: NetworkPath.linkQuality(path),
            supportsIPv4: path.supportsIPv4,
            supportsIPv6: path.supportsIPv6,
            supportsDNS: path.supportsDNS,
            gateways: path.gateways.compactMap(NetworkPath.gatewayText),
            expensiveSource: path.isExpensive ? .system : nil
        )
    }

    /// `NWPath.isUltraConstrained` where the SDK and the system have it.
    private static func isUltraConstrained(_ path: NWPath) -> Bool {
        #if compiler(>=6.2)
        if #available(iOS 26.0, macOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            return path.isUltraConstrained
        }
        #endif
        return false
    }

    /// `NWPath.linkQuality` where the SDK and the system have it.
    private static func linkQuality(_ path: NWPath) -> LinkQuality {
        #if compiler(>=6.2)
        if #available(iOS 26.0, macOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            switch path.linkQuality {
            case .unknown: return .unknown
            case .minimal: return .minimal
            case .moderate: return .moderate
            case .good: return .good
            @unknown default: return .unknown
            }
        }
        #endif
        return .unknown
    }

    private static func gatewayText(_ endpoint: NWEndpoint) -> String? {
        guard case .hostPort(let host, _) = endpoint else { return nil }
        switch host {
        case .ipv4(let address): return address.debugDescription
        case .ipv6(let address): return address.debugDescription
        case .name(let name, _): return name
        @unknown default: return nil
        }
    }
}

extension NetworkPath.UnsatisfiedReason {
    init(_ reason: NWPath.UnsatisfiedReason) {
        switch reason {
        case .notAvailable: self = .notAvailable
        case .cellularDenied: self = .cellularDenied
        case .wifiDenied: self = .wifiDenied
        case .localNetworkDenied: self = .localNetworkDenied
        case .vpnInactive: self = .vpnInactive
        @unknown default: self = .notAvailable
        }
    }
}

extension NetworkInterface.InterfaceType {
    /// The same type as Network's.
    public init(_ type: NWInterface.InterfaceType) {
        switch type {
        case .wifi: self = .wifi
        case .cellular: self = .cellular
        case .wiredEthernet: self = .wiredEthernet
        case .loopback: self = .loopback
        case .other: self = .other
        @unknown default: self = .other
        }
    }
}

extension NWInterface.InterfaceType {
    /// The same type as NetPath's.
    public init(_ type: NetworkInterface.InterfaceType) {
        switch type {
        case .wifi: self = .wifi
        case .cellular: self = .cellular
        case .wiredEthernet: self = .wiredEthernet
        case .loopback: self = .loopback
        case .other: self = .other
        }
    }
}
#endif
