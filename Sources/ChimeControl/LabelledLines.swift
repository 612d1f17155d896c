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

    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: labelWidth)
    private static let zeros = [UInt8](repeating: UInt8(ascii: "0"), count: 20)

    /// How many bytes gather before they go to the stream.
    private static let chunkSize = 65_536

    mutating func add(_ label: String, _ value: String) {
        add(Label(label)) { $0.append(contentsOf: value.utf8) }
    }

    /// A line whose value `writeValue` appends to the bytes it is handed.
    @inline(__always)
    mutating func add(_ label: Label, value writeValue: (inout [UInt8]) -> Void) {
        pending.append(contentsOf: label.start)
        writeValue(&pending)
        endLine()
    }

    /// A line labelled `prefix`, `number` and a colon (`Iter. #2:`), whose value `writeValue` appends.
    @inline(__always)
    mutating func add(_ prefix: [UInt8], number: Int, value writeValue: (inout [UInt8]) -> Void) {
        var digits = 1
        var power = 10
        while number >= power && digits < 19 {
            digits += 1
            power &*= 10
        }
        let width = prefix.count + digits + 1
        if width < Self.labelWidth { pending.append(contentsOf: Self.spaces[width...]) }
        pending.append(contentsOf: prefix)
        pending.append(contentsOf: Self.zeros[..<digits])
        var rest = number
        var index = pending.count - 1
        while rest > 0 {
            pending[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
            index -= 1
        }
        pending.append(UInt8(ascii: ":"))
        pending.append(UInt8(ascii: " "))
        writeValue(&pending)
        endLine()
    }

    @inline(__always)
    private mutating func endLine() {
        pending.append(UInt8(ascii: "\n"))
        if pending.count >= Self.chunkSize { flushPending() }
    }

    mutating func finish() { flushPending() }

    private mutating func flushPending() {
        stream.write(bytes: pending)
        pending.removeAll(keepingCapacity: true)
    }
}
