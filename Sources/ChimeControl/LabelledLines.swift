/// Lines of `label: value` with the labels right-aligned, as systemd-analyze prints its tables.
struct LabelledLines {
    private var rows: [(label: String, value: String)] = []

    mutating func add(_ label: String, _ value: String) {
        rows.append((label, value))
    }

    var isEmpty: Bool { rows.isEmpty }

    /// The rows, each label padded on the left to the longest label's width.
    func rendered() -> String {
        let width = rows.map(\.label.count).max() ?? 0
        return rows.map { String(repeating: " ", count: width - $0.label.count) + $0.label + " " + $0.value + "\n" }
            .joined()
    }
}

/// Writes `label: value` lines with labels right-aligned to systemd-analyze's calendar width (that of
/// "Normalized form:"), in chunks of bytes, without holding the whole table.
struct LabelledLineWriter {
    static let labelWidth = 16

    /// A label made ready once for lines written many times: its padding, text and the space after it, as bytes.
    struct Label {
        let start: [UInt8]

        init(_ text: String) {
            let width = text.utf8.count
            start =
                Array(repeating: UInt8(ascii: " "), count: max(LabelledLineWriter.labelWidth - width, 0))
                + Array(text.utf8) + [UInt8(ascii: " ")]
        }
    }

    let stream: CommandContext.Stream
    private var pending: [UInt8] = []

    init(stream: CommandContext.Stream) {
        self.stream = stream
        pending.reserveCapacity(Self.chunkSize + 1_024)
    }

    /// How many bytes gather before they go to the stream.
    private static let chunkSize = 65_536

    mutating func add(_ label: String, _ value: String) {
        begin(Label(label))
        pending.append(contentsOf: value.utf8)
        end()
    }

    /// The line being written: `begin` puts its label here, the caller appends the value, `end` ends it. (A closure
    /// for the value would capture what it formats, zone rules with a dozen arrays to retain, for every line.)
    var bytes: [UInt8] {
        get { pending }
        _modify { yield &pending }
    }

    /// Starts a line with `label`.
    @inline(__always)
    mutating func begin(_ label: Label) {
        pending.append(contentsOf: label.start)
    }

    /// Starts a line labelled `prefix`, `number` and a colon (`Iter. #2:`).
    @inline(__always)
    mutating func begin(_ prefix: [UInt8], number: Int) {
        var digits = 1
        var power = 10
        while number >= power && digits < 19 {
            digits += 1
            power &*= 10
        }
        let width = prefix.count + digits + 1
        for _ in width..<max(width, Self.labelWidth) { pending.append(UInt8(ascii: " ")) }
        pending.append(contentsOf: prefix)
        // The digits on the stack, appended in one copy.
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &text) { buffer in
            var rest = number
            var index = buffer.count - 1
            repeat {
                buffer[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
                index -= 1
            } while rest > 0 && index >= 0
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(buffer.count - digits)...]))
        }
        pending.append(UInt8(ascii: ":"))
        pending.append(UInt8(ascii: " "))
    }

    /// Ends the line; hands a full chunk to the stream.
    @inline(__always)
    mutating func end() {
        pending.append(UInt8(ascii: "\n"))
        if pending.count >= Self.chunkSize { flushPending() }
    }

    mutating func finish() { flushPending() }

    private mutating func flushPending() {
        stream.write(bytes: pending)
        pending.removeAll(keepingCapacity: true)
    }
}
