// What NetPathUI and the examples use of SwiftUI, as the iOS 17.4 SDK declares it (View, ViewModifier, App, Scene: as Xcode 16's, main actor); availability left out, as Linux ignores it.
@_exported import Foundation
@_exported import Combine
@_exported import Observation

@MainActor @preconcurrency public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}
extension View where Body == Never {
    @_spi(PrimitiveViewBody) public var body: Never { fatalError() }  // primitive views' body, not in the SDK's public interface
}
extension Never: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}
extension Optional: View where Wrapped: View { public typealias Body = Never }

@resultBuilder public struct ViewBuilder {
    public static func buildExpression<Content>(_ content: Content) -> Content where Content: View { content }
    public static func buildBlock<Content>(_ content: Content) -> Content where Content: View { content }
    @_disfavoredOverload
    public static func buildBlock<each Content>(_ content: repeat each Content) -> TupleView<(repeat each Content)> where repeat each Content: View { fatalError() }
    public static func buildIf<Content>(_ content: Content?) -> Content? where Content: View { content }
    public static func buildEither<TrueContent, FalseContent>(first: TrueContent) -> _ConditionalContent<TrueContent, FalseContent> where TrueContent: View, FalseContent: View { fatalError() }
    public static func buildEither<TrueContent, FalseContent>(second: FalseContent) -> _ConditionalContent<TrueContent, FalseContent> where TrueContent: View, FalseContent: View { fatalError() }
}
@frozen public struct TupleView<T>: View { public typealias Body = Never }
@frozen public struct _ConditionalContent<TrueContent, FalseContent> {}
extension _ConditionalContent: View where TrueContent: View, FalseContent: View { public typealias Body = Never }
@frozen public struct EmptyView: View {
    public init() {}
    public typealias Body = Never
}
@frozen public struct Group<Content> { public typealias Body = Never }
extension Group: View where Content: View { public init(@ViewBuilder content: () -> Content) { fatalError() } }
@frozen public struct VStack<Content>: View where Content: View {
    public init(alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) { fatalError() }
    public typealias Body = Never
}

@frozen public struct LocalizedStringKey: Equatable, ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) { fatalError() }
    public init(stringInterpolation: LocalizedStringKey.StringInterpolation) { fatalError() }
    public struct StringInterpolation: StringInterpolationProtocol {
        public init(literalCapacity: Int, interpolationCount: Int) { fatalError() }
        public mutating func appendLiteral(_ literal: String) { fatalError() }
        public mutating func appendInterpolation(_ string: String) { fatalError() }
        public mutating func appendInterpolation<Subject>(_ subject: Subject, formatter: Formatter? = nil) where Subject: ReferenceConvertible { fatalError() }
    }
}
@frozen public struct Text: Equatable, Sendable {
    public init(verbatim content: String) { fatalError() }
    public init(_ key: LocalizedStringKey, tableName: String? = nil, bundle: Bundle? = nil, comment: StaticString? = nil) { fatalError() }
}
extension Text: View { public typealias Body = Never }
@frozen public struct Image: Equatable, Sendable { public init(systemName: String) { fatalError() } }
extension Image: View { public typealias Body = Never }
public struct Label<Title, Icon>: View where Title: View, Icon: View {
    public init(@ViewBuilder title: () -> Title, @ViewBuilder icon: () -> Icon) { fatalError() }
    @MainActor @preconcurrency public var body: some View { fatalError() }
}
public struct ContentUnavailableView<Label, Description, Actions>: View where Label: View, Description: View, Actions: View {
    public init(@ViewBuilder label: () -> Label, @ViewBuilder description: () -> Description = { EmptyView() }, @ViewBuilder actions: () -> Actions = { EmptyView() }) { fatalError() }
    @MainActor @preconcurrency public var body: some View { fatalError() }
}

public protocol DynamicProperty { mutating func update() }
extension DynamicProperty { public mutating func update() {} }
@frozen @propertyWrapper public struct Environment<Value>: DynamicProperty {
    public var wrappedValue: Value { fatalError() }
    public init(_ objectType: Value.Type) where Value: AnyObject, Value: Observable { fatalError() }
    public init<T>(_ objectType: T.Type) where Value == T?, T: AnyObject, T: Observable { fatalError() }
}
@frozen @propertyWrapper public struct State<Value>: DynamicProperty {
    public init(wrappedValue value: Value) { fatalError() }
    public var wrappedValue: Value { get { fatalError() } nonmutating set { fatalError() } }
}

