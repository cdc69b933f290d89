// Type-checking stub of Apple's Combine framework, for Linux CI only.
// Declarations only: bodies are `fatalError()` (or a trivial forwarding value). Nothing here runs.
// Every declaration is as the iOS 17.4 SDK's Combine.swiftinterface (Xcode 15.3) declares it;
// scripts/compare-apple-stubs.sh checks each one against the real SDK (../shared/apple-sdk).
// Sendable: of these types Apple's Combine declares only Subscribers.Demand and
// Subscribers.Completion Sendable; both are @frozen, so they are implicitly Sendable here too.
// Only the surface NetPath uses is declared.

// MARK: - Core protocols

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Publisher<Output, Failure> {
    associatedtype Output
    associatedtype Failure: Error
    func receive<S>(subscriber: S) where S: Subscriber, Self.Failure == S.Failure, Self.Output == S.Input
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Publisher {
    public func subscribe<S>(_ subscriber: S) where S: Subscriber, Self.Failure == S.Failure, Self.Output == S.Input { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Subscriber<Input, Failure>: CustomCombineIdentifierConvertible {
    associatedtype Input
    associatedtype Failure: Error
    func receive(subscription: any Subscription)
    func receive(_ input: Self.Input) -> Subscribers.Demand
    func receive(completion: Subscribers.Completion<Self.Failure>)
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Subscriber where Self.Input == () {
    public func receive() -> Subscribers.Demand { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
    func request(_ demand: Subscribers.Demand)
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Cancellable {
    func cancel()
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Cancellable {
    public func store<C>(in collection: inout C) where C: RangeReplaceableCollection, C.Element == AnyCancellable { fatalError() }
    public func store(in set: inout Set<AnyCancellable>) { fatalError() }
}

// MARK: - Identity

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public struct CombineIdentifier: Hashable, CustomStringConvertible {
    public init() { fatalError() }
    public init(_ obj: AnyObject) { fatalError() }
    public var description: String { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol CustomCombineIdentifierConvertible {
    var combineIdentifier: CombineIdentifier { get }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension CustomCombineIdentifierConvertible where Self: AnyObject {
    public var combineIdentifier: CombineIdentifier { fatalError() }
}

// MARK: - Subscribers

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public enum Subscribers {}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Subscribers {
    @frozen public struct Demand: Equatable, Comparable, Hashable, Codable, CustomStringConvertible {
        @usableFromInline internal let rawValue: UInt
        public static let unlimited: Subscribers.Demand = Demand(rawValue: .max)
        public static let none: Subscribers.Demand = Demand(rawValue: 0)
        internal init(rawValue: UInt) { self.rawValue = rawValue }
        public static func max(_ value: Int) -> Subscribers.Demand { fatalError() }
        public var description: String { fatalError() }
        public static func + (lhs: Subscribers.Demand, rhs: Subscribers.Demand) -> Subscribers.Demand { fatalError() }
        public static func += (lhs: inout Subscribers.Demand, rhs: Subscribers.Demand) { fatalError() }
        public static func + (lhs: Subscribers.Demand, rhs: Int) -> Subscribers.Demand { fatalError() }
        public static func += (lhs: inout Subscribers.Demand, rhs: Int) { fatalError() }
        public static func * (lhs: Subscribers.Demand, rhs: Int) -> Subscribers.Demand { fatalError() }
        public static func *= (lhs: inout Subscribers.Demand, rhs: Int) { fatalError() }
        public static func - (lhs: Subscribers.Demand, rhs: Subscribers.Demand) -> Subscribers.Demand { fatalError() }
        public static func -= (lhs: inout Subscribers.Demand, rhs: Subscribers.Demand) { fatalError() }
        public static func - (lhs: Subscribers.Demand, rhs: Int) -> Subscribers.Demand { fatalError() }
        public static func -= (lhs: inout Subscribers.Demand, rhs: Int) { fatalError() }
        public static func > (lhs: Subscribers.Demand, rhs: Int) -> Bool { fatalError() }
        public static func >= (lhs: Subscribers.Demand, rhs: Int) -> Bool { fatalError() }
        public static func > (lhs: Int, rhs: Subscribers.Demand) -> Bool { fatalError() }
        public static func >= (lhs: Int, rhs: Subscribers.Demand) -> Bool { fatalError() }
        public static func < (lhs: Subscribers.Demand, rhs: Int) -> Bool { fatalError() }
        public static func < (lhs: Int, rhs: Subscribers.Demand) -> Bool { fatalError() }
        public static func <= (lhs: Subscribers.Demand, rhs: Int) -> Bool { fatalError() }
        public static func <= (lhs: Int, rhs: Subscribers.Demand) -> Bool { fatalError() }
        public static func < (lhs: Subscribers.Demand, rhs: Subscribers.Demand) -> Bool { fatalError() }
        public static func <= (lhs: Subscribers.Demand, rhs: Subscribers.Demand) -> Bool { fatalError() }
        public static func >= (lhs: Subscribers.Demand, rhs: Subscribers.Demand) -> Bool { fatalError() }
        public static func > (lhs: Subscribers.Demand, rhs: Subscribers.Demand) -> Bool { fatalError() }
        public static func == (lhs: Subscribers.Demand, rhs: Int) -> Bool { fatalError() }
        public static func != (lhs: Subscribers.Demand, rhs: Int) -> Bool { fatalError() }
        public static func == (lhs: Int, rhs: Subscribers.Demand) -> Bool { fatalError() }
        public static func != (lhs: Int, rhs: Subscribers.Demand) -> Bool { fatalError() }
        public static func == (lhs: Subscribers.Demand, rhs: Subscribers.Demand) -> Bool { fatalError() }
        public var max: Int? { fatalError() }
        public init(from decoder: any Decoder) throws { fatalError() }
        public func encode(to encoder: any Encoder) throws { fatalError() }
        public func hash(into hasher: inout Hasher) { fatalError() }
    }

    @frozen public enum Completion<Failure> where Failure: Error {
        case finished
        case failure(Failure)
    }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Subscribers.Completion: Equatable where Failure: Equatable {}
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Subscribers.Completion: Hashable where Failure: Hashable {}

// MARK: - AnyCancellable

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
final public class AnyCancellable: Cancellable, Hashable {
    public init(_ cancel: @escaping () -> Void) { fatalError() }
    public init<C>(_ canceller: C) where C: Cancellable { fatalError() }
    final public func cancel() { fatalError() }
    final public func store<C>(in collection: inout C) where C: RangeReplaceableCollection, C.Element == AnyCancellable { fatalError() }
    final public func store(in set: inout Set<AnyCancellable>) { fatalError() }
    public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool { fatalError() }
    final public func hash(into hasher: inout Hasher) { fatalError() }
}

// MARK: - AnyPublisher

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
@frozen public struct AnyPublisher<Output, Failure>: CustomStringConvertible where Failure: Error {
    @usableFromInline internal let box: AnyObject
    public init<P>(_ publisher: P) where Output == P.Output, Failure == P.Failure, P: Publisher { fatalError() }
    public var description: String { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension AnyPublisher: Publisher {
    public func receive<S>(subscriber: S) where Output == S.Input, Failure == S.Failure, S: Subscriber { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Publisher {
    public func eraseToAnyPublisher() -> AnyPublisher<Self.Output, Self.Failure> { fatalError() }
}

// MARK: - Publishers.Map

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public enum Publishers {}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Publishers {
    public struct Map<Upstream, Output>: Publisher where Upstream: Publisher {
        public typealias Failure = Upstream.Failure
        public let upstream: Upstream
        public let transform: (Upstream.Output) -> Output
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output) { fatalError() }
        public func receive<S>(subscriber: S) where Output == S.Input, S: Subscriber, Upstream.Failure == S.Failure { fatalError() }
    }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Publisher {
    public func map<T>(_ transform: @escaping (Self.Output) -> T) -> Publishers.Map<Self, T> { fatalError() }
}

// MARK: - sink / assign

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Publisher {
    public func sink(receiveCompletion: @escaping ((Subscribers.Completion<Self.Failure>) -> Void), receiveValue: @escaping ((Self.Output) -> Void)) -> AnyCancellable { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Publisher where Self.Failure == Never {
    public func sink(receiveValue: @escaping ((Self.Output) -> Void)) -> AnyCancellable { fatalError() }
    public func assign<Root>(to keyPath: ReferenceWritableKeyPath<Root, Self.Output>, on object: Root) -> AnyCancellable { fatalError() }
}

@available(macOS 11.0, iOS 14.0, tvOS 14.0, watchOS 7.0, *)
extension Publisher where Self.Failure == Never {
    public func assign(to published: inout Published<Self.Output>.Publisher) { fatalError() }
}

// MARK: - Published

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
@propertyWrapper public struct Published<Value> {
    public init(wrappedValue: Value) { fatalError() }
    public init(initialValue: Value) { fatalError() }

    public struct Publisher: Combine.Publisher {
        public typealias Output = Value
        public typealias Failure = Never
        public func receive<S>(subscriber: S) where Value == S.Input, S: Subscriber, S.Failure == Never { fatalError() }
    }

    public var projectedValue: Published<Value>.Publisher {
        mutating get { fatalError() }
        // `_modify` in the SDK, from iOS 14 (what `assign(to: &$property)` needs)
        @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
        set { fatalError() }
    }

    @available(*, unavailable, message: "@Published is only available on properties of classes")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    public static subscript<EnclosingSelf: AnyObject>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
    ) -> Value {
        get { fatalError() }
        set { fatalError() }
    }
}

// MARK: - ObservableObject

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol ObservableObject: AnyObject {
    associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher where Self.ObjectWillChangePublisher.Failure == Never
    var objectWillChange: Self.ObjectWillChangePublisher { get }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension ObservableObject where Self.ObjectWillChangePublisher == ObservableObjectPublisher {
    public var objectWillChange: ObservableObjectPublisher { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
final public class ObservableObjectPublisher: Publisher {
    public typealias Output = Void
    public typealias Failure = Never
    public init() { fatalError() }
    final public func receive<S>(subscriber: S) where S: Subscriber, S.Failure == Never, S.Input == () { fatalError() }
    final public func send() { fatalError() }
}
