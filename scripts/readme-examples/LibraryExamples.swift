// The README's Linux library examples, type-checked by scripts/check-readme.sh against the
// NetPath module that `swift test` built. Keep them in step with the README.
import NetPath
import NetPathTestKit

func quickStart() async throws {
    let monitor = PathMonitor()
    try monitor.start()
    if let path = monitor.currentPath {
        print(path.status)
    }
    for await path in monitor.paths {
        if path.status == .satisfied {
            print("online via", path.availableInterfaces.first!.name, "gateways", path.gateways)
        } else {
            print("offline:", path.diagnosis!)
        }
    }
    monitor.pathUpdateHandler = { path in print(path.status) }
    try monitor.start(queue: .main)
    let now = try PathMonitor.currentPath()
    _ = now
    _ = PathMonitor(requiredInterfaceType: .wifi)
    _ = PathMonitor(prohibitedInterfaceTypes: [.cellular])
    _ = PathMonitor(meteredInterfaces: ["usb0", "enx*"], constrainedInterfaces: ["sat0"])
    _ = try PathMonitor.currentPath(meteredInterfaces: ["usb0"])
    _ = PathMonitor(namespace: .named("blue"))
    _ = PathMonitor(namespace: .path("/proc/1234/ns/net"))
    let checked = PathMonitor(connectivityCheck: .default)
    _ = checked
    let result = await ConnectivityCheck.default.run(over: try PathMonitor.currentPath())
    print(result.connectivity, result.portalURL ?? "-", result.httpStatus ?? 0, result.latencyMilliseconds ?? 0)
    let check = ConnectivityCheck(
        endpoints: [try .init("http://example.org/health", expecting: .init(status: 200, bodyPrefix: "ok"))],
        timeout: 3, interval: 600)
    _ = check
}

@MainActor func app() throws {
    let network = NetworkMonitor(isConnectedMeans: .internetReachable)
    _ = network.connectivity
    _ = network.portalURL
    let networkMonitor = NetworkMonitor()
    networkMonitor.startMonitoring { isConnected in print(isConnected) }
    networkMonitor.stopMonitoring()
    _ = networkMonitor.isNetworkAvailable
    let simulated = SimulatedNetwork(.online(.wifi))
    let monitor = NetworkMonitor(simulating: simulated)
    monitor.start()
    simulated.send(.offline(.noCarrier))
    let replay = try SimulatedNetwork(trace: "")
    while replay.step() != nil {}
    _ = NetworkPath.online(.cellular)
    _ = NetworkPath.offline(.noAddress)
    _ = try NetworkPath(jsonLine: "{}")
    simulated.playAll()
}
