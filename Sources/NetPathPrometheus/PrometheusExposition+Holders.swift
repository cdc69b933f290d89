import NetPath

extension PrometheusExposition {
    /// `netpath_namespace_info`: who holds each namespace, as the container platform names
    /// it, one series per namespace whose holder is known. A label the holder does not give
    /// is left out (an empty label is the same as none in Prometheus).
    static func writeHolders(_ namespaces: [Namespace], to writer: inout Writer) {
        writer.family("netpath_namespace_info", .gauge,
                      "Who holds the network namespace, from its processes' cgroup: pod UID, container ID and name, runtime; always 1.") {
            for namespace in namespaces {
                guard let holder = namespace.holder else { continue }
                var labels = [("netns", namespace.name)]
                let fields: [(String, String?)] = [
                    ("pod_uid", holder.podUID), ("container_id", holder.containerID),
                    ("container_name", holder.containerName), ("runtime", holder.runtime),
                ]
                for (label, value) in fields {
                    if let value, !value.isEmpty { labels.append((label, value)) }
                }
                $0.sample(labels: labels, true)
            }
        }
    }
}
