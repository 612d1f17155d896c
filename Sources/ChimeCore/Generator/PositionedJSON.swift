/// A JSON value (RFC 8259) read from one line of text, with the column where each value and member name starts,
/// so that a problem in a generator's output can be shown as `path:line:column`.
///
/// Objects keep their members in the order written, repeated names included: deciding what a repeated name means
/// is for the consumer, as with repeated keys in a notification file. Numbers are kept as written, since the value
/// of a notification key is text.
struct PositionedJSON: Sendable {
    // Not `indirect`: arrays hold their elements out of line already, and a box for each value would be one
    // allocation more for every member of a million lines.
    enum Value: Sendable {
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

    /// Parses the bytes of one line, which must be valid UTF-8 and hold exactly one JSON value (whitespace around
    /// it is allowed).
    static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) throws(SyntaxError) -> PositionedJSON {
        var parser = Parser(bytes: bytes)
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

/// A recursive-descent parser over the UTF-8 bytes of one line, which are valid UTF-8.
///
/// It reads bytes; columns count Unicode scalars, which for an ASCII line (nearly every generator's) is the byte
/// offset plus one, and otherwise the bytes before that are not UTF-8 continuation bytes.
private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let isASCII: Bool
    var index = 0
    var depth = 0
    /// The last column worked out for a line that is not ASCII, and its byte offset: columns are asked for in
    /// ascending order, so each is counted on from the one before.
    private var counted = (offset: 0, column: 1)

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        var isASCII = true
        for byte in bytes where byte >= 0x80 {
            isASCII = false
            break
        }
        self.isASCII = isASCII
    }

    var isAtEnd: Bool { index >= bytes.count }
    var current: UInt8? { index < bytes.count ? bytes[index] : nil }
    var column: Int { mutating get { column(at: index) } }

    /// The column of the scalar that starts at byte `offset`.
    mutating func column(at offset: Int) -> Int {
        if isASCII { return offset + 1 }
        if offset < counted.offset { counted = (0, 1) }
        var column = counted.column
        for byte in bytes[counted.offset..<offset] where byte & 0xC0 != 0x80 { column += 1 }
        counted = (offset, column)
        return column
    }

    /// The scalar that starts at the current byte.
    var currentScalar: Unicode.Scalar? {
        guard let byte = current else { return nil }
        guard byte >= 0x80 else { return Unicode.Scalar(byte) }
        var end = index + 1
        while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self).unicodeScalars.first
    }

    /// The scalar at the current position as a message shows it: `'x'`, `U+0007`, or "the end of the line".
    var found: String {
        guard let scalar = currentScalar else { return "the end of the line" }
        return Self.describe(scalar)
    }

    static func describe(_ scalar: Unicode.Scalar) -> String {
        if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return "'\(scalar)'"
    }

    mutating func error(_ reason: String, at column: Int? = nil) -> PositionedJSON.SyntaxError {
        PositionedJSON.SyntaxError(column: column ?? self.column, reason: reason)
    }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            index += 1
        }
    }

    mutating func value() throws(PositionedJSON.SyntaxError) -> PositionedJSON {
        skipWhitespace()
        let start = column
        switch current {
        case UInt8(ascii: "{"): return PositionedJSON(value: try object(), column: start)
        case UInt8(ascii: "["): return PositionedJSON(value: try array(), column: start)
        case UInt8(ascii: "\""): return PositionedJSON(value: .string(try string()), column: start)
        case UInt8(ascii: "t"): return PositionedJSON(value: try literal("true", .bool(true)), column: start)
        case UInt8(ascii: "f"): return PositionedJSON(value: try literal("false", .bool(false)), column: start)
        case UInt8(ascii: "n"): return PositionedJSON(value: try literal("null", .null), column: start)
        case let byte? where byte == UInt8(ascii: "-") || Self.isDigit(byte):
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
        // A generated notification has some six members: room for them at once, not after three reallocations.
        members.reserveCapacity(8)
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else {
                throw error("expected a member name in double quotes, found \(found)")
            }
            let nameColumn = column
            let name = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else {
                throw error("expected ':' after the member name, found \(found)")
            }
            index += 1
            members.append(PositionedJSON.Member(name: name, column: nameColumn, value: try value()))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
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
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
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
        // Without escapes or control characters (nearly always), the string is the bytes up to the closing quote.
        var end = index
        while end < bytes.count && bytes[end] >= 0x20 && bytes[end] != UInt8(ascii: "\"")
            && bytes[end] != UInt8(ascii: "\\")
        {
            end += 1
        }
        if end < bytes.count && bytes[end] == UInt8(ascii: "\"") {
            defer { index = end + 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
        }
        var result: [UInt8] = Array(bytes[index..<end])
        index = end
        while true {
            guard let byte = current else { throw error("unterminated string", at: start) }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: result, as: UTF8.self)
            case UInt8(ascii: "\\"):
                result.append(contentsOf: UTF8.encode(try escape())!)
            case 0..<0x20:
                throw error("\(Self.describe(Unicode.Scalar(byte))) inside a string; write it as an escape such as \\n")
            default:
                result.append(byte)
                index += 1
            }
        }
    }

    /// The escape starting at the current `\`.
    mutating func escape() throws(PositionedJSON.SyntaxError) -> Unicode.Scalar {
        let start = column
        index += 1
        guard let letter = currentScalar else { throw error("unterminated string", at: start) }
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
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                else {
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
            guard let byte = current, let digit = Self.hexDigit(byte) else {
                throw error("expected four hex digits after \\u", at: escapeStart)
            }
            unit = unit << 4 + digit
            index += 1
        }
        return unit
    }

    static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    static func isDigit(_ byte: UInt8?) -> Bool {
        byte.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false
    }

    mutating func literal(
        _ word: StaticString, _ value: PositionedJSON.Value
    ) throws(PositionedJSON.SyntaxError) -> PositionedJSON.Value {
        let start = index
        for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
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
        if current == UInt8(ascii: "-") { index += 1 }
        guard Self.isDigit(current) else { throw error("expected a digit in the number, found \(found)") }
        if current == UInt8(ascii: "0") {
            index += 1
            if Self.isDigit(current) { throw error("a number cannot start with 0") }
        } else {
            while Self.isDigit(current) { index += 1 }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard Self.isDigit(current) else { throw error("expected a digit after '.', found \(found)") }
            while Self.isDigit(current) { index += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard Self.isDigit(current) else { throw error("expected a digit in the exponent, found \(found)") }
            while Self.isDigit(current) { index += 1 }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }
}
