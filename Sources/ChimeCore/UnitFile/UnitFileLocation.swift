/// A place in a configuration file: the file's path, and where it makes sense a line and a column.
///
/// Lines and columns count from 1. A column counts Unicode scalars from the start of the physical line (a byte
/// order mark at the start of the file is not counted), so for the usual text it is the character an editor shows.
/// An invalid UTF-8 byte counts as one column.
public struct UnitFileLocation: Hashable, Sendable, CustomStringConvertible {
    /// The path of the file, as it was given to the parser or found in a configuration directory.
    public var file: String
    /// The line, or `nil` for a problem with the file as a whole (for example, it cannot be read).
    public var line: Int?
    /// The column, or `nil` where only the line is known. Never set without `line`.
    public var column: Int?

    public init(file: String, line: Int? = nil, column: Int? = nil) {
        self.file = file
        self.line = line
        self.column = line == nil ? nil : column
    }

    /// `file:line:column`, `file:line` or `file`, whichever the location knows.
    public var description: String {
        guard let line else { return file }
        guard let column else { return "\(file):\(line)" }
        return "\(file):\(line):\(column)"
    }

    /// The same place moved `offset` columns to the right; a location without a column stays as it is.
    func advanced(by offset: Int) -> UnitFileLocation {
        var moved = self
        moved.column = column.map { $0 + offset }
        return moved
    }
}
