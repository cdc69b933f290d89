// NetPath is built from three targets (Package.swift): the pure core (Core/), the system
// (System/) and the monitors. The core's values are NetPath's API, and the system's
// package-level layer is what the monitors and the tool use: one import gives both.
// (Compiled as one module — as the Apple SDK checks compile Sources/NetPath — the imports
// fall away.)
#if canImport(NetPathCore)
@_exported import NetPathCore
@_exported import NetPathSystem
#endif
