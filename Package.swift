// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "NetPath",
    defaultLocalization: "en",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "NetPath", targets: ["NetPath"]),
        .library(name: "NetPathUI", targets: ["NetPathUI"]),
        .executable(name: "netpath", targets: ["netpath"]),
    ],
    targets: [
        .target(name: "CNetlink"),
        .target(
            name: "NetPath",
            dependencies: [.target(name: "CNetlink", condition: .when(platforms: [.linux, .android]))]
        ),
        // SwiftUI views and modifiers; compiled empty where SwiftUI does not exist.
        .target(
            name: "NetPathUI",
            dependencies: ["NetPath"],
            resources: [.process("Resources")]
        ),
        .executableTarget(
            name: "netpath",
            dependencies: ["NetPath", .target(name: "CNetlink", condition: .when(platforms: [.linux, .android]))]
        ),
        .testTarget(name: "NetPathTests", dependencies: ["NetPath", "KernelTestSupport"]),
        // Shared by the kernel and CLI tests: namespaces, `ip`, a path recorder. Not a product.
        .target(name: "CTestSupport", path: "Tests/CTestSupport"),
        .target(name: "KernelTestSupport", dependencies: ["NetPath", "CTestSupport"], path: "Tests/Support", exclude: ["probe_server.py"]),
        .testTarget(name: "LinuxKernelTests", dependencies: ["NetPath", "CNetlink", "KernelTestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["netpath", "NetPath", "KernelTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
