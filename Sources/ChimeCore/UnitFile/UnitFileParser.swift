/// Turns the bytes of one file into a `UnitFile`, following systemd.syntax(7) and what systemd 252 does where the
/// manual is silent.
///
/// The work is done in three steps: split the bytes into physical lines (systemd's line terminators), join
/// continuation lines into logical lines while skipping comments, and parse each logical line as a section header
/// or an assignment.
struct UnitFileParser {
    /// systemd refuses lines longer than this (`LONG_LINE_MAX`), and so do we: a runaway continuation or a binary
    /// file should be reported, not held in memory as one value.
    static let maximumLineLength = InputLimits.maximumLineLength

    let path: String
    private var file = UnitFile()
    private var section = SectionState.none

    private enum SectionState {
        case none
        case open
        /// After a header that could not be parsed: its assignments are dropped without a diagnostic each, since
        /// the header's own error already explains why.
        case invalid
    }

    init(path: String) {
        self.path = path
    }

    mutating func parse(_ bytes: [UInt8]) -> UnitFile {
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var logical = LogicalLine()
        for (index, range) in Self.physicalLines(bytes, from: start).enumerated() {
            let line = bytes[range]
            let content = line.drop { $0 == .space || $0 == .tab }
            // Comment lines are skipped even inside a continuation, so a commented-out part of a long value does
            // not end it.
            if let first = content.first, first == .hash || first == .semicolon {
                continue
            }
            logical.append(line, number: index + 1)
            // A line continues when it ends in an odd number of backslashes: `\\` is an escaped backslash (systemd
            // 252 treats `Key=a\\` as complete).
            let trailingBackslashes = line.reversed().prefix { $0 == .backslash }.count
            if trailingBackslashes % 2 == 1 {
                logical.bytes[logical.bytes.count - 1] = .space
            } else {
                finish(&logical)
            }
        }
        // systemd accepts a file that ends inside a continuation, and so do we.
        finish(&logical)
        return file
    }

    /// The byte ranges of the physical lines, without their terminators.
    ///
    /// systemd's `read_line()` ends a line at `\n`, `\r` or NUL, and takes a run of terminator bytes as one
    /// terminator as long as no kind repeats and nothing follows a NUL: `\r\n` and `\n\r` are one terminator,
    /// `\r\r` and `\0\n` are two.
    static func physicalLines(_ bytes: [UInt8], from start: Int) -> [Range<Int>] {
        var lines: [Range<Int>] = []
        var index = start
        while index < bytes.count {
            let lineStart = index
            while index < bytes.count, !isTerminator(bytes[index]) {
                index += 1
            }
            lines.append(lineStart..<index)
            // Each terminator byte at most once, and nothing after a NUL; as bits, not an array made for every line.
            var seen: UInt8 = 0
            while index < bytes.count, isTerminator(bytes[index]), seen & Self.bit(bytes[index]) == 0,
                seen & Self.bit(0) == 0
            {
                seen |= Self.bit(bytes[index])
                index += 1
            }
        }
        return lines
    }

    private static func isTerminator(_ byte: UInt8) -> Bool {
        byte == .newline || byte == .carriageReturn || byte == 0
    }

    /// A bit of its own for each terminator.
    private static func bit(_ terminator: UInt8) -> UInt8 {
        terminator == .newline ? 1 : terminator == .carriageReturn ? 2 : 4
    }

    /// Parses the logical line collected so far, if any, and starts a new one.
    private mutating func finish(_ logical: inout LogicalLine) {
        defer { logical = LogicalLine() }
        guard let first = logical.segments.first else { return }
        if logical.bytes.count > Self.maximumLineLength {
            report(
                line: first.line, column: 1,
                "Line is \(InputLimits.grouped(logical.bytes.count)) bytes long, more than the "
                    + "\(InputLimits.size(Self.maximumLineLength)) a line may have.")
            if logical.isHeader {
                section = .invalid
            }
            return
        }
        switch logical.decode(path: path) {
        case .success(let text):
            parse(text)
        case .failure(let bad):
            report(line: bad.line, column: bad.column, "Line is not valid UTF-8.")
            if logical.isHeader {
                section = .invalid
            }
        }
    }

