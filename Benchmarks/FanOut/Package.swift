// swift-tools-version:6.0
// The fan-out benchmark (Benchmarks/run builds it with --scratch-path /tmp/bench-fanout).
// Not part of NetPath's package or its CI: a separate package that depends on the checkout.
import PackageDescription

// A path dependency's identity is its directory's name (".../main" here), whatever the checkout is called.
let netPathIdentity = String(#filePath.split(separator: "/").dropLast(3).last ?? "netpath").lowercased()

let package = Package(
    name: "FanOut",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(
            name: "FanOut",
            dependencies: [.product(name: "NetPath", package: netPathIdentity)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
