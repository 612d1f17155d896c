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
