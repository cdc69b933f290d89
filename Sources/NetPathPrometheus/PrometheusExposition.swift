import NetPath

/// The Prometheus text exposition format (version 0.0.4) of the paths of several network
/// namespaces: what `netpath serve` answers to `GET /metrics` and writes for
/// node_exporter's textfile collector.
///
/// Every series carries a `netns` label: the namespace's name, `""` for the process's own.
/// A namespace's metrics:
///
/// - `netpath_path_status{status}`: 1 for the current status, 0 for the other two;
/// - `netpath_path_diagnosis{diagnosis}`: 1 for the current diagnosis, all 0 when
///   satisfied;
/// - `netpath_path_interface_info{interface,type,rank}`: 1 per available interface, rank
///   0 being the primary one;
/// - `netpath_gateway_up{gateway,family}`: 1 per gateway of the path, 0 while the
///   kernel's neighbor entry for it is `FAILED`;
/// - `netpath_path_supports_ipv4`, `netpath_path_supports_ipv6`,
///   `netpath_path_supports_dns`, `netpath_path_expensive`, `netpath_path_constrained`:
///   0 or 1;
/// - `netpath_path_changes_total`, `netpath_path_status_seconds_total{status}`,
///   `netpath_path_last_change_timestamp_seconds`, `netpath_resyncs_total`: from
///   ``PathMetrics``;
/// - with connectivity checks, `netpath_connectivity{connectivity}` (1 for the current
///   verdict), `netpath_connectivity_family{family,connectivity}` (1 for each address
///   family's own verdict, `family` being `ipv4` or `ipv6`; `unknown` for a family not
///   checked) and the histogram `netpath_connectivity_check_duration_seconds`;
/// - with checks per interface, `netpath_interface_connectivity{interface,connectivity}`
///   and `netpath_interface_connectivity_family{interface,family,connectivity}`: each
///   interface's own verdicts (``Namespace/interfaceConnectivity``);
/// - `netpath_namespace_up`: 1 while watched, 0 when it cannot be watched (then it is the
///   namespace's only series);
/// - `netpath_namespace_info{pod_uid,container_id,container_name,runtime}`: 1 for a
///   namespace whose holder is known (`NamespaceHolder`), to join with kube-state-metrics'
///   `kube_pod_info` on `uid`.
///
/// And once, `netpath_build_info{version} 1`.
public enum PrometheusExposition {
    /// The `Content-Type` of the exposition when served over HTTP.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// One namespace's entry: its metrics and latest path, or why it cannot be watched.
    public struct Namespace: Hashable, Sendable {
        /// The namespace's name; `""` for the process's own namespace.
        public var name: String
        /// What its monitor's paths added up to so far.
        public var metrics: PathMetrics
        /// Its latest path, or `nil` when it cannot be watched.
        public var path: NetworkPath?
        /// Why it cannot be watched, when it cannot; written beside its
        /// `netpath_namespace_up 0` as a comment for people reading the page.
        public var failure: String?
        /// Who holds the namespace, when known: its `netpath_namespace_info` series.
        public var holder: NamespaceHolder? = nil
        /// The latest check over each interface by name (`netpath serve
        /// --probe-interfaces`): its `netpath_interface_connectivity` series.
        public var interfaceConnectivity: [String: ConnectivityResult] = [:]

        /// A namespace that is watched.
        ///
        /// - Parameters:
        ///   - name: The namespace's name; `""` for the process's own.
        ///   - metrics: What its monitor's paths added up to so far.
        ///   - path: Its latest path.
        public init(name: String, metrics: PathMetrics, path: NetworkPath) {
            self.name = name
            self.metrics = metrics
            self.path = path
            failure = nil
        }

        /// A namespace that cannot be watched: only `netpath_namespace_up 0` is written
        /// for it.
        ///
        /// - Parameters:
        ///   - name: The namespace's name.
        ///   - failure: Why, in words (the error's message).
        public init(name: String, failure: String) {
            self.name = name
            metrics = PathMetrics()
            path = nil
            self.failure = failure
        }
    }

