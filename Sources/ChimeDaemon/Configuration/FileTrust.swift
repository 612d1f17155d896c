import ChimePlatform
import Glibc

/// Decides whether a configuration file, generator or `generators.d` directory may be used: it must be owned by
/// root or by the user chimed runs as, and writable by neither its group nor others.
///
/// A notification file can name a command (`ExecAction=`) and a generator is one, both run as chimed's user; so
/// anyone who can change them could run code as that user. The rule is sshd's `StrictModes`, applied to what
/// chimed reads and runs. The file is checked through symlinks (what is read or run is the target).
struct FileTrust: Sendable {
    /// The user chimed runs as; its files are trusted like root's.
    var daemonUser: uid_t

    init(daemonUser: uid_t = geteuid()) {
        self.daemonUser = daemonUser
    }

    /// Why `path` must not be used, as one sentence about `subject` ("File", "Generator", "Directory") ending in
    /// "refusing to `action`" and the command that fixes it; `nil` when it may be used.
    /// - Parameter read: the owner and mode of the file as it was read (`PosixFileKindProbe`), which are then
    ///   what is judged instead of the path's as it is now.
    func objection(to path: String, subject: String, action: String, read: FileOwnership? = nil) -> String? {
        var status = stat()
        if let read {
            status.st_uid = read.owner
            status.st_mode = read.mode
        } else if stat(path, &status) != 0 {
            return "\(subject) cannot be checked (\(String(cString: strerror(errno)))); refusing to \(action)."
        }
        if status.st_uid != 0 && status.st_uid != daemonUser {
            let owners = daemonUser == 0 ? "root" : "root or uid \(daemonUser), which chimed runs as"
            let fix = daemonUser == 0 ? "root" : String(daemonUser)
            return "\(subject) is owned by uid \(status.st_uid), not by \(owners); refusing to \(action) "
                + "(chown \(fix) \(path))."
        }
        let byGroup = status.st_mode & S_IWGRP != 0
        let byOthers = status.st_mode & S_IWOTH != 0
        guard byGroup || byOthers else { return nil }
        let whom = byGroup && byOthers ? "its group and by others" : byGroup ? "its group" : "others"
        let who = (byGroup ? "g" : "") + (byOthers ? "o" : "")
        return "\(subject) is writable by \(whom); refusing to \(action) (chmod \(who)-w \(path))."
    }
}
