// Type-checking stub of Apple's SwiftUI framework, for Linux CI only.
// Declarations only: bodies are `fatalError()` (for `some View` results the underlying
// type is therefore Never) or trivial pass-throughs in ViewBuilder. Nothing here runs.
// Signatures first transcribed from Apple's documentation (https://developer.apple.com/documentation/swiftui/...):
//   view, viewbuilder, tupleview, _conditionalcontent, emptyview, anyview, group, vstack, hstack,
//   spacer, text, localizedstringkey, image, label, contentunavailableview, environment,
//   environmentvalues, dynamicproperty, state, view/environment(_:), viewmodifier, modifiedcontent,
//   view/modifier(_:), view/overlay(alignment:content:), view/safeareainset(edge:alignment:spacing:content:),
//   view/padding(_:_:), view/frame(minwidth:...), view/background(_:ignoressafeareaedges:),
//   view/background(alignment:content:), view/foregroundstyle(_:), view/font(_:), view/transition(_:),
//   view/animation(_:value:), view/accessibilityelement(children:), view/accessibilitylabel(_:),
//   view/multilinetextalignment(_:), alignment, horizontalalignment, verticaledge, edge, font,
//   shapestyle, color, material, hierarchicalshapestyle, anytransition, animation, previewprovider.
// Every declaration is as the iOS 17.4 SDK's SwiftUI.swiftinterface (Xcode 15.3) declares it, with
// what Xcode 16 changed and NetPath relies on: View and ViewModifier are @MainActor @preconcurrency
// (the backport SDK of ../shared/apple-sdk carries the same); scripts/compare-apple-stubs.sh checks
// each declaration against that SDK. So view initializers and modifiers are not `nonisolated` here
// (Xcode 16 made many of them so): a use from outside the main actor fails here, as it may on a
// real SDK. Xcode 16 also moved most of this to SwiftUICore, re-exported by SwiftUI; one module here.
// Only the surface NetPath uses is declared.

@_exported import Foundation    // SwiftUI re-exports Foundation (Bundle, CGFloat on Linux, ...)
@_exported import Combine       // SwiftUI re-exports Combine (ObservableObject, Published)
@_exported import Observation   // SwiftUI re-exports Observation (Observable, @Observable)

// MARK: - View

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@MainActor @preconcurrency public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Never: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Optional: View where Wrapped: View {
    public typealias Body = Never
}

// SwiftUI's primitive views (Text, EmptyView, VStack, ...) declare `typealias Body = Never` and no
// `body`: their witness is not in the SDK's public interface. This SPI one stands in for it, and
// is left out of the public interface in the same way.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension View where Body == Never {
    @_spi(PrimitiveViewBody) public var body: Never { fatalError() }
}

// MARK: - ViewBuilder

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@resultBuilder public struct ViewBuilder {
    public static func buildExpression<Content>(_ content: Content) -> Content where Content: View { content }
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content>(_ content: Content) -> Content where Content: View { content }
    @_disfavoredOverload
    public static func buildBlock<each Content>(_ content: repeat each Content) -> TupleView<(repeat each Content)> where repeat each Content: View { fatalError() }
    public static func buildIf<Content>(_ content: Content?) -> Content? where Content: View { content }
    public static func buildEither<TrueContent, FalseContent>(first: TrueContent) -> _ConditionalContent<TrueContent, FalseContent> where TrueContent: View, FalseContent: View { fatalError() }
    public static func buildEither<TrueContent, FalseContent>(second: FalseContent) -> _ConditionalContent<TrueContent, FalseContent> where TrueContent: View, FalseContent: View { fatalError() }
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
    public static func buildLimitedAvailability<Content>(_ content: Content) -> AnyView where Content: View { fatalError() }
}

