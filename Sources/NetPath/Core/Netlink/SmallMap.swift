/// A map for a handful of entries, kept in an array in the order they were added: a lookup
/// compares keys one by one, with no hashing and no table. A round of socket questions has
/// one to a few per family (``QuestionRound``), and every route event makes one; a
/// `Dictionary` there hashed each key several times per event. Pure.
package struct SmallMap<Key: Equatable, Value>: Sequence, ExpressibleByDictionaryLiteral {
    package typealias Element = (key: Key, value: Value)
    private var entries: [Element] = []

    package init() {}

    package init(dictionaryLiteral elements: (Key, Value)...) {
        for (key, value) in elements { self[key] = value }
    }

    package var count: Int { entries.count }
    package var isEmpty: Bool { entries.isEmpty }

    package subscript(key: Key) -> Value? {
        get {
            for entry in entries where entry.key == key { return entry.value }
            return nil
        }
        set {
            guard let index = entries.firstIndex(where: { $0.key == key }) else {
                if let newValue { entries.append((key, newValue)) }
                return
            }
            if let newValue { entries[index].value = newValue } else { entries.remove(at: index) }
        }
    }

    /// Removes the entry of `key` and returns its value, if it had one.
    @discardableResult
    package mutating func removeValue(forKey key: Key) -> Value? {
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
        return entries.remove(at: index).value
    }

    package mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
    }

    /// The entries that `isIncluded` keeps, as a map.
    package func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> SmallMap {
        var kept = SmallMap()
        kept.entries = try entries.filter(isIncluded)
        return kept
    }

    package func makeIterator() -> IndexingIterator<[Element]> {
        entries.makeIterator()
    }
}

extension SmallMap: Sendable where Key: Sendable, Value: Sendable {}
