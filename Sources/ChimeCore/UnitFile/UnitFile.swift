import Foundation

/// A file in systemd's unit-file syntax (systemd.syntax(7)), parsed into sections of `Key=value` assignments, or a
/// main file with its drop-ins applied.
///
/// Only the syntax is checked here; which sections and keys exist, and what a value means, is for the consumer to
/// decide. Values are kept as written (minus surrounding whitespace): nothing is unquoted or unescaped — settings
/// that take a command line split it with `UnitFileEntry.words()`.
public struct UnitFile: Hashable, Sendable {
    /// One element per section header, in file order, main file first and then each drop-in. A name can repeat
    /// (systemd treats the repetitions as one section); `values(for:in:)` and `lastValue(for:in:)` look at all.
    public internal(set) var sections: [UnitFileSection]
    /// Every problem found, in the order found; assignments on lines with errors are left out of `sections`.
    public internal(set) var diagnostics: [UnitFileDiagnostic]

    public init(sections: [UnitFileSection] = [], diagnostics: [UnitFileDiagnostic] = []) {
        self.sections = sections
        self.diagnostics = diagnostics
    }

    /// Parses `text`; `path` is only used in locations.
    public init(parsing text: String, path: String) {
        var parser = UnitFileParser(path: path)
        self = parser.parse(Array(text.utf8))
    }

    /// Parses the raw contents of a file; invalid UTF-8 is reported as an error, not trapped on.
    public init(parsing contents: Data, path: String) {
        var parser = UnitFileParser(path: path)
        self = parser.parse([UInt8](contents))
    }

    /// Whether any diagnostic is an error, in which case the file should not be used.
    public var hasErrors: Bool {
        diagnostics.contains { $0.severity == .error }
    }

    /// The assignments of a list-valued `key` in `section`, in order, after applying systemd's reset rule: an empty
    /// assignment (`Key=`) drops everything assigned before it and is not itself returned.
    ///
    /// Keys and section names are case-sensitive, as in systemd.
    public func values(for key: String, in section: String) -> [UnitFileEntry] {
        var result: [UnitFileEntry] = []
        for candidate in sections where candidate.name == section {
            for entry in candidate.entries where entry.key == key {
                if entry.value.isEmpty {
                    result.removeAll()
                } else {
                    result.append(entry)
                }
            }
        }
        return result
    }

    /// The last assignment of a single-valued `key` in `section`, or `nil` if there is none.
    ///
    /// Later assignments (and drop-ins) override earlier ones. The result may have an empty value: by systemd's
    /// convention, `Key=` resets a setting to its default, which the consumer knows and this type does not.
    public func lastValue(for key: String, in section: String) -> UnitFileEntry? {
        // From the end, without collecting: a load asks this a dozen times for each of thousands of files.
        for candidate in sections.reversed() where candidate.name == section {
            if let entry = candidate.entries.last(where: { $0.key == key }) { return entry }
        }
        return nil
    }

    /// Appends a drop-in's sections after this file's, so that its assignments come later and override.
    public mutating func apply(dropIn: UnitFile) {
        sections += dropIn.sections
        diagnostics += dropIn.diagnostics
    }
}

/// The assignments that follow one section header, up to the next header or the end of the file.
public struct UnitFileSection: Hashable, Sendable {
    /// The name between the brackets, as written (systemd does not strip whitespace inside the brackets).
    public var name: String
    /// Where the header's `[` is.
    public var location: UnitFileLocation
    /// The assignments in file order, repeated keys included.
    public var entries: [UnitFileEntry]
}

extension UnitFile {
    /// `diagnostics`, each error on a line whose value holds what looks like a trailing comment (` #`, ` ;`)
    /// saying so: in unit files a comment is a whole line, and `At=09:00 # standup` is a value, not a comment.
    public func explainingTrailingComments(_ diagnostics: [UnitFileDiagnostic]) -> [UnitFileDiagnostic] {
        guard diagnostics.contains(where: { $0.severity == .error && $0.location.line != nil }) else {
            return diagnostics
        }
        var commentedLines: [String: Set<Int>] = [:]
        for section in sections {
            for entry in section.entries where entry.value.contains(" #") || entry.value.contains(" ;") {
                if let line = entry.location.line { commentedLines[entry.location.file, default: []].insert(line) }
            }
        }
        guard !commentedLines.isEmpty else { return diagnostics }
        return diagnostics.map { diagnostic in
            guard diagnostic.severity == .error, let line = diagnostic.location.line,
                commentedLines[diagnostic.location.file]?.contains(line) == true
            else { return diagnostic }
            var explained = diagnostic
            explained.message +=
                " (A comment must be a whole line: '#' and ';' start one only at the beginning of a line.)"
            return explained
        }
    }
}

/// One `Key=value` assignment with where it came from.
public struct UnitFileEntry: Hashable, Sendable {
    /// The key, with the whitespace around it removed.
    public var key: String
    /// The value, with the whitespace around it removed and continuation lines joined (each line-ending backslash
    /// becomes one space). Empty for `Key=`.
    public var value: String
    /// Where the key starts.
    public var location: UnitFileLocation
    /// Where the value starts; for an empty value, just after the `=`.
    public var valueLocation: UnitFileLocation
    /// Where each further physical line's part of a continued value starts, so that a position inside it can be
    /// located; empty for a value on one line (nearly all: no allocation for them), which starts at
    /// `valueLocation`.
    var continuations: [ValueSegment] = []

    /// The part of a value that lies on one physical line.
    struct ValueSegment: Hashable, Sendable {
        /// Offset, in Unicode scalars, into `value`.
        var offset: Int
        var line: Int
        var column: Int
    }

    /// Where the Unicode scalar at `offset` of `value` is in the file, following continuation lines.
    func location(ofValueOffset offset: Int) -> UnitFileLocation {
        let segment =
            continuations.last { $0.offset <= offset }
            ?? ValueSegment(offset: 0, line: valueLocation.line ?? 0, column: valueLocation.column ?? 1)
        return UnitFileLocation(
            file: location.file, line: segment.line, column: segment.column + offset - segment.offset)
    }
}
