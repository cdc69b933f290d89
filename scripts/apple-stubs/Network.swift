// Type-checking stub of Apple's Network framework (Swift overlay), for Linux CI only.
// Declarations only: bodies are `fatalError()`. Nothing here runs.
// Every declaration is as the iOS 17.4 SDK's Network.swiftinterface (Xcode 15.3) declares it,
// and the NWPath members Xcode 26 added as its SDK declares them (isUltraConstrained,
// LinkQuality, linkQuality); scripts/compare-apple-stubs.sh checks each one against the real
// SDK (../shared/apple-sdk). Only the surface NetPath uses is declared. Build with
// -enable-library-evolution so non-@frozen enums behave as in the real (resilient) framework.

import Foundation  // Data, URL
import Dispatch    // DispatchQueue

// MARK: - NWInterface

@available(macOS 10.14, iOS 12.0, watchOS 5.0, tvOS 12.0, *)
public struct NWInterface: Hashable, CustomDebugStringConvertible, Sendable {
    /// Types of network interfaces, based on their link layer media types.
    public enum InterfaceType: Sendable {
        case other
        case wifi
        case cellular
        case wiredEthernet
        case loopback
    }
    public var type: NWInterface.InterfaceType { fatalError() }
    public var name: String { fatalError() }
    public var index: Int { fatalError() }
    public var debugDescription: String { fatalError() }
    public static func == (lhs: NWInterface, rhs: NWInterface) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

// MARK: - Addresses

@available(macOS 10.14, iOS 12.0, watchOS 5.0, tvOS 12.0, *)
public protocol IPAddress: Sendable {
    init?(_ string: String)
    init?(_ rawValue: Data, _ interface: NWInterface?)
    var rawValue: Data { get }
    var interface: NWInterface? { get }
    var isLoopback: Bool { get }
    var isLinkLocal: Bool { get }
    var isMulticast: Bool { get }
}

@available(macOS 10.14, iOS 12.0, watchOS 5.0, tvOS 12.0, *)
public struct IPv4Address: IPAddress, Hashable, CustomDebugStringConvertible {
    public init?(_ string: String) { fatalError() }
    public init?(_ rawValue: Data, _ interface: NWInterface? = nil) { fatalError() }
    public var rawValue: Data { fatalError() }
    public var interface: NWInterface? { fatalError() }
    public var isLoopback: Bool { fatalError() }
    public var isLinkLocal: Bool { fatalError() }
    public var isMulticast: Bool { fatalError() }
    public var debugDescription: String { fatalError() }
    public static func == (lhs: IPv4Address, rhs: IPv4Address) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

@available(macOS 10.14, iOS 12.0, watchOS 5.0, tvOS 12.0, *)
public struct IPv6Address: IPAddress, Hashable, CustomDebugStringConvertible {
    public init?(_ string: String) { fatalError() }
    public init?(_ rawValue: Data, _ interface: NWInterface? = nil) { fatalError() }
    public var rawValue: Data { fatalError() }
    public var interface: NWInterface? { fatalError() }
    public var isLoopback: Bool { fatalError() }
    public var isLinkLocal: Bool { fatalError() }
    public var isMulticast: Bool { fatalError() }
    public var debugDescription: String { fatalError() }
    public static func == (lhs: IPv6Address, rhs: IPv6Address) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

// MARK: - NWEndpoint

/// Stand-in for the Objective-C protocol behind `nw_endpoint_t`, which the Network C module
/// declares (`protocol OS_nw_endpoint: NSObjectProtocol, Sendable`, `typealias nw_endpoint_t =
/// any OS_nw_endpoint`), needed only for `NWEndpoint.opaque(_:)`.
public protocol OS_nw_endpoint: NSObjectProtocol, Sendable {}
public typealias nw_endpoint_t = any OS_nw_endpoint

@available(macOS 10.14, iOS 12.0, watchOS 5.0, tvOS 12.0, *)
public enum NWEndpoint: Hashable, CustomDebugStringConvertible, Sendable {
    case hostPort(host: NWEndpoint.Host, port: NWEndpoint.Port)
    case service(name: String, type: String, domain: String, interface: NWInterface?)
    case unix(path: String)
    @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *)
    case url(URL)
    @available(macOS 13.0, iOS 16.0, watchOS 9.0, tvOS 16.0, *)
    case opaque(nw_endpoint_t)

