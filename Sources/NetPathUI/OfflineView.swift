#if canImport(SwiftUI)
import Foundation
import NetPath
import SwiftUI

/// The ready offline screen: `ContentUnavailableView` with the "No Internet connection"
/// message, in English, German, Turkish and Japanese.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public struct OfflineView: View {
    /// Creates the view.
    public init() {}

    /// The view's content.
    public var body: some View {
        ContentUnavailableView {
            Label {
                Text("No Internet connection", bundle: .module)
            } icon: {
                Image(systemName: "wifi.exclamationmark")
            }
        } description: {
            Text("Check your Wi-Fi or mobile data connection.", bundle: .module)
        }
    }
}

/// A slim "Offline" bar for the top of a screen.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public struct OfflineBanner: View {
    /// Creates the view.
    public init() {}

    /// The view's content.
    public var body: some View {
        Label {
            Text("Offline", bundle: .module)
        } icon: {
            Image(systemName: "wifi.slash")
        }
        .font(.footnote)
        .padding(8)
        .frame(maxWidth: .infinity)
        #if os(tvOS) || os(watchOS)
        .background(.regularMaterial)  // the bar material does not exist there
        #else
        .background(.bar)
        #endif
    }
}

/// How ``SwiftUI/View/offlineIndicator(_:monitor:)`` shows that the network is gone.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public enum OfflineIndicatorStyle: Hashable, Sendable {
    /// The ``OfflineView`` over the whole content.
    case fullScreen
    /// The ``OfflineBanner`` above the content, which stays usable.
    case banner
}

/// Isolated to the main actor explicitly: it reads the main-actor monitor, and SDKs before
/// Xcode 16 do not make a `ViewModifier` main-actor isolated by themselves.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
@MainActor struct OfflineIndicator: ViewModifier {
    @Environment(NetworkMonitor.self) private var environmentMonitor: NetworkMonitor?
    let style: OfflineIndicatorStyle
    let monitor: NetworkMonitor?

    /// Made wherever a view is built (`View`'s extensions are not main-actor isolated in
    /// every SDK); only the body reads the monitor.
    nonisolated init(style: OfflineIndicatorStyle, monitor: NetworkMonitor?) {
        self.style = style
        self.monitor = monitor
    }

    private var isOffline: Bool {
        !((monitor ?? environmentMonitor)?.isConnected ?? true)
    }

    func body(content: Content) -> some View {
        switch style {
        case .fullScreen:
            content.overlay {
                if isOffline {
                    OfflineView()
                        .frame(maxWidth: .infinity, maxHeight: .infinity)
                        .background(.regularMaterial)
                }
            }
        case .banner:
            content.safeAreaInset(edge: .top) {
                if isOffline {
                    OfflineBanner()
                }
            }
        }
    }
}

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
extension View {
    /// Shows that the network is gone, over or above this view, while it is gone.
    ///
    /// - Parameters:
    ///   - style: A full-screen ``OfflineView`` (default) or an ``OfflineBanner``.
    ///   - monitor: The monitor to follow; the environment's when `nil`.
    /// - Returns: The view with the indicator.
    public func offlineIndicator(_ style: OfflineIndicatorStyle = .fullScreen, monitor: NetworkMonitor? = nil) -> some View {
        modifier(OfflineIndicator(style: style, monitor: monitor))
    }
}
#endif
