extension PathMonitor {
    /// What a ``PathMonitor`` watches and how: its interface filter, its namespace, its
    /// connectivity check and the interfaces it treats as metered or constrained.
    ///
    /// One value for every monitor an app makes alike, or for a monitor and a
    /// ``PathMonitor/snapshot(configuration:)``:
    ///
    /// ```swift
    /// var configuration = PathMonitor.Configuration(prohibitedInterfaceTypes: [.cellular])
    /// configuration.meteredInterfaces = ["usb0", "enx*"]
    /// let monitor = PathMonitor(configuration: configuration)
    /// ```
    public struct Configuration: Sendable, Equatable {
        /// The only interface type considered, if any.
        public var requiredInterfaceType: NetworkInterface.InterfaceType?
        /// Interface types never considered.
        public var prohibitedInterfaceTypes: [NetworkInterface.InterfaceType]
        /// On Linux, the network namespace watched instead of the process's own.
        public var namespace: NetworkNamespace?
        /// The check run on every path change (each path then carries
        /// ``NetworkPath/connectivity``), or `nil`: no traffic at all.
        public var connectivityCheck: ConnectivityCheck?
        /// Interfaces to treat as metered, by name or shell-style pattern (`"usb0"`,
        /// `"enx*"`, `"wwan?"`): a path whose physical interface (the primary one, or under a
        /// VPN the one beneath the tunnel) matches one is ``NetworkPath/isExpensive`` (as a
        /// cellular one is anyway). Linux has no flag for this that a process can read
        /// without D-Bus, so the app names them.
        public var meteredInterfaces: [String]
        /// Interfaces to treat as constrained, the same way: a path whose physical interface
        /// matches one is ``NetworkPath/isConstrained`` (on Apple platforms Low Data Mode
        /// makes it so anyway).
        public var constrainedInterfaces: [String]
        /// Interfaces to treat as ultra-constrained (satellite links), the same way:
        /// ``NetworkPath/isUltraConstrained``, and no connectivity check unless it allows
        /// such paths (on Apple platforms, iOS 26 says so itself).
        public var ultraConstrainedInterfaces: [String]
        /// Whether the desktop's own knowledge is left aside (Linux; default `false`):
        /// NetworkManager's metered devices and connectivity verdict, the Flatpak portal's
        /// status and the captive-portal URLs networkd recorded are then not read, and a
        /// connectivity check sends its requests whatever the desktop checks. They are read
        /// only for the process's own namespace, where those daemons run.
        public var ignoresDesktop = false

        /// A configuration; the defaults watch every interface of the process's own
        /// namespace and send nothing.
        ///
        /// - Parameters:
        ///   - requiredInterfaceType: Consider only interfaces of this type.
        ///   - prohibitedInterfaceTypes: Never consider interfaces of these types.
        ///   - namespace: On Linux, the network namespace to watch instead of the process's own.
        ///   - connectivityCheck: Check that the Internet answers on every path change; `nil`
        ///     sends nothing.
        ///   - meteredInterfaces: Interfaces to treat as metered (``meteredInterfaces``).
        ///   - constrainedInterfaces: Interfaces to treat as constrained.
        ///   - ultraConstrainedInterfaces: Interfaces to treat as ultra-constrained.
        public init(
            requiredInterfaceType: NetworkInterface.InterfaceType? = nil,
            prohibitedInterfaceTypes: [NetworkInterface.InterfaceType] = [],
            namespace: NetworkNamespace? = nil,
            connectivityCheck: ConnectivityCheck? = nil,
            meteredInterfaces: [String] = [],
            constrainedInterfaces: [String] = [],
            ultraConstrainedInterfaces: [String] = []
        ) {
            self.requiredInterfaceType = requiredInterfaceType
            self.prohibitedInterfaceTypes = prohibitedInterfaceTypes
            self.namespace = namespace
            self.connectivityCheck = connectivityCheck
            self.meteredInterfaces = meteredInterfaces
            self.constrainedInterfaces = constrainedInterfaces
            self.ultraConstrainedInterfaces = ultraConstrainedInterfaces
        }

        /// The interface type filter.
        var filter: InterfaceFilter {
            InterfaceFilter(required: requiredInterfaceType, prohibited: Set(prohibitedInterfaceTypes))
        }

        /// The configured costs.
        var costs: InterfaceCosts {
            InterfaceCosts(metered: meteredInterfaces, constrained: constrainedInterfaces,
                           ultraConstrained: ultraConstrainedInterfaces)
        }
    }
}