@MainActor @preconcurrency public protocol ViewModifier {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency func body(content: Self.Content) -> Self.Body
    typealias Content = _ViewModifier_Content<Self>
}
public struct _ViewModifier_Content<Modifier>: View where Modifier: ViewModifier { public typealias Body = Never }
@frozen public struct ModifiedContent<Content, Modifier> { public typealias Body = Never }
extension ModifiedContent: View where Content: View, Modifier: ViewModifier {
    @MainActor @preconcurrency public var body: ModifiedContent<Content, Modifier>.Body { fatalError() }
}

@available(*, unavailable) extension TupleView: Sendable {}
@available(*, unavailable) extension _ConditionalContent: Sendable {}
@available(*, unavailable) extension Group: Sendable {}
@available(*, unavailable) extension VStack: Sendable {}
@available(*, unavailable) extension LocalizedStringKey: Sendable {}
@available(*, unavailable) extension Environment: Sendable {}
@available(*, unavailable) extension State: Sendable {}
@available(*, unavailable) extension ModifiedContent: Sendable {}

@frozen public struct HorizontalAlignment: Equatable {
    public static let center: HorizontalAlignment = HorizontalAlignment()
    internal init() {}
}
@frozen public struct Alignment: Equatable {
    public static let center: Alignment = Alignment()
    internal init() {}
}
@frozen public enum Edge: Int8, CaseIterable, Sendable {
    case top, leading, bottom, trailing
    @frozen public struct Set: OptionSet, Sendable {
        public typealias Element = Edge.Set
        public let rawValue: Int8
        public init(rawValue: Int8) { self.rawValue = rawValue }
        public static let all: Edge.Set = Edge.Set(rawValue: 15)
    }
}
@frozen public enum VerticalEdge: Int8, Hashable, CaseIterable, Sendable { case top, bottom }
@frozen public struct Font: Hashable, Sendable {
    public static let footnote: Font = Font()
    internal init() {}
}
public protocol ShapeStyle: Sendable {}
public struct Material: Sendable { internal init() {} }
extension Material: ShapeStyle {}
extension ShapeStyle where Self == Material {
    public static var regularMaterial: Material { fatalError() }
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public static var bar: Material { fatalError() }
}

extension View {
    public func environment<T>(_ object: T?) -> some View where T: AnyObject, T: Observable { fatalError() }
    public func modifier<T>(_ modifier: T) -> ModifiedContent<Self, T> { fatalError() }
    public func overlay<V>(alignment: Alignment = .center, @ViewBuilder content: () -> V) -> some View where V: View { fatalError() }
    public func safeAreaInset<V>(edge: VerticalEdge, alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> V) -> some View where V: View { fatalError() }
    public func onAppear(perform action: (() -> Void)? = nil) -> some View { fatalError() }
    public func padding(_ length: CGFloat) -> some View { fatalError() }
    public func frame(minWidth: CGFloat? = nil, idealWidth: CGFloat? = nil, maxWidth: CGFloat? = nil, minHeight: CGFloat? = nil, idealHeight: CGFloat? = nil, maxHeight: CGFloat? = nil, alignment: Alignment = .center) -> some View { fatalError() }
    public func background<S>(_ style: S, ignoresSafeAreaEdges edges: Edge.Set = .all) -> some View where S: ShapeStyle { fatalError() }
    public func font(_ font: Font?) -> some View { fatalError() }
}

@MainActor @preconcurrency public protocol PreviewProvider {
    associatedtype Previews: View
    @ViewBuilder @MainActor @preconcurrency static var previews: Self.Previews { get }
}
@MainActor @preconcurrency public protocol App {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
    @MainActor @preconcurrency init()
}
extension App {
    @MainActor @preconcurrency public static func main() { fatalError() }
}
@MainActor @preconcurrency public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}
extension Never: Scene {}
@resultBuilder public struct SceneBuilder {
    public static func buildBlock<Content>(_ content: Content) -> Content where Content: Scene { content }
    public static func buildExpression<Content>(_ content: Content) -> Content where Content: Scene { content }
}
public struct WindowGroup<Content>: Scene where Content: View {
    public init(@ViewBuilder content: () -> Content) { fatalError() }
    @MainActor @preconcurrency public var body: some Scene { fatalError() }
}
