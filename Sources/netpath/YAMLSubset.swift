/// The part of YAML that web configuration files use: block mappings and block lists by
/// indentation, plain, single- and double-quoted scalars, comments, and `[]`/`{}` for empty
/// collections. Anything else (flow collections with items, block scalars `|`/`>`,
/// anchors, aliases, tags, several documents) is refused with the line it is on, never
/// guessed at. Pure, so it is fuzzed (Fuzz/webconfig.swift).
indirect enum YAMLNode: Equatable, Sendable {
    case scalar(String, line: Int)
    /// An empty value (`key:` with nothing under it).
    case empty(line: Int)
    case mapping([(key: String, value: YAMLNode)], line: Int)
    case list([YAMLNode], line: Int)

    var line: Int {
        switch self {
        case .scalar(_, let line), .empty(let line), .mapping(_, let line), .list(_, let line): line
        }
    }

    static func == (lhs: YAMLNode, rhs: YAMLNode) -> Bool {
        switch (lhs, rhs) {
        case let (.scalar(a, x), .scalar(b, y)): a == b && x == y
        case let (.empty(x), .empty(y)): x == y
        case let (.mapping(a, x), .mapping(b, y)): x == y && a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        case let (.list(a, x), .list(b, y)): a == b && x == y
        default: false
        }
    }
}

/// Why a YAML text was refused: the line (1-based) and what is wrong there.
struct YAMLError: Error, Equatable, CustomStringConvertible {
    var line: Int
    var message: String
    var description: String { "line \(line): \(message)" }
}

enum YAMLSubset {
    /// The most nesting a file may have: web configurations use three levels.
    static let maximumDepth = 32

    private struct Line {
        var number: Int
        var indent: Int
        var text: Substring
    }

    /// The document in `text`; an empty document is an empty mapping.
    static func parse(_ text: String) throws -> YAMLNode {
        var lines = try significantLines(text)
        if let first = lines.first, first.indent == 0, first.text == "---" { lines.removeFirst() }
        if let last = lines.last, last.indent == 0, last.text == "..." { lines.removeLast() }
        guard let first = lines.first else { return .mapping([], line: 1) }
        if let marker = lines.first(where: { $0.indent == 0 && ($0.text == "---" || $0.text == "...") }) {
            throw YAMLError(line: marker.number, message: "only one document is supported")
        }
        guard first.indent == 0 else { throw YAMLError(line: first.number, message: "the document must start at column 1") }
        var index = 0
        let node = try block(lines, &index, indent: 0, depth: 0, line: 1)
        if index < lines.count { throw YAMLError(line: lines[index].number, message: "this line is indented wrongly") }
        return node
    }

