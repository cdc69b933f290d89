import NetPath

extension PrometheusExposition {
    /// Each interface's own check (`netpath serve --probe-interfaces`):
    /// `netpath_interface_connectivity{netns,interface,connectivity}`, 1 for the verdict of
    /// the latest check bound to that interface, and
    /// `netpath_interface_connectivity_family{netns,interface,family,connectivity}` for each
    /// address family's (`unknown`: the interface does not route that family). Names of
    /// their own, as for the path's verdicts: a selector written for
    /// `netpath_connectivity` never matches them. An interface that routes neither family
    /// to the Internet has no series.
    static func writeInterfaces(_ namespaces: [Namespace], to writer: inout Writer) {
        let checked = namespaces.filter { $0.path != nil && !$0.interfaceConnectivity.isEmpty }
        writer.family("netpath_interface_connectivity", .gauge,
                      "Whether the Internet answers through this interface, checked over sockets bound to it: 1 for its latest verdict, 0 for the others.") {
            for namespace in checked {
                for (interface, result) in namespace.interfaceConnectivity.sorted(by: { $0.key < $1.key }) {
                    for connectivity in Connectivity.allCases {
                        $0.sample(labels: [("netns", namespace.name), ("interface", interface), ("connectivity", connectivity.rawValue)],
                                  result.connectivity == connectivity)
                    }
                }
            }
        }
        writer.family("netpath_interface_connectivity_family", .gauge,
                      "Whether the Internet answers through this interface over one address family's own sockets: 1 for that family's latest verdict (unknown: not routed through it).") {
            for namespace in checked {
                for (interface, result) in namespace.interfaceConnectivity.sorted(by: { $0.key < $1.key }) {
                    for family in IPFamily.allCases {
                        let verdict = (family == .ipv4 ? result.ipv4 : result.ipv6)?.connectivity ?? .unknown
                        for connectivity in Connectivity.allCases {
                            $0.sample(labels: [("netns", namespace.name), ("interface", interface), ("family", family.rawValue),
                                               ("connectivity", connectivity.rawValue)], verdict == connectivity)
                        }
                    }
                }
            }
        }
    }
}
