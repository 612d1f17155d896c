/// A JSON value (RFC 8259) read from one line of text, with the column where each value and member name starts,
/// so that a problem in a generator's output can be shown as `path:line:column`.
///
/// Objects keep their members in the order written, repeated names included: deciding what a repeated name means
/// is for the consumer, as with repeated keys in a notification file. Numbers are kept as written, since the value
/// of a notification key is text.
struct PositionedJSON: Sendable {
    indirect enum Value: Sendable {
        case string(String)
        /// A number exactly as written (`3`, `-1.5e3`).
        case number(String)
        case bool(Bool)
        case null
        case array([PositionedJSON])
        case object([Member])
    }

    /// `"name": value` in an object.
    struct Member: Sendable {
        var name: String
        /// Where the name's opening quote is.
        var column: Int
        var value: PositionedJSON
    }

    /// Why a line is not JSON, and where: the column counts Unicode scalars from 1.
    struct SyntaxError: Error, Equatable, Sendable {
        var column: Int
        /// A lower-case phrase without a full stop: "expected ':' after the member name, found '='".
        var reason: String
    }

    var value: Value
    /// Where the value starts (for a string, its opening quote), counting Unicode scalars from 1.
    var column: Int

    /// Nesting deeper than this is refused, so that a line of ten thousand `[` cannot exhaust the stack.
    static let maximumDepth = 32

    /// Parses `line`, which must hold exactly one JSON value (whitespace around it is allowed).
    static func parse(_ line: String) throws(SyntaxError) -> PositionedJSON {
        let bytes = Array(line.utf8)
        // Generators print ASCII nearly always; then a byte is a scalar, and strings can be cut out of the bytes.
        var parser =
            bytes.allSatisfy({ $0 < 0x80 })
            ? Parser(scalars: bytes.map { Unicode.Scalar($0) }, ascii: bytes)
            : Parser(scalars: Array(line.unicodeScalars), ascii: nil)
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.isAtEnd else { throw parser.error("unexpected \(parser.found) after the value") }
        return value
    }

