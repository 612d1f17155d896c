/// A notification file as found in the configuration directories: the `NAME.notification` that won, with the
/// drop-ins from `NAME.notification.d/` applied.
public struct NotificationFile: Hashable, Sendable {
    /// What the search made of the file.
    public enum Content: Hashable, Sendable {
        /// The parsed file with its drop-ins applied, each entry keeping its own file and line. Check
        /// `UnitFile.hasErrors` before using it: a file that could not be read is here too, with the read error
        /// as its diagnostic.
        case loaded(UnitFile)
        /// The file that won is a symlink to `/dev/null` or empty: as with systemd units, the notification is
        /// switched off, files of the same name in later directories are not read, and drop-ins are not applied.
        case masked
    }

    /// `NAME`, the file name without `.notification`.
    public var id: String
    /// The main file that was used: the first of that name in the search path.
    public var path: String
    /// The drop-ins that were applied, in the order applied. Empty for a masked notification.
    public var dropInPaths: [String]
    public var content: Content
}
