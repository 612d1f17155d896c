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
    let stream: CommandContext.Stream
    private var pending: [UInt8] = []

    init(stream: CommandContext.Stream) {
        self.stream = stream
        pending.reserveCapacity(20_000)
    }

    mutating func add(_ label: String, _ value: String) {
        let width = label.utf8.count
        if width < Self.labelWidth {
            pending.append(contentsOf: repeatElement(UInt8(ascii: " "), count: Self.labelWidth - width))
        }
        pending.append(contentsOf: label.utf8)
        pending.append(UInt8(ascii: " "))
        pending.append(contentsOf: value.utf8)
        pending.append(UInt8(ascii: "\n"))
        if pending.count >= 16_384 { flushPending() }
    }

    mutating func finish() { flushPending() }

    private mutating func flushPending() {
        stream.write(String(decoding: pending, as: UTF8.self))
        pending.removeAll(keepingCapacity: true)
    }
}