    /// The whole exposition, every metric family's samples together.
    ///
    /// Namespaces are written in the order of their names; when two entries have the same
    /// name, the first one is used.
    ///
    /// - Parameters:
    ///   - namespaces: The namespaces to describe.
    ///   - version: The program's version, for `netpath_build_info`.
    ///   - probe: Whether connectivity is checked: only then are the connectivity metrics
    ///     written.
    ///   - monotonic: Now, on the monotonic clock the metrics were recorded with, to count
    ///     the time spent in the current status up to this scrape.
    /// - Returns: The text, one line per sample, each line ending with a newline.
    public static func text(for namespaces: [Namespace], version: String, probe: Bool, at monotonic: Double) -> String {
        var seen = Set<String>()
        let namespaces = namespaces.enumerated()
            .sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }
            .map(\.element)
            .filter { seen.insert($0.name).inserted }
        let watched = namespaces.compactMap { entry in entry.path.map { (entry.name, entry.metrics, $0) } }
        var writer = Writer()
        writePath(watched, to: &writer)
        writeHistory(watched, at: monotonic, to: &writer)
        if probe { writeConnectivity(watched, to: &writer) }
        writeInterfaces(namespaces, to: &writer)
        writeProcess(namespaces, watched, version: version, to: &writer)
        writeHolders(namespaces, to: &writer)
        return writer.text
    }

    /// A namespace with a path, as the writers below take it.
    private typealias Watched = (name: String, metrics: PathMetrics, path: NetworkPath)

    /// The path now: status, diagnosis, interfaces, and its flags.
    private static func writePath(_ watched: [Watched], to writer: inout Writer) {
        writer.family("netpath_path_status", .gauge,
                      "Whether the network path has this status (1) or not (0): satisfied, unsatisfied or requiresConnection.") {
            for (name, _, path) in watched {
                for status in NetworkPath.Status.allCases {
                    $0.sample(labels: [("netns", name), ("status", status.rawValue)], path.status == status)
                }
            }
        }
        writer.family("netpath_path_diagnosis", .gauge,
                      "Why the path is not satisfied: 1 for the diagnosis that holds, all 0 when it is satisfied.") {
            for (name, _, path) in watched {
                for diagnosis in NetworkPath.Diagnosis.allCases {
                    $0.sample(labels: [("netns", name), ("diagnosis", diagnosis.rawValue)], path.diagnosis == diagnosis)
                }
            }
        }
        writer.family("netpath_path_interface_info", .gauge,
                      "An interface the path can use, best first: rank 0 is the one traffic leaves through.") {
            for (name, _, path) in watched {
                for (rank, interface) in path.availableInterfaces.enumerated() {
                    $0.sample(labels: [("netns", name), ("interface", interface.name), ("type", interface.type.rawValue),
                                       ("rank", String(rank))], true)
                }
            }
        }
        writer.family("netpath_gateway_up", .gauge,
                      "A default gateway of the path: 0 when the kernel's neighbor entry for it failed (no ARP reply, no neighbor advertisement).") {
            for (name, _, path) in watched {
                for gateway in path.gateways {
                    $0.sample(labels: [("netns", name), ("gateway", gateway), ("family", gateway.contains(":") ? "ipv6" : "ipv4")],
                              !path.unresponsiveGateways.contains(gateway))
                }
            }
        }
        writeNetworkAndFlags(watched, to: &writer)
    }

    /// The path's network, tunnel, link quality, and its yes/no flags (one family each).
    private static func writeNetworkAndFlags(_ watched: [Watched], to writer: inout Writer) {
        writer.family("netpath_path_network_info", .gauge,
                      "The network the path is on, as an opaque identifier: a hash of the gateways' link-layer addresses keyed by this machine (no MAC address); absent while unknown.") {
            for (name, _, path) in watched {
                guard let network = path.network else { continue }
                $0.sample(labels: [("netns", name), ("network", network)], true)
            }
        }
        writer.family("netpath_path_tunnel_info", .gauge,
                      "The tunnel (VPN) the path leaves through and the physical interface beneath it; absent without a tunnel.") {
            for (name, _, path) in watched {
                guard let tunnel = path.tunnelInterface, let underlying = path.underlyingInterface else { continue }
                $0.sample(labels: [("netns", name), ("interface", tunnel.name), ("underlying_interface", underlying.name),
                                   ("underlying_type", underlying.type.rawValue)], true)
            }
        }
        writer.family("netpath_path_link_quality", .gauge,
                      "How well the link is doing, as iOS 26 estimates it: 1 for the estimate that holds (unknown on Linux).") {
            for (name, _, path) in watched {
                for quality in NetworkPath.LinkQuality.allCases {
                    $0.sample(labels: [("netns", name), ("quality", quality.rawValue)], path.linkQuality == quality)
                }
            }
        }
        let flags: [(String, String, KeyPath<NetworkPath, Bool>)] = [
            ("netpath_path_supports_ipv4", "Whether IPv4 is routed to the Internet through a usable interface and source address.", \.supportsIPv4),
            ("netpath_path_supports_ipv6", "Whether IPv6 is routed to the Internet through a usable interface and source address.", \.supportsIPv6),
            ("netpath_path_supports_dns", "Whether the path is satisfied and at least one DNS server is configured for it.", \.supportsDNS),
            ("netpath_path_expensive",
             "Whether the physical interface (beneath a tunnel, if any) is expensive: cellular, or configured as metered.", \.isExpensive),
            ("netpath_path_constrained",
             "Whether the path is constrained: the physical interface is configured as constrained.", \.isConstrained),
            ("netpath_path_ultra_constrained",
             "Whether the path is ultra-constrained (a satellite link): the physical interface is configured so.", \.isUltraConstrained),
            ("netpath_path_tunnel", "Whether the path leaves through a tunnel (a VPN).", \.usesVPN),
        ]
        for (metric, help, flag) in flags {
            writer.family(metric, .gauge, help) {
                for (name, _, path) in watched { $0.sample(labels: [("netns", name)], path[keyPath: flag]) }
            }
        }
    }

    /// What happened since the start: changes, time per status, the last change.
    private static func writeHistory(_ watched: [Watched], at monotonic: Double, to writer: inout Writer) {
        writer.family("netpath_path_changes_total", .counter, "Paths the monitor emitted since it started, the first one included.") {
            for (name, metrics, _) in watched { $0.sample(labels: [("netns", name)], metrics.changes) }
        }
        writer.family("netpath_path_status_seconds_total", .counter,
                      "Seconds the path spent in each status since the monitor started.") {
            for (name, metrics, _) in watched {
                let seconds = metrics.statusSeconds(at: monotonic)
                for status in NetworkPath.Status.allCases {
                    $0.sample(labels: [("netns", name), ("status", status.rawValue)], seconds[status, default: 0])
                }
            }
        }
        writer.family("netpath_path_last_change_timestamp_seconds", .gauge, "Unix time of the last path change.") {
            for (name, metrics, _) in watched {
                if let time = metrics.lastChangeTime { $0.sample(labels: [("netns", name)], time) }
            }
        }
    }

    /// The connectivity check's verdict and durations (with `--probe`).
    private static func writeConnectivity(_ watched: [Watched], to writer: inout Writer) {
        writer.family("netpath_connectivity", .gauge,
                      "Whether the Internet answers: 1 for the latest connectivity verdict, 0 for the others.") {
            for (name, _, path) in watched {
                for connectivity in Connectivity.allCases {
                    $0.sample(labels: [("netns", name), ("connectivity", connectivity.rawValue)],
                              path.connectivity == connectivity)
                }
            }
        }
        writeFamilyConnectivity(watched, to: &writer)
        writer.family("netpath_connectivity_check_duration_seconds", .histogram, "How long each connectivity check took.") {
            for (name, metrics, _) in watched {
                let histogram = metrics.checkDurations
                let counts = histogram.cumulativeCounts
                for (bound, count) in zip(histogram.upperBounds + [.infinity], counts) {
                    $0.sample(suffix: "_bucket", labels: [("netns", name), ("le", format(bound))], count)
                }
                $0.sample(suffix: "_sum", labels: [("netns", name)], histogram.sum)
                $0.sample(suffix: "_count", labels: [("netns", name)], histogram.count)
            }
        }
    }

    /// Each address family's verdict (with `--probe`): a state set of its own,
    /// `netpath_connectivity_family{family,connectivity}`, rather than a `family` label on
    /// `netpath_connectivity`. A selector such as `netpath_connectivity{connectivity="full"}`
    /// (every alert rule and dashboard written for the overall verdict) would match the
    /// family series too if they shared the name, and `sum by (netns)` over it would count
    /// one namespace three times; a name of its own keeps both meanings apart. A family the
    /// path does not route is not checked: its `unknown` is 1.
    private static func writeFamilyConnectivity(_ watched: [Watched], to writer: inout Writer) {
        writer.family("netpath_connectivity_family", .gauge,
                      "Whether the Internet answers over one address family's own sockets: 1 for that family's latest verdict, 0 for the others (unknown: not checked).") {
            for (name, _, path) in watched {
                for family in IPFamily.allCases {
                    for connectivity in Connectivity.allCases {
                        $0.sample(labels: [("netns", name), ("family", family.rawValue), ("connectivity", connectivity.rawValue)],
                                  path.connectivity(for: family) == connectivity)
                    }
                }
            }
        }
    }

    /// The monitors themselves: resyncs, which namespaces are watched, the build.
    private static func writeProcess(_ namespaces: [Namespace], _ watched: [Watched], version: String, to writer: inout Writer) {
        writer.family("netpath_resyncs_total", .counter,
                      "Times the monitor lost kernel events (a receive-buffer overrun) and read the whole state again.") {
            for (name, metrics, _) in watched { $0.sample(labels: [("netns", name)], metrics.resyncs) }
        }
        writer.family("netpath_namespace_up", .gauge,
                      "Whether the network namespace is watched (1) or cannot be watched (0).") {
            for namespace in namespaces {
                if let failure = namespace.failure, namespace.path == nil {
                    $0.comment("netns \"\(escapeLabelValue(namespace.name))\" cannot be watched: \(failure)")
                }
                $0.sample(labels: [("netns", namespace.name)], namespace.path != nil)
            }
        }
        writer.family("netpath_build_info", .gauge, "The version of netpath that serves these metrics, as a label; always 1.") {
            $0.sample(labels: [("version", version)], 1)
        }
    }

    /// A label value as the format quotes it: backslash, double quote and line feed
    /// escaped.
    ///
    /// - Parameters:
    ///   - value: Any text.
    /// - Returns: The text to put between the double quotes.
    static func escapeLabelValue(_ value: String) -> String {
        var escaped = ""
        escaped.unicodeScalars.reserveCapacity(value.unicodeScalars.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A sample value as Prometheus writes one: whole numbers without a fraction or an
    /// exponent, other numbers in the shortest form that reads back the same, `+Inf`,
    /// `-Inf` and `NaN`.
    ///
    /// - Parameters:
    ///   - value: The number.
    /// - Returns: Its text.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        // Up to 2^53 every whole Double is exact as an Int64; beyond, the shortest form
        // (with an exponent) is both shorter and honest about the precision.
        if value.rounded(.towardZero) == value, value.magnitude <= 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        return value.description
    }

    /// The kinds of metric family the format names in `# TYPE` lines.
    enum FamilyType: String {
        case gauge, counter, histogram
    }

    /// Appends families to the text, each one's `# HELP` and `# TYPE` once, before its
    /// samples; a family without samples is left out altogether.
    struct Writer {
        private(set) var text = ""
        private var name = ""
        private var samples = ""

        mutating func family(_ name: String, _ type: FamilyType, _ help: String, _ body: (inout Writer) -> Void) {
            self.name = name
            samples = ""
            body(&self)
            guard !samples.isEmpty else { return }
            text += "# HELP \(name) \(PrometheusExposition.escapeHelp(help))\n"
            text += "# TYPE \(name) \(type.rawValue)\n"
            text += samples
        }

        /// A comment line among the family's samples, on one line.
        mutating func comment(_ words: String) {
            let line = words.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : String($0) }.joined()
            samples += "# \(line)\n"
        }

        mutating func sample(suffix: String = "", labels: [(String, String)], _ value: Double) {
            sample(suffix: suffix, labels: labels, text: PrometheusExposition.format(value))
        }

        mutating func sample(suffix: String = "", labels: [(String, String)], _ value: Int) {
            sample(suffix: suffix, labels: labels, text: String(value))
        }

        mutating func sample(labels: [(String, String)], _ value: Bool) {
            sample(suffix: "", labels: labels, text: value ? "1" : "0")
        }

        private mutating func sample(suffix: String, labels: [(String, String)], text value: String) {
            samples += name + suffix
            if !labels.isEmpty {
                samples += "{" + labels.map { "\($0.0)=\"\(PrometheusExposition.escapeLabelValue($0.1))\"" }
                    .joined(separator: ",") + "}"
            }
            samples += " " + value + "\n"
        }
    }

    /// `# HELP` text as the format escapes it: backslash and line feed (a double quote
    /// stays as it is).
    static func escapeHelp(_ help: String) -> String {
        var escaped = ""
        for scalar in help.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
