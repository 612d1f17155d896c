/// Writes text in unit-file syntax (systemd.syntax(7)) that `UnitFile(parsing:path:)` reads back with exactly the
/// values assigned, for files that programs write (`chimectl add`).
///
/// A value is read as written, without quoting or escapes, so some values cannot be written at all; they are
/// refused rather than written so that they would read back differently:
/// - a line break or NUL (each ends the line),
/// - white space (space or tab) at either end (stripped when read),
/// - an odd number of backslashes at the end (it would continue the line onto the next).
///
/// Multi-line text has one representation, `assign(_:foldingLines:)`: each line break becomes a continuation line,
/// which reads back as one space.
public struct UnitFileWriter: Sendable {
    /// Why a value cannot be written.
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        case lineBreak
        case nul
        case surroundingWhitespace
        case trailingBackslash
        case tooLong

        public var description: String {
            switch self {
            case .lineBreak: return "a value in a notification file cannot contain a line break"
            case .nul: return "a value in a notification file cannot contain a NUL character"
            case .surroundingWhitespace: return "a value in a notification file cannot start or end with white space"
            case .trailingBackslash:
                return "a value in a notification file cannot end in a backslash (it would continue the line)"
            case .tooLong: return "a value in a notification file is limited to 1 MiB"
            }
        }
    }

    public private(set) var text = ""

    /// How many lines `text` holds so far; the next assignment starts on the line after.
    public var lineCount: Int { text.utf8.lazy.filter { $0 == UInt8(ascii: "\n") }.count }
    private var lastLineIsComment = false

    public init() {}

    /// Adds `comment` as comment lines (`# …`), one per line of it; NUL characters, which would end a line, are
    /// left out.
    public mutating func comment(_ comment: String) {
        for line in Self.lines(of: comment) {
            let kept = String(String.UnicodeScalarView(line.filter { $0 != "\0" }))
            text += kept.isEmpty ? "#\n" : "# " + kept + "\n"
            lastLineIsComment = true
        }
    }

    /// Adds a section header, with an empty line before it unless it follows comments or starts the text.
    public mutating func section(_ name: String) {
        if !text.isEmpty && !lastLineIsComment { text += "\n" }
        text += "[\(name)]\n"
        lastLineIsComment = false
    }

    /// Adds `key=value`, which reads back as `value` exactly; an empty value is an empty assignment (a reset).
    public mutating func assign(_ key: String, _ value: String) throws(Refusal) {
        let scalars = Array(value.unicodeScalars)
        try Self.check(scalars)
        lastLineIsComment = false
        text += key + "=" + value + "\n"
    }

    /// Adds `key=value` with each line of `value` on a line of its own, joined by continuation lines.
    ///
    /// What reads back is the lines joined by single spaces, without white space at either end (as any value is
    /// read): the returned value. A line that would read as a comment, a blank line (it would end the value, or
    /// turn a comment that follows into one), and a line after one that ends in a backslash, are put on the same
    /// physical line instead, which reads back the same.
    @discardableResult
    public mutating func assign(_ key: String, foldingLines value: String) throws(Refusal) -> String {
        var lines = Self.lines(of: value)
        while let first = lines.first, first.allSatisfy(Self.isBlank) { lines.removeFirst() }
        while let last = lines.last, last.allSatisfy(Self.isBlank) { lines.removeLast() }
        guard !lines.isEmpty else {
            text += key + "=\n"
            lastLineIsComment = false
            return ""
        }
        lines[0] = Array(lines[0].drop(while: Self.isBlank))
        lines[lines.count - 1] = Array(lines[lines.count - 1].reversed().drop(while: Self.isBlank).reversed())
        let joined = Array(lines.joined(separator: [" "]))
        try Self.check(joined)
        lastLineIsComment = false

        var physical: [Unicode.Scalar] = Array((key + "=").unicodeScalars) + lines[0]
        for line in lines.dropFirst() {
            let start = line.first { !Self.isBlank($0) }
            if start == nil || start == "#" || start == ";" || Self.trailingBackslashes(physical) % 2 == 1 {
                physical += [" "] + line
            } else {
                text += String(String.UnicodeScalarView(physical)) + "\\\n"
                physical = line
            }
        }
        text += String(String.UnicodeScalarView(physical)) + "\n"
        return String(String.UnicodeScalarView(joined))
    }

    /// systemd's limit on a logical line, which the parser enforces too.
    static let maximumValueLength = 1024 * 1024 - 256

    private static func check(_ scalars: [Unicode.Scalar]) throws(Refusal) {
        if scalars.contains("\0") { throw .nul }
        if scalars.contains(where: { $0 == "\n" || $0 == "\r" }) { throw .lineBreak }
        if let first = scalars.first, let last = scalars.last, isBlank(first) || isBlank(last) {
            throw .surroundingWhitespace
        }
        if trailingBackslashes(scalars) % 2 == 1 { throw .trailingBackslash }
        if scalars.reduce(0, { $0 + UTF8.width($1) }) > maximumValueLength { throw .tooLong }
    }

    /// The lines of `text`, split where the parser ends a line: at `\n`, `\r\n` and `\r`.
    private static func lines(of text: String) -> [[Unicode.Scalar]] {
        var lines: [[Unicode.Scalar]] = [[]]
        var afterCarriageReturn = false
        for scalar in text.unicodeScalars {
            defer { afterCarriageReturn = scalar == "\r" }
            if scalar == "\n" && afterCarriageReturn { continue }
            if scalar == "\n" || scalar == "\r" {
                lines.append([])
            } else {
                lines[lines.count - 1].append(scalar)
            }
        }
        return lines
    }

    private static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t"
    }

    private static func trailingBackslashes(_ scalars: [Unicode.Scalar]) -> Int {
        scalars.reversed().prefix { $0 == "\\" }.count
    }
}
