extension UnitFileEntry {
    /// The value as one of systemd's booleans: `1 yes y true t on` and `0 no n false f off`, in any case; `nil` for
    /// anything else.
    public var boolean: Bool? { Self.boolean(value) }

    /// `value` as one of systemd's booleans, or `nil`.
    static func boolean(_ value: String) -> Bool? {
        switch value.lowercased() {
        case "1", "yes", "y", "true", "t", "on": return true
        case "0", "no", "n", "false", "f", "off": return false
        default: return nil
        }
    }

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