    /// Lines with content, comments removed; a tab in the indentation is an error (YAML
    /// forbids it).
    private static func significantLines(_ text: String) throws -> [Line] {
        var lines: [Line] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var content = raw
            if content.last == "\r" { content = content.dropLast() }
            let indent = content.prefix { $0 == " " }.count
            if content.dropFirst(indent).first == "\t" {
                throw YAMLError(line: offset + 1, message: "a tab in the indentation (YAML allows spaces only)")
            }
            let stripped = withoutComment(content.dropFirst(indent))
            let trimmed = stripped.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
            if !trimmed.isEmpty { lines.append(Line(number: offset + 1, indent: indent, text: Substring(String(trimmed)))) }
        }
        return lines
    }

    /// `text` up to a comment: a `#` at the start or after a space, outside quotes.
    private static func withoutComment(_ text: Substring) -> Substring {
        var quote: Character?
        var previous: Character = " "
        for index in text.indices {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                if previous == " " || previous == ":" || previous == "-" || index == text.startIndex { quote = character }
            } else if character == "#" && (previous == " " || previous == "\t") {
                return text[..<index]
            }
            previous = character
        }
        return text
    }

    /// The mapping or list whose lines start at `index` with `indent` spaces. `line`: where
    /// it is said to be, the line of the key or item that holds it.
    private static func block(_ lines: [Line], _ index: inout Int, indent: Int, depth: Int, line: Int) throws -> YAMLNode {
        guard depth < maximumDepth else { throw YAMLError(line: lines[index].number, message: "nested too deeply") }
        if isListItem(lines[index].text) { return try list(lines, &index, indent: indent, depth: depth, line: line) }
        return try mapping(lines, &index, indent: indent, depth: depth, line: line)
    }

    private static func isListItem(_ text: Substring) -> Bool { text == "-" || text.hasPrefix("- ") }

    private static func mapping(_ lines: [Line], _ index: inout Int, indent: Int, depth: Int, line start: Int) throws -> YAMLNode {
        var entries: [(key: String, value: YAMLNode)] = []
        while index < lines.count, lines[index].indent == indent, !isListItem(lines[index].text) {
            let line = lines[index]
            let (key, rest) = try keyAndRest(line)
            if entries.contains(where: { $0.key == key }) { throw YAMLError(line: line.number, message: "'\(key)' appears twice") }
            index += 1
            let value: YAMLNode
            if !rest.isEmpty {
                value = try scalar(rest, line: line.number)
            } else if index < lines.count, lines[index].indent > indent
                        || (lines[index].indent == indent && isListItem(lines[index].text)) {
                // A list may sit at its key's own indentation.
                value = try block(lines, &index, indent: lines[index].indent, depth: depth + 1, line: line.number)
            } else {
                value = .empty(line: line.number)
            }
            entries.append((key, value))
        }
        return .mapping(entries, line: start)
    }

    private static func list(_ lines: [Line], _ index: inout Int, indent: Int, depth: Int, line start: Int) throws -> YAMLNode {
        var items: [YAMLNode] = []
        while index < lines.count, lines[index].indent == indent, isListItem(lines[index].text) {
            let line = lines[index]
            let rest = line.text.dropFirst().drop { $0 == " " }
            index += 1
            if rest.isEmpty {
                if index < lines.count, lines[index].indent > indent {
                    items.append(try block(lines, &index, indent: lines[index].indent, depth: depth + 1, line: line.number))
                } else {
                    items.append(.empty(line: line.number))
                }
            } else if (try? keyAndRest(Line(number: line.number, indent: 0, text: rest))) != nil, !rest.hasPrefix("\""), !rest.hasPrefix("'") {
                throw YAMLError(line: line.number, message: "a mapping inside a list is not supported")
            } else {
                items.append(try scalar(rest, line: line.number))
            }
        }
        return .list(items, line: start)
    }

    /// `key: rest` (rest may be empty); the key plain or quoted.
    private static func keyAndRest(_ line: Line) throws -> (String, Substring) {
        let text = line.text
        var keyEnd = text.startIndex
        var key: String
        if let quote = text.first, quote == "\"" || quote == "'" {
            let (value, end) = try quoted(text, line: line.number)
            key = value
            keyEnd = end
        } else {
            guard let colon = colonIndex(in: text) else {
                throw YAMLError(line: line.number, message: "expected 'key: value'")
            }
            key = String(text[..<colon])
            keyEnd = colon
            if key.first.map({ "[]{}&*!|>%@`".contains($0) }) == true {
                throw YAMLError(line: line.number, message: "'\(key)' is not a supported key")
            }
        }
        guard keyEnd < text.endIndex, text[keyEnd] == ":" else {
            throw YAMLError(line: line.number, message: "expected ':' after the key")
        }
        let rest = text[text.index(after: keyEnd)...]
        guard rest.isEmpty || rest.first == " " else { throw YAMLError(line: line.number, message: "expected a space after ':'") }
        key = key.trimmingSpaces()
        guard !key.isEmpty else { throw YAMLError(line: line.number, message: "an empty key") }
        return (key, rest.drop { $0 == " " })
    }

    /// The first `:` followed by a space or the end of the line.
    private static func colonIndex(in text: Substring) -> Substring.Index? {
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            if text[index] == ":" && (next == text.endIndex || text[next] == " ") { return index }
            index = next
        }
        return nil
    }

    private static func scalar(_ text: Substring, line: Int) throws -> YAMLNode {
        switch text.first {
        case "\"", "'":
            let (value, end) = try quoted(text, line: line)
            guard end == text.endIndex else { throw YAMLError(line: line, message: "text after a quoted value") }
            return .scalar(value, line: line)
        case "[":
            guard text == "[]" else { throw YAMLError(line: line, message: "a flow list ('[...]') is not supported; write one '- item' per line") }
            return .list([], line: line)
        case "{":
            guard text == "{}" else { throw YAMLError(line: line, message: "a flow mapping ('{...}') is not supported; write one 'key: value' per line") }
            return .mapping([], line: line)
        case "|", ">":
            throw YAMLError(line: line, message: "a block scalar ('|' or '>') is not supported")
        case "&", "*", "!":
            throw YAMLError(line: line, message: "anchors, aliases and tags are not supported")
        default:
            return .scalar(String(text), line: line)
        }
    }

    /// A quoted scalar at the start of `text`, and where it ends.
    private static func quoted(_ text: Substring, line: Int) throws -> (String, Substring.Index) {
        let quote = text[text.startIndex]
        var value = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if character == quote {
                // '' inside single quotes is one quote.
                if quote == "'", next < text.endIndex, text[next] == "'" {
                    value.append("'")
                    index = text.index(after: next)
                    continue
                }
                return (value, next)
            }
            if quote == "\"", character == "\\" {
                guard next < text.endIndex else { break }
                let escapes: [Character: Character] = ["\"": "\"", "\\": "\\", "/": "/", "n": "\n", "t": "\t", "r": "\r", "0": "\0", " ": " "]
                guard let escaped = escapes[text[next]] else {
                    throw YAMLError(line: line, message: "the escape '\\\(text[next])' is not supported")
                }
                value.append(escaped)
                index = text.index(after: next)
                continue
            }
            value.append(character)
            index = next
        }
        throw YAMLError(line: line, message: "a quoted value that does not end on its line")
    }
}
