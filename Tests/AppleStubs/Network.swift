// What NetPath uses of Apple's Network, as the iOS 17.4 SDK declares it (NWPath's iOS 26 members as Xcode 26's); availability left out, as Linux ignores it.
import Foundation
import Dispatch

public struct NWInterface: Hashable, CustomDebugStringConvertible, Sendable {
    public enum InterfaceType: Sendable { case other, wifi, cellular, wiredEthernet, loopback }
    public var type: NWInterface.InterfaceType { fatalError() }
    public var name: String { fatalError() }
    public var index: Int { fatalError() }
    public var debugDescription: String { fatalError() }
}
public struct IPv4Address: Hashable, CustomDebugStringConvertible, Sendable { public var debugDescription: String { fatalError() } }
public struct IPv6Address: Hashable, CustomDebugStringConvertible, Sendable { public var debugDescription: String { fatalError() } }
public enum NWEndpoint: Hashable, CustomDebugStringConvertible, Sendable {
    case hostPort(host: NWEndpoint.Host, port: NWEndpoint.Port)
    public enum Host: Hashable, CustomDebugStringConvertible, Sendable {
        case name(String, NWInterface?), ipv4(IPv4Address), ipv6(IPv6Address)
        public init(_ string: String) { fatalError() }
        public var debugDescription: String { fatalError() }
    }
    public struct Port: Hashable, CustomDebugStringConvertible, RawRepresentable, Sendable {
        public init?(rawValue: UInt16) { fatalError() }
        public var rawValue: UInt16 { fatalError() }
        public var debugDescription: String { fatalError() }
    }
    public var debugDescription: String { fatalError() }
}

public struct NWPath: Equatable, CustomDebugStringConvertible, Sendable {
    public enum Status: Sendable { case satisfied, unsatisfied, requiresConnection }
    public enum UnsatisfiedReason: Sendable { case notAvailable, cellularDenied, wifiDenied, localNetworkDenied, vpnInactive }
    public var status: NWPath.Status { fatalError() }
    public var unsatisfiedReason: NWPath.UnsatisfiedReason { fatalError() }
    public var availableInterfaces: [NWInterface] { fatalError() }
    public var isExpensive: Bool { fatalError() }
    public var isConstrained: Bool { fatalError() }
    public var supportsIPv4: Bool { fatalError() }
    public var supportsIPv6: Bool { fatalError() }
    public var supportsDNS: Bool { fatalError() }
    public var gateways: [NWEndpoint] { fatalError() }
    public var debugDescription: String { fatalError() }
}
extension NWPath {
    public var isUltraConstrained: Bool { fatalError() }
    public enum LinkQuality: Equatable, Hashable, Sendable { case unknown, minimal, moderate, good }
    public var linkQuality: NWPath.LinkQuality { fatalError() }
}
final public class NWPathMonitor {
    @preconcurrency final public var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)? { get { fatalError() } set { fatalError() } }
    final public func start(queue: DispatchQueue) { fatalError() }
    final public func cancel() { fatalError() }
    public init() { fatalError() }
    public init(requiredInterfaceType: NWInterface.InterfaceType) { fatalError() }
    public init(prohibitedInterfaceTypes: [NWInterface.InterfaceType]) { fatalError() }
}
extension NWPathMonitor: @unchecked Sendable {}

public typealias DNSServiceErrorType = Int32  // from dnssd on Apple platforms
public typealias OSStatus = Int32  // from MacTypes on Apple platforms
public enum NWError: Error, CustomDebugStringConvertible, Equatable, Sendable {
    case posix(POSIXErrorCode), dns(DNSServiceErrorType), tls(OSStatus)
    public var debugDescription: String { fatalError() }
}
final public class NWParameters: CustomDebugStringConvertible, @unchecked Sendable {
    public class var tcp: NWParameters { fatalError() }
    public class var tls: NWParameters { fatalError() }
    final public var requiredInterfaceType: NWInterface.InterfaceType { get { fatalError() } set { fatalError() } }
    public var debugDescription: String { fatalError() }
}
final public class NWConnection: CustomDebugStringConvertible, @unchecked Sendable {
    public enum State: Equatable, Sendable {
        case setup
        case waiting(NWError)
        case preparing, ready
        case failed(NWError)
        case cancelled
    }
    final public class ContentContext: @unchecked Sendable {
        public static let defaultMessage: NWConnection.ContentContext = { fatalError() }()
    }
    public enum SendCompletion {
        @preconcurrency case contentProcessed(@Sendable (_ error: NWError?) -> Void)
        case idempotent
    }
    public convenience init(host: NWEndpoint.Host, port: NWEndpoint.Port, using: NWParameters) { fatalError() }
    @preconcurrency final public var stateUpdateHandler: (@Sendable (_ state: NWConnection.State) -> Void)? { get { fatalError() } set { fatalError() } }
    final public func start(queue: DispatchQueue) { fatalError() }
    final public func cancel() { fatalError() }
    @preconcurrency
    final public func send(content: Data?, contentContext: NWConnection.ContentContext = .defaultMessage,
                           isComplete: Bool = true, completion: NWConnection.SendCompletion) { fatalError() }
    @preconcurrency
    final public func receive(minimumIncompleteLength: Int, maximumLength: Int,
                              completion: @escaping @Sendable (_ content: Data?, _ contentContext: NWConnection.ContentContext?,
                                                               _ isComplete: Bool, _ error: NWError?) -> Void) { fatalError() }
    public var debugDescription: String { fatalError() }
}
