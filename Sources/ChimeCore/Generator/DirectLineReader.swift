/// Reads a generator's line straight from its bytes to the assignments of a notification: no JSON tree, no
/// `UnitFile`, no location for each value. That is how nearly every line of a large output is read.
///
/// It takes only a line about which there is nothing to say: one JSON object of known keys with a valid `Id`, each
/// value of a type its key takes, strings without escapes or blanks around them, every value and the number of
/// assignments within their bounds. On anything else it gives up (`nil`), and `GeneratorOutput` reads the line in
/// full, with every message and where it points. What it does take, it reads as the full reading would.
struct DirectLineReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var sawNonASCII = false

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The id of the line's notification, with its assignments appended to `assignments` in the order given; `nil`
    /// when the line is not one this reader takes.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, into assignments: inout [NotificationAssignment]) -> String? {
        guard bytes.count <= InputLimits.maximumLineLength else { return nil }
        var reader = DirectLineReader(bytes)
        guard let id = reader.object(into: &assignments) else { return nil }
        // A line of invalid UTF-8 is refused as a whole, which the full reading says.
        if reader.sawNonASCII && String(validating: bytes, as: UTF8.self) == nil { return nil }
        return id
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// JSON's blanks less the line break, which ends the line.
    private mutating func skipBlanks() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0D {
            index += 1
        }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        skipBlanks()
        guard current == byte else { return false }
        index += 1
        return true
    }

    private mutating func object(into assignments: inout [NotificationAssignment]) -> String? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var id: String?
        let first = assignments.count
        repeat {
            skipBlanks()
            guard let name = string() else { return nil }
            guard take(UInt8(ascii: ":")) else { return nil }
            skipBlanks()
            if name.elementsEqual("Id".utf8) {
                guard id == nil, let text = string() else { return nil }
                let value = String(decoding: text, as: UTF8.self)
                guard NotificationLoader.isValidID(value) else { return nil }
                id = value
            } else {
                guard let key = NotificationKey.named(utf8: name),
                    value(of: key, into: &assignments)
                else { return nil }
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { return nil }
        skipBlanks()
        guard index == bytes.count, assignments.count - first <= InputLimits.maximumRepeats else { return nil }
        return id
    }

    /// One member's value, as the assignments a file would have for it.
    private mutating func value(of key: NotificationKey, into assignments: inout [NotificationAssignment]) -> Bool {
        switch current {
        case UInt8(ascii: "\""):
            guard let text = string(), let value = Self.plainValue(text) else { return false }
            assignments.append(NotificationAssignment(key: key, value: value))
        case UInt8(ascii: "["):
            guard key.isRepeatable else { return false }
            index += 1
            if take(UInt8(ascii: "]")) { return true }
            repeat {
                skipBlanks()
                guard let text = string(), let value = Self.plainValue(text) else { return false }
                assignments.append(NotificationAssignment(key: key, value: value))
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]"))
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            guard key.takesBoolean else { return false }
            if literal("true") {
                assignments.append(NotificationAssignment(key: key, value: "yes"))
            } else if literal("false") {
                assignments.append(NotificationAssignment(key: key, value: "no"))
            } else {
                return false
            }
        default:
            guard key.takesNumber, let text = integer() else { return false }
            assignments.append(NotificationAssignment(key: key, value: String(decoding: text, as: UTF8.self)))
        }
        return true
    }

    /// The bytes of a string without escapes or control characters, the index past its closing quote.
    private mutating func string() -> UnsafeBufferPointer<UInt8>? {
        guard current == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                index = end + 1
                return UnsafeBufferPointer(rebasing: bytes[start..<end])
            }
            guard byte >= 0x20, byte != UInt8(ascii: "\\") else { return nil }
            if byte >= 0x80 { sawNonASCII = true }
            end += 1
        }
        return nil
    }

    /// A value as a file's line would hold it: within its bound, no blanks around it to trim.
    private static func plainValue(_ text: UnsafeBufferPointer<UInt8>) -> String? {
        guard text.count <= InputLimits.maximumValueLength else { return nil }
        if let first = text.first, let last = text.last {
            guard first != 0x20, first != 0x09, last != 0x20, last != 0x09 else { return nil }
        }
        return String(decoding: text, as: UTF8.self)
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count,
            UnsafeBufferPointer(rebasing: bytes[index..<index + count]).elementsEqual(
                UnsafeBufferPointer(start: word.utf8Start, count: count))
        else { return false }
        index += count
        return true
    }

    /// A whole number as `Count=` and `Badge=` take it: `-? (0 | [1-9][0-9]*)`, as written. Fractions and exponents,
    /// which they do not take, are left to the full reading (JSON's grammar, and the message for the key).
    private mutating func integer() -> UnsafeBufferPointer<UInt8>? {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        let digits = index
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        guard index > digits, bytes[digits] != UInt8(ascii: "0") || index == digits + 1 else { return nil }
        guard current != UInt8(ascii: "."), current != UInt8(ascii: "e"), current != UInt8(ascii: "E") else {
            return nil
        }
        return UnsafeBufferPointer(rebasing: bytes[start..<index])
    }
}
