/// A JSON value whose objects keep their keys in the order given, for output that people and scripts read.
public indirect enum JSONValue: Sendable, Equatable {
    case string(String)
    case number(Int64)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        a.serialized == b.serialized
    }

    /// Compact JSON text (no spaces, no trailing newline).
    public var serialized: String {
        var text = ""
        write(into: &text)
        return text
    }

    private func write(into text: inout String) {
        switch self {
        case .string(let value): JSONValue.quote(value, into: &text)
        case .number(let value): text += String(value)
        case .bool(let value): text += value ? "true" : "false"
        case .null: text += "null"
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.write(into: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { text += "," }
                JSONValue.quote(key, into: &text)
                text += ":"
                value.write(into: &text)
            }
            text += "}"
        }
    }

    /// Writes `value` as a JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
    public static func quote(_ value: String, into text: inout String) {
        text += "\""
        // Everything that needs escaping is ASCII, so the runs between escapes start and end on scalar boundaries
        // and can be appended whole: the snapshot quotes tens of thousands of strings before each READY=1.
        let utf8 = value.utf8
        var runStart = utf8.startIndex
        var index = runStart
        while index != utf8.endIndex {
            let byte = utf8[index]
            guard byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                index = utf8.index(after: index)
                continue
            }
            text += value[runStart..<index]
            switch byte {
            case UInt8(ascii: "\""): text += "\\\""
            case UInt8(ascii: "\\"): text += "\\\\"
            case UInt8(ascii: "\n"): text += "\\n"
            case UInt8(ascii: "\r"): text += "\\r"
            case UInt8(ascii: "\t"): text += "\\t"
            default:
                let hex = String(byte, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
            index = utf8.index(after: index)
            runStart = index
        }
        text += value[runStart..<utf8.endIndex]
        text += "\""
    }
}