    private mutating func parse(_ text: DecodedLine) {
        let scalars = text.scalars
        var low = 0
        var high = scalars.count
        while low < high, scalars[low].isConfigWhitespace { low += 1 }
        while high > low, scalars[high - 1].isConfigWhitespace { high -= 1 }
        guard low < high else { return }
        if scalars[low] == "[" {
            parseHeader(text, low..<high)
        } else {
            parseAssignment(text, low..<high)
        }
    }

    private mutating func parseHeader(_ text: DecodedLine, _ range: Range<Int>) {
        let header = text.string(range)
        guard range.count >= 2, text.scalars[range.upperBound - 1] == "]" else {
            report(text.location(of: range.lowerBound), "Invalid section header '\(header)'.")
            section = .invalid
            return
        }
        let nameRange = (range.lowerBound + 1)..<(range.upperBound - 1)
        // systemd 252 refuses control characters, quotes and backslashes in a section name (`string_is_safe()`).
        if let bad = nameRange.first(where: { text.scalars[$0].isUnsafeInSectionName }) {
            report(text.location(of: bad), "Bad characters in section header '\(header)'.")
            section = .invalid
            return
        }
        let name = text.string(nameRange)
        file.sections.append(UnitFileSection(name: name, location: text.location(of: range.lowerBound), entries: []))
        section = .open
    }

    private mutating func parseAssignment(_ text: DecodedLine, _ range: Range<Int>) {
        let scalars = text.scalars
        guard let equals = range.first(where: { scalars[$0] == "=" }) else {
            report(text.location(of: range.lowerBound), "Missing '='.")
            return
        }
        var keyEnd = equals
        while keyEnd > range.lowerBound, scalars[keyEnd - 1].isConfigWhitespace { keyEnd -= 1 }
        guard keyEnd > range.lowerBound else {
            report(text.location(of: equals), "Missing key name before '='.")
            return
        }
        switch section {
        case .none:
            report(text.location(of: range.lowerBound), "Assignment outside of section.")
        case .invalid:
            break
        case .open:
            var valueStart = equals + 1
            while valueStart < range.upperBound, scalars[valueStart].isConfigWhitespace { valueStart += 1 }
            let entry = UnitFileEntry(
                key: text.string(range.lowerBound..<keyEnd),
                value: text.string(valueStart..<range.upperBound),
                location: text.location(of: range.lowerBound),
                valueLocation: text.location(of: valueStart),
                continuations: text.continuations(from: valueStart))
            file.sections[file.sections.count - 1].entries.append(entry)
        }
    }

    private mutating func report(_ location: UnitFileLocation, _ message: String) {
        file.diagnostics.append(UnitFileDiagnostic(.error, at: location, message))
    }

    private mutating func report(line: Int, column: Int, _ message: String) {
        report(UnitFileLocation(file: path, line: line, column: column), message)
    }
}

extension UnitFileParser {
    /// Physical lines joined by continuation, as bytes, with the line each part came from.
    private struct LogicalLine {
        var bytes: [UInt8] = []
        var segments: [(offset: Int, line: Int)] = []

        mutating func append(_ line: ArraySlice<UInt8>, number: Int) {
            segments.append((bytes.count, number))
            bytes += line
        }

        /// Whether the line looks like a section header, so that a broken one still ends the previous section.
        var isHeader: Bool {
            bytes.first { $0 != .space && $0 != .tab } == UInt8(ascii: "[")
        }

