import ChimeCore
import Foundation

/// Writes files so that a reader sees the old content or the new, never a torn mix: temporary file in the same
/// directory, fsync, rename over the target, fsync of the directory.
public enum AtomicFile {
    /// Writes `text` to `path` atomically. With `durable` (the default) the data and the rename are also synced
    /// to disk before returning; without, a reader still never sees a torn file, but a power loss may lose the
    /// latest version (fine for runtime files, which do not outlive a boot).
    /// - Throws: `SystemCallError` naming the call and the file (`write /var/lib/chime/.badge.12.tmp: No space…`).
    public static func write(_ text: String, to path: String, mode: mode_t = 0o644, durable: Bool = true) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = "\(directory)/.\((path as NSString).lastPathComponent).\(getpid()).tmp"
        let fd = try SystemCall.retrying("open \(temporary)") {
            open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        }
        do {
            try SystemCall.writeAll(fd, text.utf8, call: "write \(temporary)")
            if durable { try SystemCall.retrying("fsync \(temporary)") { fsync(fd) } }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = SystemCallError(call: "rename \(path)", errno: .current)
            unlink(temporary)
            throw error
        }
        guard durable else { return }
        let directoryFD = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }
}
