#if canImport(SwiftUI)
import NetPath
import SwiftUI

/// Previews driven by ``SimulatedNetwork``: no network, the state the preview asks for.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
struct NetPathUI_Previews: PreviewProvider {
    @MainActor
    static func monitor(_ path: NetworkPath) -> NetworkMonitor {
        let monitor = NetworkMonitor(simulating: SimulatedNetwork(path))
        monitor.start()
        return monitor
    }

    static var previews: some View {
        Group {
            NetworkMonitorView {
                Text(verbatim: "Online content")
            }
            .environment(monitor(.offline()))

            NetworkMonitorView(monitor: monitor(.online(.wifi))) {
                Text(verbatim: "Online content")
            } offline: {
                Text(verbatim: "Offline content")
            }

            Text(verbatim: "Content under a banner")
                .offlineIndicator(.banner, monitor: monitor(.offline(.noCarrier)))
        }
    }
}
#endif
