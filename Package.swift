// swift-tools-version:6.0
import PackageDescription

// The strictness swift-log uses: `any` spelled out, imports visible where members are used.
//
// And one for the release tool's start-up on Linux (BENCHMARKS.md, "Start-up"): type metadata
// reached through accessors rather than mangled names. A mangled name is resolved at run time,
// and each generic type it names whose parameters must conform to a protocol (a dictionary's
// key to Hashable) costs a scan of every conformance record in the binary the first time: half
// of a one-shot `netpath status`'s instructions. An unsafe flag: SwiftPM accepts it in a
// dependency by path or branch, the two ways the README gives; a tagged release, depended on by
// version, needs tools version 6.2 for it.
//
// Each function in a section of its own, so that the tool's link can put the hot ones side by
// side (below, "hot-functions.txt").
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility"),
    .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors", "-Xfrontend", "-function-sections"],
                 .when(platforms: [.linux], configuration: .release)),
]

let package = Package(
    name: "NetPath",
    defaultLocalization: "en",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "NetPath", targets: ["NetPath"]),
        .library(name: "NetPathUI", targets: ["NetPathUI"]),
        // The metrics `netpath serve` exports, for a Swift service that exports its own:
        // kept out of NetPath so apps do not carry it.
        .library(name: "NetPathPrometheus", targets: ["NetPathPrometheus"]),
        // For app tests: the simulated network, trace replay, example paths. Kept out of
        // NetPath so release builds of apps do not carry it.
        .library(name: "NetPathTestKit", targets: ["NetPathTestKit"]),
        .executable(name: "netpath", targets: ["netpath"]),
    ],
    targets: [
        .target(name: "CNetlink"),
        // The executable's command line, kept by glibc's start-up instead of found by the Swift
        // runtime's scan of /proc/self/maps (arguments.c). Linked into `netpath` alone, never
        // imported.
        .target(name: "CStartArguments"),
        // `netpath serve --web-config`: the system's OpenSSL 3 and crypt(3) (libxcrypt), loaded
        // with dlopen when TLS or basic auth is configured; their few declarations are written
        // in the adapter, so the build needs neither library nor its headers. The library's
        // connectivity check loads OpenSSL only when it checks an https endpoint.
        .target(
            name: "CTLS",
            linkerSettings: [
                .linkedLibrary("dl", .when(platforms: [.linux])),
            ]
        ),
        // The pure core: the path model, the netlink codec, the engine and the kernel-state
        // rules, the probe's state machines, the DNS and JSON codecs. No C library, no shim:
        // bytes and values in, values and actions out. Re-exported by NetPath.
        .target(name: "NetPathCore", path: "Sources/NetPath/Core", swiftSettings: strict),
        // The system: the one syscall layer, the clock, the lock, threads and the event loop.
        // NetPath and the tool do not depend on the shims: they reach the C library through
        // this target (scripts/check-syscalls.py).
        .target(
            name: "NetPathSystem",
            dependencies: ["NetPathCore", .target(name: "CNetlink", condition: .when(platforms: [.linux, .android])),
                           .target(name: "CTLS", condition: .when(platforms: [.linux]))],
            path: "Sources/NetPath/System",
            swiftSettings: strict
        ),
        .target(
            name: "NetPath",
            dependencies: ["NetPathCore", "NetPathSystem"],
            exclude: ["Core", "System"],
            swiftSettings: strict
        ),
        .target(name: "NetPathTestKit", dependencies: ["NetPath"], swiftSettings: strict),
        .target(name: "NetPathPrometheus", dependencies: ["NetPath"], swiftSettings: strict),
        // SwiftUI views and modifiers; compiled empty where SwiftUI does not exist.
        .target(
            name: "NetPathUI",
            dependencies: ["NetPath"],
            resources: [.process("Resources")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "netpath",
            dependencies: ["NetPath", "NetPathCore", "NetPathPrometheus",
                           .target(name: "CStartArguments", condition: .when(platforms: [.linux]))],
            exclude: ["StaticLink"],
            swiftSettings: strict,
            // Start-up of the release tool on Linux (BENCHMARKS.md, "Start-up"): no PIE, so
            // no relocations to apply and no copied pages at exec; libgcc and, with
            // --static-swift-stdlib, libstdc++ linked in rather than loaded (StaticLink/ holds
            // a linker script that makes -lstdc++ mean libstdc++.a). Linked by lld (in the
            // Swift toolchain) with the functions a `status` and a `watch` run first, side by
            // side (StaticLink/hot-functions.txt, written by Benchmarks/hot-functions.sh): the
            // pages a run faults in hold code it runs (BENCHMARKS.md, "Hot functions first").
            // No symbol exported (the toolchain's static-stdlib link exports the executable's
            // own): nothing loads against them, and the dynamic symbol table the loader reads
            // shrinks from 290 to 3 kB of names. lld's -O2 merges string literals by their
            // tails, which sorts them by how they end: the keys of a JSON line (`,"status":`)
            // lie together instead of over 18 pages (BENCHMARKS.md, "A turn on fewer pages").
            // Only this executable has these flags: the NetPath library stays usable as a
            // dependency.
            linkerSettings: [
                .unsafeFlags(["-Xclang-linker", "-no-pie", "-Xclang-linker", "-static-libgcc",
                              "-L", Context.packageDirectory + "/Sources/netpath/StaticLink",
                              "-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "--no-warn-symbol-ordering", "-Xlinker", "-O2", "-Xlinker",
                              "--symbol-ordering-file=" + Context.packageDirectory + "/Sources/netpath/StaticLink/hot-functions.txt"],
                             .when(platforms: [.linux], configuration: .release)),
            ]
        ),
        .testTarget(name: "NetPathTests", dependencies: ["NetPathCore", "NetPathSystem", "NetPath", "NetPathTestKit", "NetPathPrometheus"]),
        // Shared by the kernel and CLI tests: namespaces, `ip`, a path recorder. Not a product.
        .target(name: "CTestSupport", path: "Tests/CTestSupport"),
        .target(name: "KernelTestSupport", dependencies: ["NetPath", "NetPathSystem", "CTestSupport"], path: "Tests/Support", exclude: ["probe_server.py", "dns_server.py", "nat64-lab.sh", "desktop-lab.sh", "desktop-lab-portal.py", "proxy_server.py", "https_server.py"]),
        .testTarget(name: "LinuxKernelTests", dependencies: ["NetPathCore", "NetPathSystem", "NetPath", "CNetlink", "KernelTestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["netpath", "NetPathCore", "NetPathSystem", "NetPath", "KernelTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