    public enum Host: Hashable, CustomDebugStringConvertible, ExpressibleByStringLiteral, Sendable {
        case name(String, NWInterface?)
        case ipv4(IPv4Address)
        case ipv6(IPv6Address)
        public init(_ string: String) { fatalError() }
        public init(stringLiteral: String) { fatalError() }
        public var interface: NWInterface? { fatalError() }
        public var debugDescription: String { fatalError() }
    }

    public struct Port: Hashable, CustomDebugStringConvertible, ExpressibleByIntegerLiteral, RawRepresentable, Sendable {
        public typealias IntegerLiteralType = UInt16
        public static let any: NWEndpoint.Port = 0
        public static let ssh: NWEndpoint.Port = 22
        public static let smtp: NWEndpoint.Port = 25
        public static let http: NWEndpoint.Port = 80
        public static let pop: NWEndpoint.Port = 110
        public static let imap: NWEndpoint.Port = 143
        public static let https: NWEndpoint.Port = 443
        public static let imaps: NWEndpoint.Port = 993
        public static let socks: NWEndpoint.Port = 1080
        public init?(_ service: String) { fatalError() }
        public init(integerLiteral value: UInt16) { fatalError() }
        public init?(rawValue: UInt16) { fatalError() }
        public var rawValue: UInt16 { fatalError() }
        public var debugDescription: String { fatalError() }
    }

    public var interface: NWInterface? { fatalError() }
    public var debugDescription: String { fatalError() }
    public static func == (lhs: NWEndpoint, rhs: NWEndpoint) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

// MARK: - NWPath

@available(macOS 10.14, iOS 12.0, watchOS 5.0, tvOS 12.0, *)
public struct NWPath: Equatable, CustomDebugStringConvertible, Sendable {
    /// Status values indicating whether a path can be used by connections.
    public enum Status: Sendable {
        case satisfied
        case unsatisfied
        case requiresConnection
    }

    @available(macOS 11.0, iOS 14.2, watchOS 7.1, tvOS 14.2, *)
    public enum UnsatisfiedReason: Sendable {
        case notAvailable
        case cellularDenied
        case wifiDenied
        case localNetworkDenied
        @available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
        case vpnInactive
    }

