// The README's "NetPath in a SwiftUI app" examples, type-checked by scripts/check-apple.sh
// against the Apple API stubs. Keep them in step with the README.
import Combine
import NetPath
import NetPathTestKit
import NetPathUI
import SwiftUI

// 1. The observable monitor, injected with .environment and read with @Environment.
@available(iOS 17.0, macOS 14.0, *)
struct MyApp: App {
    @State private var networkMonitor = NetworkMonitor()

    var body: some Scene {
        WindowGroup {
            ContentScreen()
                .environment(networkMonitor)
                .onAppear { networkMonitor.start() }
        }
    }
}

@available(iOS 17.0, macOS 14.0, *)
struct ContentScreen: View {
    @Environment(NetworkMonitor.self) private var networkMonitor

    var body: some View {
        if networkMonitor.isConnected {
            Text("Connected via \(networkMonitor.connectionType.rawValue)")
        } else {
            OfflineView()
        }
    }
}

// 2. The callback trio.
@available(iOS 17.0, macOS 14.0, *)
@MainActor
final class DownloadController {
    let networkMonitor = NetworkMonitor()
    var canDownload = false

    func viewDidAppear() {
        networkMonitor.startMonitoring { [weak self] isConnected in
            self?.canDownload = isConnected
        }
    }

    func viewWillDisappear() {
        networkMonitor.stopMonitoring()
    }

    func download() -> Bool {
        networkMonitor.isNetworkAvailable
    }
}

// 3. Combine: a publisher of paths, mapped and assigned.
@available(iOS 17.0, macOS 14.0, *)
final class LegacyViewModel: ObservableObject {
    @Published var status: NetworkPath.Status = .unsatisfied
    private let monitor = PathMonitor()

    init() {
        monitor.publisher(queue: .main).map(\.status).assign(to: &$status)
        try? monitor.start()
    }
}

// 4. NetworkMonitorView with two different view types, and the ready offline view.
@available(iOS 17.0, macOS 14.0, *)
struct FeedScreen: View {
    let networkMonitor: NetworkMonitor

    var body: some View {
        VStack {
            NetworkMonitorView {
                FeedList()
            } offline: {
                OfflineView()
            }
            .environment(networkMonitor)

            SettingsForm().offlineIndicator(.banner)
        }
    }
}

struct FeedList: View {
    var body: some View { Text("Feed") }
}

struct SettingsForm: View {
    var body: some View { Text("Settings") }
}

// 5. Tests and previews with a simulated network instead of a hand-written mock.
@available(iOS 17.0, macOS 14.0, *)
@MainActor
func exampleTest() {
    let network = SimulatedNetwork(.online(.wifi))
    let monitor = NetworkMonitor(simulating: network)
    monitor.start()
    network.send(.offline())
    assert(monitor.isConnected == false)
}
