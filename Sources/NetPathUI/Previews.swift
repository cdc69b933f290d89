#if canImport(SwiftUI)
import NetPath
import SwiftUI

/// Previews with a fixed path: no network, the state the preview asks for. (Apps' own
/// previews use NetPathTestKit's `SimulatedNetwork`; NetPathUI does not depend on it.)
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
struct NetPathUI_Previews: PreviewProvider {
    /// A source that opens with `path` and never changes.
    final class FixedSource: PathSource {
        let initialPath: NetworkPath?
        init(_ path: NetworkPath) { initialPath = path }
        func startReading() -> Bool { true }
        func stop() {}
    }

    @MainActor
    static func monitor(_ path: NetworkPath) -> NetworkMonitor {
        let monitor = NetworkMonitor(monitor: PathMonitor(configuration: PathMonitor.Configuration(),
                                                          backend: { _, _, _ in FixedSource(path) }))
        monitor.start()
        return monitor
    }

    static let online = NetworkPath(status: .satisfied, availableInterfaces: [NetworkInterface(name: "en0", index: 2, type: .wifi)],
                                    supportsIPv4: true, supportsIPv6: true, supportsDNS: true)

    static func offline(_ diagnosis: NetworkPath.Diagnosis) -> NetworkPath {
        NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: diagnosis)
    }

    static var previews: some View {
        Group {
            NetworkMonitorView {
                Text(verbatim: "Online content")
            }
            .environment(monitor(offline(.noInterface)))

            NetworkMonitorView(monitor: monitor(online)) {
                Text(verbatim: "Online content")
            } offline: {
                Text(verbatim: "Offline content")
            }

            Text(verbatim: "Content under a banner")
                .offlineIndicator(.banner, monitor: monitor(offline(.noCarrier)))
        }
    }
}
#endif
