import Foundation
import Glibc

/// Which journal files and directories the caller cannot read.
///
/// sd-journal skips files it cannot open without saying so, so a user outside the groups that may read the
/// journal would see an empty history and not know why; `journalctl` looks for itself too, before its "Hint: You
/// are currently not seeing messages from other users and the system".
struct JournalAccess {
    /// Where journald keeps the local journal: volatile, then persistent.
    static let localDirectories = ["/run/log/journal", "/var/log/journal"]

    /// The journal files (`*.journal`, `*.journal~`) and directories in `directories` and their immediate
    /// subdirectories (one per machine id) that cannot be read, with the error that reading each fails with.
    ///
    /// Another user's journal (`user-UID.journal`, `user-UID@….journal~`) is left out: journald puts only that
    /// user's entries there, never those of `uid`.
    let unreadable: [(path: String, errno: Int32)]
    /// Whether any journal file was found, readable or not: none means no journald has kept a journal there.
    let foundJournal: Bool
    /// The directories looked in.
    let directories: [String]

    init(directories: [String], uid: UInt32) {
        var unreadable: [(path: String, errno: Int32)] = []
        var found = false
        for directory in directories {
            Self.check(directory, depth: 1, into: &unreadable, found: &found)
        }
        self.unreadable = unreadable.filter { Self.userOfJournal($0.path).map { $0 == uid } ?? true }
        self.foundJournal = found || !unreadable.isEmpty
        self.directories = directories
    }

    /// The uid in the name of a user journal (`user-1000.journal`, `user-1000@….journal~`), else `nil`.
    static func userOfJournal(_ path: String) -> UInt32? {
        let name = path.split(separator: "/").last ?? ""
        guard name.hasPrefix("user-") else { return nil }
        return UInt32(name.dropFirst(5).prefix { $0.isASCII && $0.isNumber })
    }

    /// Adds `directory` if it exists but cannot be listed, else its unreadable journal files and, `depth` levels
    /// down, its unreadable subdirectories and their files.
    private static func check(
        _ directory: String, depth: Int, into unreadable: inout [(path: String, errno: Int32)], found: inout Bool
    ) {
        guard access(directory, R_OK | X_OK) == 0 else {
            if errno != ENOENT && errno != ENOTDIR { unreadable.append((directory, errno)) }
            return
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names.sorted() {
            let path = directory + "/" + name
            if name.hasSuffix(".journal") || name.hasSuffix(".journal~") {
                found = true
                if access(path, R_OK) != 0 { unreadable.append((path, errno)) }
            } else if depth > 0, isDirectory(path) {
                check(path, depth: depth - 1, into: &unreadable, found: &found)
            }
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    /// Says that there is no journal to read, or `nil` when there is one.
    var absence: String? {
        guard !foundJournal else { return nil }
        return "no journal found: there are no journal files in \(directories.joined(separator: " or ")); chimed "
            + "records its deliveries in the journal, which systemd-journald keeps (is it running?)"
    }

    /// Says what could not be read and who may read it, or `nil` when everything could.
    var explanation: String? {
        guard let first = unreadable.first else { return nil }
        let more = unreadable.count > 1 ? " and \(unreadable.count - 1) more" : ""
        return "cannot read the journal at \(first.path)\(more): \(String(cString: strerror(first.errno))); "
            + "root and the members of the groups 'systemd-journal' and 'adm' can read the whole journal "
            + "(add yourself with 'usermod -a -G systemd-journal USER', then log in again)"
    }
}
