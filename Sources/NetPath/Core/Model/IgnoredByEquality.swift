/// A stored property that takes no part in its value's `==` and hash: what the package
/// carries along with a public value without making two values users see as the same
/// compare different (``NetworkPath/dnsServers``).
@propertyWrapper
package struct IgnoredByEquality<Value: Sendable>: Hashable, Sendable {
    package var wrappedValue: Value

    package init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }

    package static func == (lhs: Self, rhs: Self) -> Bool { true }

    package func hash(into hasher: inout Hasher) {}
}