    public var status: NWPath.Status { fatalError() }
    @available(macOS 11.0, iOS 14.2, watchOS 7.1, tvOS 14.2, *)
    public var unsatisfiedReason: NWPath.UnsatisfiedReason { fatalError() }
    public var availableInterfaces: [NWInterface] { fatalError() }
    public var isExpensive: Bool { fatalError() }
    @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *)
    public var isConstrained: Bool { fatalError() }
    public var supportsIPv4: Bool { fatalError() }
    public var supportsIPv6: Bool { fatalError() }
    public var supportsDNS: Bool { fatalError() }
    @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *)
    public var gateways: [NWEndpoint] { fatalError() }
    public var localEndpoint: NWEndpoint? { fatalError() }
    public var remoteEndpoint: NWEndpoint? { fatalError() }
    public func usesInterfaceType(_ type: NWInterface.InterfaceType) -> Bool { fatalError() }
    public var debugDescription: String { fatalError() }
    public static func == (lhs: NWPath, rhs: NWPath) -> Bool { fatalError() }
}

// Xcode 26 (iOS 26 SDK). Code that uses these must sit under `#if compiler(>=6.2)` (Xcode 26's
// Swift) and `if #available(iOS 26.0, …)`.
extension NWPath {
    @available(iOS 26.0, macOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    public var isUltraConstrained: Bool { fatalError() }

    @available(iOS 26.0, macOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    public enum LinkQuality: Equatable, Hashable, Sendable {
        case unknown
        case minimal
        case moderate
        case good
    }

    @available(iOS 26.0, macOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    public var linkQuality: NWPath.LinkQuality { fatalError() }
}

// MARK: - NWPathMonitor

@available(macOS 10.14, iOS 12.0, watchOS 5.0, tvOS 12.0, *)
final public class NWPathMonitor {
    final public var currentPath: NWPath {
        get { fatalError() }
        @available(macOS, introduced: 10.14, deprecated: 14.0, message: "setting currentPath not supported")
        @available(iOS, introduced: 12.0, deprecated: 17.0, message: "setting currentPath not supported")
        @available(watchOS, introduced: 5.0, deprecated: 9.0, message: "setting currentPath not supported")
        @available(tvOS, introduced: 12.0, deprecated: 17.0, message: "setting currentPath not supported")
        set { fatalError() }
    }
    @preconcurrency final public var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)? {
        get { fatalError() }
        set { fatalError() }
    }
    final public var queue: DispatchQueue? { fatalError() }
    final public func start(queue: DispatchQueue) { fatalError() }
    final public func cancel() { fatalError() }
    public init() { fatalError() }
    public init(requiredInterfaceType: NWInterface.InterfaceType) { fatalError() }
    @available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
    public init(prohibitedInterfaceTypes: [NWInterface.InterfaceType]) { fatalError() }
}

// NWPathMonitor is Sendable from iOS 17 / macOS 14 on, in the same extension as AsyncSequence.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
extension NWPathMonitor: @unchecked Sendable, AsyncSequence {
    public typealias Element = NWPath
    public typealias AsyncIterator = NWPathMonitor.Iterator
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = NWPath
        public mutating func next() async -> NWPath? { fatalError() }
    }
    final public func makeAsyncIterator() -> NWPathMonitor.Iterator { fatalError() }
}

// MARK: - NWError, NWParameters, NWConnection (iOS 12 / macOS 10.14)
// developer.apple.com/documentation/network/nwerror
// (DNSServiceErrorType comes from dnssd and OSStatus from MacTypes on Apple platforms; both
// are Int32 there, declared here only so the stub compiles on Linux.)
public typealias DNSServiceErrorType = Int32
public typealias OSStatus = Int32

public enum NWError: Error, CustomDebugStringConvertible, Equatable, Sendable {
    case posix(POSIXErrorCode)
    case dns(DNSServiceErrorType)
    case tls(OSStatus)
    public var debugDescription: String { fatalError() }
}

// developer.apple.com/documentation/network/nwparameters
final public class NWParameters: CustomDebugStringConvertible, @unchecked Sendable {
    public class var tcp: NWParameters { fatalError() }
    public class var udp: NWParameters { fatalError() }
    public init() { fatalError() }
    final public var requiredInterfaceType: NWInterface.InterfaceType { get { fatalError() } set { fatalError() } }
    final public var requiredInterface: NWInterface? { get { fatalError() } set { fatalError() } }
    final public var prohibitedInterfaceTypes: [NWInterface.InterfaceType]? { get { fatalError() } set { fatalError() } }
    public var debugDescription: String { fatalError() }
}

// developer.apple.com/documentation/network/nwconnection
final public class NWConnection: CustomDebugStringConvertible, @unchecked Sendable {
    public enum State: Equatable, Sendable {
        case setup
        case waiting(NWError)
        case preparing
        case ready
        case failed(NWError)
        case cancelled
    }

    // developer.apple.com/documentation/network/nwconnection/contentcontext
    final public class ContentContext: @unchecked Sendable {
        public static let defaultMessage: NWConnection.ContentContext = { fatalError() }()
        public static let finalMessage: NWConnection.ContentContext = { fatalError() }()
        public static let defaultStream: NWConnection.ContentContext = { fatalError() }()
    }

    // developer.apple.com/documentation/network/nwconnection/sendcompletion
    public enum SendCompletion {
        @preconcurrency case contentProcessed(@Sendable (_ error: NWError?) -> Void)
        case idempotent
    }

    public convenience init(host: NWEndpoint.Host, port: NWEndpoint.Port, using: NWParameters) { fatalError() }
    public init(to: NWEndpoint, using: NWParameters) { fatalError() }

    final public var state: NWConnection.State { fatalError() }
    @preconcurrency final public var stateUpdateHandler: (@Sendable (_ state: NWConnection.State) -> Void)? {
        get { fatalError() } set { fatalError() }
    }
    final public var endpoint: NWEndpoint { fatalError() }
    final public var parameters: NWParameters { fatalError() }
    final public var currentPath: NWPath? { fatalError() }

    final public func start(queue: DispatchQueue) { fatalError() }
    final public func cancel() { fatalError() }
    final public func forceCancel() { fatalError() }

    @preconcurrency
    final public func send(content: Data?, contentContext: NWConnection.ContentContext = .defaultMessage,
                           isComplete: Bool = true, completion: NWConnection.SendCompletion) { fatalError() }
    @preconcurrency
    final public func receive(minimumIncompleteLength: Int, maximumLength: Int,
                              completion: @escaping @Sendable (_ content: Data?, _ contentContext: NWConnection.ContentContext?,
                                                               _ isComplete: Bool, _ error: NWError?) -> Void) { fatalError() }
    public var debugDescription: String { fatalError() }
}
