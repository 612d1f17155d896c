extension UnitFileEntry {
    /// The value split into words by `WordSplitter`, for settings that take a command line.
    ///
    /// Errors point at the offending character in the file, also when the value is continued over several lines.
    public func words() throws(UnitFileDiagnostic) -> [String] {
        do {
            return try WordSplitter.split(Array(value.unicodeScalars))
        } catch {
            throw UnitFileDiagnostic(.error, at: location(ofValueOffset: error.offset), error.message)
        }
    }
}