        /// Decodes each physical line's part separately: a part always ends with an ASCII byte (the space that
        /// replaced the backslash) or is the last one, so no UTF-8 sequence spans two parts.
        func decode(path: String) -> Result<DecodedLine, InvalidByte> {
            var decoded = DecodedLine(path: path, scalars: [], segments: [])
            // No more scalars than bytes: one allocation for the line, not one each time the array doubles.
            decoded.scalars.reserveCapacity(bytes.count)
            for (index, segment) in segments.enumerated() {
                let end = index + 1 < segments.count ? segments[index + 1].offset : bytes.count
                decoded.segments.append((decoded.scalars.count, segment.line))
                // Nearly every line is ASCII, one scalar a byte, which needs no parser.
                if !bytes[segment.offset..<end].contains(where: { $0 >= 0x80 }) {
                    for byte in bytes[segment.offset..<end] { decoded.scalars.append(Unicode.Scalar(byte)) }
                    continue
                }
                var iterator = bytes[segment.offset..<end].makeIterator()
                var parser = Unicode.UTF8.ForwardParser()
                var column = 1
                decoding: while true {
                    switch parser.parseScalar(from: &iterator) {
                    case .valid(let encoded):
                        decoded.scalars.append(Unicode.UTF8.decode(encoded))
                        column += 1
                    case .emptyInput:
                        break decoding
                    case .error:
                        return .failure(InvalidByte(line: segment.line, column: column))
                    }
                }
            }
            return .success(decoded)
        }
    }

    private struct InvalidByte: Error {
        var line: Int
        var column: Int
    }

    /// A logical line as Unicode scalars, with the physical line each scalar came from.
    private struct DecodedLine {
        var path: String
        var scalars: [Unicode.Scalar]
        /// Where each physical line's scalars start in `scalars`; physical lines always start at column 1.
        var segments: [(offset: Int, line: Int)]

        /// The scalars in `range` as a string, encoded in one go: appending them to a `String` one by one was
        /// most of the cost of parsing a file.
        ///
        /// Of exactly the capacity it needs: the strings live on in the notifications loaded, and one of up to 15
        /// bytes then needs no allocation at all.
        func string(_ range: Range<Int>) -> String {
            var byteCount = 0
            for scalar in scalars[range] { byteCount += UTF8.width(scalar) }
            return String(unsafeUninitializedCapacity: byteCount) { buffer in
                var count = 0
                for scalar in scalars[range] {
                    Unicode.UTF8.encode(scalar) { unit in
                        buffer[count] = unit
                        count += 1
                    }
                }
                return count
            }
        }

        func position(of index: Int) -> (line: Int, column: Int) {
            let segment = segments.last { $0.offset <= index } ?? segments[0]
            return (segment.line, index - segment.offset + 1)
        }

        func location(of index: Int) -> UnitFileLocation {
            let (line, column) = position(of: index)
            return UnitFileLocation(file: path, line: line, column: column)
        }

        /// The segments of the value that starts at `start` on the lines after its first, with offsets relative
        /// to it.
        func continuations(from start: Int) -> [UnitFileEntry.ValueSegment] {
            var result: [UnitFileEntry.ValueSegment] = []
            for segment in segments where segment.offset > start {
                result.append(.init(offset: segment.offset - start, line: segment.line, column: 1))
            }
            return result
        }
    }
}

extension Unicode.Scalar {
    /// systemd's `WHITESPACE`: what is stripped around keys, values and lines.
    fileprivate var isConfigWhitespace: Bool {
        self == " " || self == "\t" || self == "\n" || self == "\r"
    }

    fileprivate var isUnsafeInSectionName: Bool {
        value < 0x20 || value == 0x7F || self == "\"" || self == "'" || self == "\\"
    }
}

extension UInt8 {
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let newline = UInt8(ascii: "\n")
    fileprivate static let carriageReturn = UInt8(ascii: "\r")
    fileprivate static let hash = UInt8(ascii: "#")
    fileprivate static let semicolon = UInt8(ascii: ";")
    fileprivate static let backslash = UInt8(ascii: "\\")
}
