/// A problem found in a configuration file: the error type of the unit-file domain.
///
/// The parser and the configuration search collect these instead of stopping at the first one, so that one run
/// reports everything wrong with a file. The word splitter throws one.
public struct UnitFileDiagnostic: Error, Hashable, Sendable, CustomStringConvertible {
    /// How bad a problem is.
    public enum Severity: Hashable, Sendable {
        /// The file (or the directory entry) cannot be used as written.
        case error
        /// Something was ignored; the rest still means what it says.
        case warning
    }

    public var severity: Severity
    public var location: UnitFileLocation
    /// One sentence, capitalised and ending with a full stop, that quotes the offending text where that helps.
    public var message: String

    public init(_ severity: Severity, at location: UnitFileLocation, _ message: String) {
        self.severity = severity
        self.location = location
        self.message = message
    }

    /// `file:line:column: message`, or `file:line: message` / `file: message` when the location is less precise.
    public var description: String {
        "\(location): \(message)"
    }
}

extension Array where Element == UnitFileDiagnostic {
    /// In the order a reader goes through the files: by file, then line, then column; problems of a whole file
    /// first, and problems at the same place in the order they were found.
    public func sortedByPlace() -> [UnitFileDiagnostic] {
        guard count > 1 else { return self }
        return enumerated().sorted { a, b in
            let left = a.element.location
            let right = b.element.location
            if left.file != right.file { return left.file < right.file }
            if (left.line ?? 0) != (right.line ?? 0) { return (left.line ?? 0) < (right.line ?? 0) }
            if (left.column ?? 0) != (right.column ?? 0) { return (left.column ?? 0) < (right.column ?? 0) }
            return a.offset < b.offset
        }.map(\.element)
    }
}