// MARK: - Structural views

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct TupleView<T>: View {
    public var value: T
    public init(_ value: T) { fatalError() }
    public typealias Body = Never
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct _ConditionalContent<TrueContent, FalseContent> {}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension _ConditionalContent: View where TrueContent: View, FalseContent: View {
    public typealias Body = Never
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct EmptyView: View {
    public init() {}
    public typealias Body = Never
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct AnyView: View {
    public init<V>(_ view: V) where V: View { fatalError() }
    public init<V>(erasing view: V) where V: View { fatalError() }
    public typealias Body = Never
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct Group<Content> {
    public typealias Body = Never
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Group: View where Content: View {
    public init(@ViewBuilder content: () -> Content) { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct VStack<Content>: View where Content: View {
    public init(alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) { fatalError() }
    public typealias Body = Never
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct HStack<Content>: View where Content: View {
    public init(alignment: VerticalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) { fatalError() }
    public typealias Body = Never
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct Spacer: View {
    public var minLength: CGFloat?
    public init(minLength: CGFloat? = nil) { fatalError() }
    public typealias Body = Never
}

// The SDK's `@available(*, unavailable) extension …: Sendable {}`: without it these @frozen
// types would be implicitly Sendable here.
@available(*, unavailable) extension TupleView: Sendable {}
@available(*, unavailable) extension _ConditionalContent: Sendable {}
@available(*, unavailable) extension AnyView: Sendable {}
@available(*, unavailable) extension Group: Sendable {}
@available(*, unavailable) extension VStack: Sendable {}
@available(*, unavailable) extension HStack: Sendable {}

// MARK: - Text, LocalizedStringKey

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct LocalizedStringKey: Equatable, ExpressibleByStringInterpolation {
    public init(_ value: String) { fatalError() }
    public init(stringLiteral value: String) { fatalError() }
    public init(stringInterpolation: LocalizedStringKey.StringInterpolation) { fatalError() }
    public struct StringInterpolation: StringInterpolationProtocol {
        public init(literalCapacity: Int, interpolationCount: Int) { fatalError() }
        public mutating func appendLiteral(_ literal: String) { fatalError() }
        public mutating func appendInterpolation(_ string: String) { fatalError() }
        public mutating func appendInterpolation<Subject>(_ subject: Subject, formatter: Formatter? = nil) where Subject: ReferenceConvertible { fatalError() }
        public mutating func appendInterpolation<Subject>(_ subject: Subject, formatter: Formatter? = nil) where Subject: NSObject { fatalError() }
        public mutating func appendInterpolation<T>(_ value: T) where T: _FormatSpecifiable { fatalError() }
        public mutating func appendInterpolation<T>(_ value: T, specifier: String) where T: _FormatSpecifiable { fatalError() }
        @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
        public mutating func appendInterpolation(_ text: Text) { fatalError() }
    }
}

@available(*, unavailable) extension LocalizedStringKey: Sendable {}

/// Underscored protocol from the SDK; conformers are the integer and floating-point types.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol _FormatSpecifiable: Equatable {
    associatedtype _Arg: CVarArg
    var _arg: Self._Arg { get }
    var _specifier: String { get }
}
extension Int: _FormatSpecifiable { public var _arg: Int64 { fatalError() }; public var _specifier: String { fatalError() } }
extension Int8: _FormatSpecifiable { public var _arg: Int32 { fatalError() }; public var _specifier: String { fatalError() } }
extension Int16: _FormatSpecifiable { public var _arg: Int32 { fatalError() }; public var _specifier: String { fatalError() } }
extension Int32: _FormatSpecifiable { public var _arg: Int32 { fatalError() }; public var _specifier: String { fatalError() } }
extension Int64: _FormatSpecifiable { public var _arg: Int64 { fatalError() }; public var _specifier: String { fatalError() } }
extension UInt: _FormatSpecifiable { public var _arg: UInt64 { fatalError() }; public var _specifier: String { fatalError() } }
extension UInt8: _FormatSpecifiable { public var _arg: UInt32 { fatalError() }; public var _specifier: String { fatalError() } }
extension UInt16: _FormatSpecifiable { public var _arg: UInt32 { fatalError() }; public var _specifier: String { fatalError() } }
extension UInt32: _FormatSpecifiable { public var _arg: UInt32 { fatalError() }; public var _specifier: String { fatalError() } }
extension UInt64: _FormatSpecifiable { public var _arg: UInt64 { fatalError() }; public var _specifier: String { fatalError() } }
extension Float: _FormatSpecifiable { public var _arg: Float { fatalError() }; public var _specifier: String { fatalError() } }
extension Double: _FormatSpecifiable { public var _arg: Double { fatalError() }; public var _specifier: String { fatalError() } }
extension CGFloat: _FormatSpecifiable { public var _arg: CGFloat { fatalError() }; public var _specifier: String { fatalError() } }

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct Text: Equatable, Sendable {
    public init(verbatim content: String) { fatalError() }
    @_disfavoredOverload
    public init<S>(_ content: S) where S: StringProtocol { fatalError() }
    public init(_ key: LocalizedStringKey, tableName: String? = nil, bundle: Bundle? = nil, comment: StaticString? = nil) { fatalError() }
    public static func == (a: Text, b: Text) -> Bool { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Text: View {
    public typealias Body = Never
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Text {
    public func font(_ font: Font?) -> Text { fatalError() }
    public func bold() -> Text { fatalError() }
}

// MARK: - Image, Label

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct Image: Equatable, Sendable {
    @available(macOS 11.0, *)
    public init(systemName: String) { fatalError() }
    public static func == (lhs: Image, rhs: Image) -> Bool { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Image: View {
    public typealias Body = Never
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
public struct Label<Title, Icon>: View where Title: View, Icon: View {
    public init(@ViewBuilder title: () -> Title, @ViewBuilder icon: () -> Icon) { fatalError() }
    @MainActor @preconcurrency public var body: some View { fatalError() }
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
extension Label where Title == Text, Icon == Image {
    public init(_ titleKey: LocalizedStringKey, systemImage name: String) { fatalError() }
    @_disfavoredOverload
    public init<S>(_ title: S, systemImage name: String) where S: StringProtocol { fatalError() }
}

// MARK: - ContentUnavailableView

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
public struct ContentUnavailableView<Label, Description, Actions>: View where Label: View, Description: View, Actions: View {
    public init(@ViewBuilder label: () -> Label, @ViewBuilder description: () -> Description = { EmptyView() }, @ViewBuilder actions: () -> Actions = { EmptyView() }) { fatalError() }
    @MainActor @preconcurrency public var body: some View { fatalError() }
}

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
extension ContentUnavailableView where Label == SwiftUI.Label<Text, Image>, Description == Text?, Actions == EmptyView {
    public init(_ title: LocalizedStringKey, systemImage name: String, description: Text? = nil) { fatalError() }
    @_disfavoredOverload
    public init<S>(_ title: S, systemImage name: String, description: Text? = nil) where S: StringProtocol { fatalError() }
}

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
extension ContentUnavailableView where Label == SearchUnavailableContent.Label, Description == SearchUnavailableContent.Description, Actions == SearchUnavailableContent.Actions {
    public static var search: ContentUnavailableView<SearchUnavailableContent.Label, SearchUnavailableContent.Description, SearchUnavailableContent.Actions> { fatalError() }
    public static func search(text: String) -> ContentUnavailableView<Label, Description, Actions> { fatalError() }
}

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
public struct SearchUnavailableContent {
    public struct Label: View { @MainActor @preconcurrency public var body: some View { fatalError() } }
    public struct Description: View { @MainActor @preconcurrency public var body: some View { fatalError() } }
    public struct Actions: View { @MainActor @preconcurrency public var body: some View { fatalError() } }
}

// MARK: - Environment, State

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol DynamicProperty {
    mutating func update()
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension DynamicProperty {
    public mutating func update() {}
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct EnvironmentValues: CustomStringConvertible {
    public init() { fatalError() }
    public var description: String { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen @propertyWrapper public struct Environment<Value>: DynamicProperty {
    public init(_ keyPath: KeyPath<EnvironmentValues, Value>) { fatalError() }
    public var wrappedValue: Value { fatalError() }
}

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
extension Environment {
    public init(_ objectType: Value.Type) where Value: AnyObject, Value: Observable { fatalError() }
    public init<T>(_ objectType: T.Type) where Value == T?, T: AnyObject, T: Observable { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen @propertyWrapper public struct State<Value>: DynamicProperty {
    public init(wrappedValue value: Value) { fatalError() }
    public init(initialValue value: Value) { fatalError() }
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set { fatalError() }
    }
}

@available(*, unavailable) extension Environment: Sendable {}
@available(*, unavailable) extension State: Sendable {}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension State where Value: ExpressibleByNilLiteral {
    public init() { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension View {
    public func environment<V>(_ keyPath: WritableKeyPath<EnvironmentValues, V>, _ value: V) -> some View { fatalError() }
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    public func environment<T>(_ object: T?) -> some View where T: AnyObject, T: Observable { fatalError() }
}

// MARK: - ViewModifier, ModifiedContent

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@MainActor @preconcurrency public protocol ViewModifier {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency func body(content: Self.Content) -> Self.Body
    typealias Content = _ViewModifier_Content<Self>
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension ViewModifier where Body == Never {
    public func body(content: Content) -> Body { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct _ViewModifier_Content<Modifier>: View where Modifier: ViewModifier {
    public typealias Body = Never
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct ModifiedContent<Content, Modifier> {
    public typealias Body = Never
    public var content: Content
    public var modifier: Modifier
    public init(content: Content, modifier: Modifier) { self.content = content; self.modifier = modifier }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension ModifiedContent: View where Content: View, Modifier: ViewModifier {
    @MainActor @preconcurrency public var body: ModifiedContent<Content, Modifier>.Body { fatalError() }
}

@available(*, unavailable) extension ModifiedContent: Sendable {}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension View {
    public func modifier<T>(_ modifier: T) -> ModifiedContent<Self, T> { fatalError() }
}

// MARK: - Geometry & layout types

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct HorizontalAlignment: Equatable {
    public static let leading: HorizontalAlignment = HorizontalAlignment()
    public static let center: HorizontalAlignment = HorizontalAlignment()
    public static let trailing: HorizontalAlignment = HorizontalAlignment()
    internal init() {}
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct VerticalAlignment: Equatable {
    public static let top: VerticalAlignment = VerticalAlignment()
    public static let center: VerticalAlignment = VerticalAlignment()
    public static let bottom: VerticalAlignment = VerticalAlignment()
    public static let firstTextBaseline: VerticalAlignment = VerticalAlignment()
    public static let lastTextBaseline: VerticalAlignment = VerticalAlignment()
    internal init() {}
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct Alignment: Equatable {
    public var horizontal: HorizontalAlignment
    public var vertical: VerticalAlignment
    @inlinable public init(horizontal: HorizontalAlignment, vertical: VerticalAlignment) {
        self.horizontal = horizontal; self.vertical = vertical
    }
    public static let center: Alignment = Alignment(horizontal: .center, vertical: .center)
    public static let leading: Alignment = Alignment(horizontal: .leading, vertical: .center)
    public static let trailing: Alignment = Alignment(horizontal: .trailing, vertical: .center)
    public static let top: Alignment = Alignment(horizontal: .center, vertical: .top)
    public static let bottom: Alignment = Alignment(horizontal: .center, vertical: .bottom)
    public static let topLeading: Alignment = Alignment(horizontal: .leading, vertical: .top)
    public static let topTrailing: Alignment = Alignment(horizontal: .trailing, vertical: .top)
    public static let bottomLeading: Alignment = Alignment(horizontal: .leading, vertical: .bottom)
    public static let bottomTrailing: Alignment = Alignment(horizontal: .trailing, vertical: .bottom)
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public enum Edge: Int8, CaseIterable, Sendable {
    case top, leading, bottom, trailing
    @frozen public struct Set: OptionSet, Sendable {
        public typealias Element = Edge.Set
        public let rawValue: Int8
        public init(rawValue: Int8) { self.rawValue = rawValue }
        public static let top: Edge.Set = Edge.Set(rawValue: 1 << 0)
        public static let leading: Edge.Set = Edge.Set(rawValue: 1 << 1)
        public static let bottom: Edge.Set = Edge.Set(rawValue: 1 << 2)
        public static let trailing: Edge.Set = Edge.Set(rawValue: 1 << 3)
        public static let all: Edge.Set = [.top, .leading, .bottom, .trailing]
        public static let horizontal: Edge.Set = [.leading, .trailing]
        public static let vertical: Edge.Set = [.top, .bottom]
        public init(_ e: Edge) { self.init(rawValue: 1 << e.rawValue) }
    }
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
@frozen public enum VerticalEdge: Int8, Hashable, CaseIterable, Sendable {
    case top, bottom
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public enum TextAlignment: Hashable, CaseIterable, Sendable {
    case leading, center, trailing
}

// MARK: - Font

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct Font: Hashable, Sendable {
    public static let largeTitle: Font = Font()
    public static let title: Font = Font()
    public static let headline: Font = Font()
    public static let subheadline: Font = Font()
    public static let body: Font = Font()
    public static let callout: Font = Font()
    public static let footnote: Font = Font()
    public static let caption: Font = Font()
    public func bold() -> Font { fatalError() }
    internal init() {}
}

// MARK: - ShapeStyle, Color, Material

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol ShapeStyle: Sendable {}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct Color: Hashable, CustomStringConvertible, Sendable {
    public var description: String { fatalError() }
    public static let red: Color = Color()
    public static let orange: Color = Color()
    public static let yellow: Color = Color()
    public static let green: Color = Color()
    public static let blue: Color = Color()
    public static let gray: Color = Color()
    public static let black: Color = Color()
    public static let white: Color = Color()
    public static let clear: Color = Color()
    public static let primary: Color = Color()
    public static let secondary: Color = Color()
    internal init() {}
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Color: ShapeStyle {}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Color: View {
    public typealias Body = Never
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
public struct Material: Sendable {
    internal init() {}
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 10.0, *)
extension Material {
    public static let regular: Material = Material()
    public static let thick: Material = Material()
    public static let thin: Material = Material()
    public static let ultraThin: Material = Material()
    public static let ultraThick: Material = Material()
}

@available(iOS 15.0, macOS 12.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
extension Material {
    public static let bar: Material = Material()
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
extension Material: ShapeStyle {}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
@frozen public struct HierarchicalShapeStyle: ShapeStyle {
    public static let primary: HierarchicalShapeStyle = HierarchicalShapeStyle()
    public static let secondary: HierarchicalShapeStyle = HierarchicalShapeStyle()
    public static let tertiary: HierarchicalShapeStyle = HierarchicalShapeStyle()
    public static let quaternary: HierarchicalShapeStyle = HierarchicalShapeStyle()
    internal init() {}
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
extension ShapeStyle where Self == HierarchicalShapeStyle {
    public static var primary: HierarchicalShapeStyle { fatalError() }
    public static var secondary: HierarchicalShapeStyle { fatalError() }
    public static var tertiary: HierarchicalShapeStyle { fatalError() }
    public static var quaternary: HierarchicalShapeStyle { fatalError() }
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 10.0, *)
extension ShapeStyle where Self == Material {
    public static var regularMaterial: Material { fatalError() }
    public static var thickMaterial: Material { fatalError() }
    public static var thinMaterial: Material { fatalError() }
    public static var ultraThinMaterial: Material { fatalError() }
    public static var ultraThickMaterial: Material { fatalError() }
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public static var bar: Material { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension ShapeStyle where Self == Color {
    public static var red: Color { fatalError() }
    public static var orange: Color { fatalError() }
    public static var yellow: Color { fatalError() }
    public static var green: Color { fatalError() }
    public static var blue: Color { fatalError() }
    public static var gray: Color { fatalError() }
    public static var black: Color { fatalError() }
    public static var white: Color { fatalError() }
    public static var clear: Color { fatalError() }
}

// MARK: - Transition, Animation

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct AnyTransition {
    // `static let` in the SDK (Swift 5 mode); computed here, as a Swift 6 module cannot store a
    // non-Sendable static. Clients see the same get-only property.
    public static var opacity: AnyTransition { fatalError() }
    public static func move(edge: Edge) -> AnyTransition { fatalError() }
    public func combined(with other: AnyTransition) -> AnyTransition { fatalError() }
    internal init() {}
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@frozen public struct Animation: Equatable, Sendable {
    public static let `default`: Animation = Animation()
    public static var easeInOut: Animation { fatalError() }
    public static func easeInOut(duration: TimeInterval) -> Animation { fatalError() }
    public static func == (lhs: Animation, rhs: Animation) -> Bool { fatalError() }
    internal init() {}
}

// MARK: - Accessibility

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct AccessibilityChildBehavior: Hashable {
    // `static let` in the SDK; computed here (see AnyTransition.opacity)
    public static var ignore: AccessibilityChildBehavior { fatalError() }
    public static var contain: AccessibilityChildBehavior { fatalError() }
    public static var combine: AccessibilityChildBehavior { fatalError() }
    internal init() {}
}

@available(*, unavailable) extension AnyTransition: Sendable {}
@available(*, unavailable) extension AccessibilityChildBehavior: Sendable {}

// MARK: - View modifiers

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension View {
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func overlay<V>(alignment: Alignment = .center, @ViewBuilder content: () -> V) -> some View where V: View { fatalError() }

    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func safeAreaInset<V>(edge: VerticalEdge, alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> V) -> some View where V: View { fatalError() }

    // developer.apple.com/documentation/swiftui/view/onappear(perform:) (iOS 13)
    public func onAppear(perform action: (() -> Void)? = nil) -> some View { fatalError() }
    // developer.apple.com/documentation/swiftui/view/ondisappear(perform:) (iOS 13)
    public func onDisappear(perform action: (() -> Void)? = nil) -> some View { fatalError() }

    public func padding(_ edges: Edge.Set = .all, _ length: CGFloat? = nil) -> some View { fatalError() }
    public func padding(_ length: CGFloat) -> some View { fatalError() }

    public func frame(minWidth: CGFloat? = nil, idealWidth: CGFloat? = nil, maxWidth: CGFloat? = nil, minHeight: CGFloat? = nil, idealHeight: CGFloat? = nil, maxHeight: CGFloat? = nil, alignment: Alignment = .center) -> some View { fatalError() }

    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func background<S>(_ style: S, ignoresSafeAreaEdges edges: Edge.Set = .all) -> some View where S: ShapeStyle { fatalError() }

    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func background<V>(alignment: Alignment = .center, @ViewBuilder content: () -> V) -> some View where V: View { fatalError() }

    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func foregroundStyle<S>(_ style: S) -> some View where S: ShapeStyle { fatalError() }

    public func font(_ font: Font?) -> some View { fatalError() }

    @_disfavoredOverload
    public func transition(_ t: AnyTransition) -> some View { fatalError() }

    public func animation<V>(_ animation: Animation?, value: V) -> some View where V: Equatable { fatalError() }

    public func accessibilityElement(children: AccessibilityChildBehavior = .ignore) -> some View { fatalError() }

    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
    public func accessibilityLabel(_ label: Text) -> ModifiedContent<Self, AccessibilityAttachmentModifier> { fatalError() }

    public func multilineTextAlignment(_ alignment: TextAlignment) -> some View { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct AccessibilityAttachmentModifier: ViewModifier {
    public typealias Body = Never
}

// MARK: - Previews

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@MainActor @preconcurrency public protocol PreviewProvider {
    associatedtype Previews: View
    @ViewBuilder @MainActor @preconcurrency static var previews: Self.Previews { get }
}

// MARK: - App and Scene
// developer.apple.com/documentation/swiftui/app (iOS 14): @MainActor @preconcurrency protocol App.
// App and Scene are as Xcode 16 and later declare them, on purpose: the iOS 17.4 SDK (and the
// backport SDK, which lacks this Xcode 16 change) has `protocol App` and `protocol Scene` with
// @MainActor(unsafe) members only, so compare-apple-stubs.sh reports these two. The README's
// App example needs them: `@State private var networkMonitor = NetworkMonitor()` in an App is a
// "main actor-isolated default value in a nonisolated context" otherwise.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
@MainActor @preconcurrency public protocol App {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
    @MainActor @preconcurrency init()
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
extension App {
    @MainActor @preconcurrency public static func main() { fatalError() }
}

// developer.apple.com/documentation/swiftui/scene (iOS 14); Xcode 16's declaration (see App)
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
@MainActor @preconcurrency public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

// developer.apple.com/documentation/swiftui/scenebuilder (iOS 14)
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
@resultBuilder public struct SceneBuilder {
    public static func buildBlock<Content>(_ content: Content) -> Content where Content: Scene { content }
    public static func buildExpression<Content>(_ content: Content) -> Content where Content: Scene { content }
}

// developer.apple.com/documentation/swiftui/windowgroup (iOS 14)
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
public struct WindowGroup<Content>: Scene where Content: View {
    public init(@ViewBuilder content: () -> Content) { fatalError() }
    @MainActor @preconcurrency public var body: some Scene { fatalError() }
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
extension Never: Scene {}
