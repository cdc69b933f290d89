// What NetPath and the examples use of Apple's Combine, as the iOS 17.4 SDK declares it; availability left out, as Linux ignores it.
public protocol Publisher<Output, Failure> {
    associatedtype Output
    associatedtype Failure: Error
    func receive<S>(subscriber: S) where S: Subscriber, Self.Failure == S.Failure, Self.Output == S.Input
}
public protocol Subscriber<Input, Failure>: CustomCombineIdentifierConvertible {
    associatedtype Input
    associatedtype Failure: Error
    func receive(subscription: any Subscription)
    func receive(_ input: Self.Input) -> Subscribers.Demand
    func receive(completion: Subscribers.Completion<Self.Failure>)
}
public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible { func request(_ demand: Subscribers.Demand) }
public protocol Cancellable { func cancel() }
public struct CombineIdentifier: Hashable, CustomStringConvertible { public var description: String { fatalError() } }
public protocol CustomCombineIdentifierConvertible { var combineIdentifier: CombineIdentifier { get } }
extension CustomCombineIdentifierConvertible where Self: AnyObject { public var combineIdentifier: CombineIdentifier { fatalError() } }

public enum Subscribers {}
extension Subscribers {
    @frozen public struct Demand: Equatable, Comparable, Hashable, Codable, CustomStringConvertible {
        @usableFromInline internal let rawValue: UInt
        public static let none: Subscribers.Demand = Demand(rawValue: 0)
        public var max: Int? { fatalError() }
        internal init(rawValue: UInt) { self.rawValue = rawValue }
        public var description: String { fatalError() }
        public static func += (lhs: inout Subscribers.Demand, rhs: Subscribers.Demand) { fatalError() }
        public static func -= (lhs: inout Subscribers.Demand, rhs: Int) { fatalError() }
        public static func > (lhs: Subscribers.Demand, rhs: Int) -> Bool { fatalError() }
        public static func < (lhs: Subscribers.Demand, rhs: Subscribers.Demand) -> Bool { fatalError() }
        public init(from decoder: any Decoder) throws { fatalError() }
        public func encode(to encoder: any Encoder) throws { fatalError() }
    }
    @frozen public enum Completion<Failure> where Failure: Error { case finished, failure(Failure) }
}

public enum Publishers {}
extension Publishers {
    public struct Map<Upstream, Output>: Publisher where Upstream: Publisher {
        public typealias Failure = Upstream.Failure
        public func receive<S>(subscriber: S) where Output == S.Input, S: Subscriber, Upstream.Failure == S.Failure { fatalError() }
    }
}
extension Publisher { public func map<T>(_ transform: @escaping (Self.Output) -> T) -> Publishers.Map<Self, T> { fatalError() } }
extension Publisher where Self.Failure == Never {
    public func assign(to published: inout Published<Self.Output>.Publisher) { fatalError() }
}

@propertyWrapper public struct Published<Value> {
    public init(wrappedValue: Value) { fatalError() }
    public struct Publisher: Combine.Publisher {
        public typealias Output = Value
        public typealias Failure = Never
        public func receive<S>(subscriber: S) where Value == S.Input, S: Subscriber, S.Failure == Never { fatalError() }
    }
    public var projectedValue: Published<Value>.Publisher {
        mutating get { fatalError() }
        set { fatalError() }  // `_modify` in the SDK
    }
    @available(*, unavailable, message: "@Published is only available on properties of classes")
    public var wrappedValue: Value { get { fatalError() } set { fatalError() } }
    public static subscript<EnclosingSelf: AnyObject>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
    ) -> Value { get { fatalError() } set { fatalError() } }
}
public protocol ObservableObject: AnyObject {
    associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher where Self.ObjectWillChangePublisher.Failure == Never
    var objectWillChange: Self.ObjectWillChangePublisher { get }
}
extension ObservableObject where Self.ObjectWillChangePublisher == ObservableObjectPublisher {
    public var objectWillChange: ObservableObjectPublisher { fatalError() }
}
final public class ObservableObjectPublisher: Publisher {
    public typealias Output = Void
    public typealias Failure = Never
    final public func receive<S>(subscriber: S) where S: Subscriber, S.Failure == Never, S.Input == () { fatalError() }
}
