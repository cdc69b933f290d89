#if canImport(SwiftUI)
import NetPath
import SwiftUI

/// Shows `online` while the network is connected and `offline` while it is not. The two
/// may be different view types.
///
/// ```swift
/// NetworkMonitorView {
///     ContentView()
/// } offline: {
///     OfflineView()
/// }
/// .environment(monitor)
/// ```
///
/// The monitor comes from the `monitor` argument, else from the environment
/// (`.environment(monitor)`); without either, `online` is shown.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public struct NetworkMonitorView<Online: View, Offline: View>: View {
    @Environment(NetworkMonitor.self) private var environmentMonitor: NetworkMonitor?
    private let monitor: NetworkMonitor?
    private let online: Online
    private let offline: Offline

    /// Creates the view.
    ///
    /// - Parameters:
    ///   - monitor: The monitor to follow; the environment's when `nil`.
    ///   - online: The content while connected.
    ///   - offline: The content while not connected.
    public init(
        monitor: NetworkMonitor? = nil,
        @ViewBuilder online: () -> Online,
        @ViewBuilder offline: () -> Offline
    ) {
        self.monitor = monitor
        self.online = online()
        self.offline = offline()
    }

    /// The view's content.
    public var body: some View {
        if (monitor ?? environmentMonitor)?.isConnected ?? true {
            online
        } else {
            offline
        }
    }
}

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
extension NetworkMonitorView where Offline == OfflineView {
    /// Shows `online` while connected, and the ready ``OfflineView`` while not.
    ///
    /// - Parameters:
    ///   - monitor: The monitor to follow; the environment's when `nil`.
    ///   - online: The content while connected.
    public init(monitor: NetworkMonitor? = nil, @ViewBuilder online: () -> Online) {
        self.init(monitor: monitor, online: online, offline: { OfflineView() })
    }
}
#endif