    /// What kind of value this is, with an article, for messages: "a number", "an array".
    var kind: String {
        switch value {
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A recursive-descent parser over the Unicode scalars of one line.
private struct Parser {
    let scalars: [Unicode.Scalar]
    /// The line's bytes when it is all ASCII (so that byte `i` is scalar `i`).
    let ascii: [UInt8]?
    var index = 0
    var depth = 0

    init(scalars: [Unicode.Scalar], ascii: [UInt8]?) {
        self.scalars = scalars
        self.ascii = ascii
    }

    var isAtEnd: Bool { index >= scalars.count }
    var column: Int { index + 1 }
    var current: Unicode.Scalar? { isAtEnd ? nil : scalars[index] }

    /// The scalar at the current position as a message shows it: `'x'`, `U+0007`, or "the end of the line".
    var found: String {
        guard let scalar = current else { return "the end of the line" }
        return Self.describe(scalar)
    }

    static func describe(_ scalar: Unicode.Scalar) -> String {
        if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return "'\(scalar)'"
    }

    func error(_ reason: String, at column: Int? = nil) -> PositionedJSON.SyntaxError {
        PositionedJSON.SyntaxError(column: column ?? self.column, reason: reason)
    }

    mutating func skipWhitespace() {
        while let scalar = current, scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
            index += 1
        }
    }

    mutating func value() throws(PositionedJSON.SyntaxError) -> PositionedJSON {
        skipWhitespace()
        let start = column
        switch current {
        case "{": return PositionedJSON(value: try object(), column: start)
        case "[": return PositionedJSON(value: try array(), column: start)
        case "\"": return PositionedJSON(value: .string(try string()), column: start)
        case "t": return PositionedJSON(value: try literal("true", .bool(true)), column: start)
        case "f": return PositionedJSON(value: try literal("false", .bool(false)), column: start)
        case "n": return PositionedJSON(value: try literal("null", .null), column: start)
        case let scalar? where scalar == "-" || ("0"..."9").contains(scalar):
            return PositionedJSON(value: .number(try number()), column: start)
        default: throw error("expected a value, found \(found)")
        }
    }

    mutating func enter() throws(PositionedJSON.SyntaxError) {
        depth += 1
        guard depth <= PositionedJSON.maximumDepth else {
            throw error("values nested more than \(PositionedJSON.maximumDepth) deep")
        }
        index += 1
    }

    mutating func object() throws(PositionedJSON.SyntaxError) -> PositionedJSON.Value {
        try enter()
        defer { depth -= 1 }
        var members: [PositionedJSON.Member] = []
        skipWhitespace()
        if current == "}" {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == "\"" else { throw error("expected a member name in double quotes, found \(found)") }
            let nameColumn = column
            let name = try string()
            skipWhitespace()
            guard current == ":" else { throw error("expected ':' after the member name, found \(found)") }
            index += 1
            members.append(PositionedJSON.Member(name: name, column: nameColumn, value: try value()))
            skipWhitespace()
            switch current {
            case ",":
                index += 1
            case "}":
                index += 1
                return .object(members)
            default:
                throw error("expected ',' or '}' after a member, found \(found)")
            }
        }
    }

    mutating func array() throws(PositionedJSON.SyntaxError) -> PositionedJSON.Value {
        try enter()
        defer { depth -= 1 }
        var elements: [PositionedJSON] = []
        skipWhitespace()
        if current == "]" {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            switch current {
            case ",":
                index += 1
            case "]":
                index += 1
                return .array(elements)
            default:
                throw error("expected ',' or ']' after an element, found \(found)")
            }
        }
    }

    /// A string starting at the current `"`; returns its value with the escapes resolved.
    mutating func string() throws(PositionedJSON.SyntaxError) -> String {
        let start = column
        index += 1
        if let ascii {
            // Without escapes or control characters, the string is the bytes up to the closing quote.
            var end = index
            while end < ascii.count && ascii[end] >= 0x20 && ascii[end] != UInt8(ascii: "\"")
                && ascii[end] != UInt8(ascii: "\\")
            {
                end += 1
            }
            if end < ascii.count && ascii[end] == UInt8(ascii: "\"") {
                defer { index = end + 1 }
                return String(decoding: ascii[index..<end], as: UTF8.self)
            }
        }
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = current else { throw error("unterminated string", at: start) }
            switch scalar {
            case "\"":
                index += 1
                return String(result)
            case "\\":
                result.append(try escape())
            case _ where scalar.value < 0x20:
                throw error("\(Self.describe(scalar)) inside a string; write it as an escape such as \\n")
            default:
                result.append(scalar)
                index += 1
            }
        }
    }

    /// The escape starting at the current `\`.
    mutating func escape() throws(PositionedJSON.SyntaxError) -> Unicode.Scalar {
        let start = column
        index += 1
        guard let letter = current else { throw error("unterminated string", at: start) }
        index += 1
        switch letter {
        case "\"", "\\", "/": return letter
        case "b": return "\u{08}"
        case "f": return "\u{0C}"
        case "n": return "\n"
        case "r": return "\r"
        case "t": return "\t"
        case "u":
            let unit = try hexUnit(escapeStart: start)
            if (0xD800..<0xDC00).contains(unit) {
                // A character outside the Basic Multilingual Plane is written as a surrogate pair.
                let lowStart = column
                guard current == "\\", index + 1 < scalars.count, scalars[index + 1] == "u" else {
                    throw error("unpaired surrogate in \\u escape", at: start)
                }
                index += 2
                let low = try hexUnit(escapeStart: lowStart)
                guard (0xDC00..<0xE000).contains(low) else {
                    throw error("unpaired surrogate in \\u escape", at: start)
                }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(unit) else {
                throw error("unpaired surrogate in \\u escape", at: start)
            }
            return scalar
        default:
            throw error("invalid escape '\\\(letter)' in a string", at: start)
        }
    }

    /// The four hex digits after `\u`.
    mutating func hexUnit(escapeStart: Int) throws(PositionedJSON.SyntaxError) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard let scalar = current, let digit = Int(String(scalar), radix: 16) else {
                throw error("expected four hex digits after \\u", at: escapeStart)
            }
            unit = unit << 4 + UInt32(digit)
            index += 1
        }
        return unit
    }

    mutating func literal(
        _ word: String, _ value: PositionedJSON.Value
    ) throws(PositionedJSON.SyntaxError) -> PositionedJSON.Value {
        let start = index
        for expected in word.unicodeScalars {
            guard current == expected else {
                index = start
                throw error("expected a value, found \(found)")
            }
            index += 1
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, returned as written.
    mutating func number() throws(PositionedJSON.SyntaxError) -> String {
        let start = index
        func isDigit(_ scalar: Unicode.Scalar?) -> Bool { scalar.map { ("0"..."9").contains($0) } ?? false }
        if current == "-" { index += 1 }
        guard isDigit(current) else { throw error("expected a digit in the number, found \(found)") }
        if current == "0" {
            index += 1
            if isDigit(current) { throw error("a number cannot start with 0") }
        } else {
            while isDigit(current) { index += 1 }
        }
        if current == "." {
            index += 1
            guard isDigit(current) else { throw error("expected a digit after '.', found \(found)") }
            while isDigit(current) { index += 1 }
        }
        if current == "e" || current == "E" {
            index += 1
            if current == "+" || current == "-" { index += 1 }
            guard isDigit(current) else { throw error("expected a digit in the exponent, found \(found)") }
            while isDigit(current) { index += 1 }
        }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars[start..<index])
        return String(text)
    }
}
