import Foundation

/// Writes files so that a reader sees the old content or the new, never a torn mix: temporary file in the same
/// directory, fsync, rename over the target, fsync of the directory.
public enum AtomicFile {
    public struct WriteError: Error, CustomStringConvertible {
        public let path: String
        public let operation: String
        public let errno: Int32

        public var description: String { "\(operation) \(path): \(String(cString: strerror(errno)))" }
    }

    /// Writes `text` to `path` atomically. With `durable` (the default) the data and the rename are also synced
    /// to disk before returning; without, a reader still never sees a torn file, but a power loss may lose the
    /// latest version (fine for runtime files, which do not outlive a boot).
    public static func write(_ text: String, to path: String, mode: mode_t = 0o644, durable: Bool = true) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = "\(directory)/.\((path as NSString).lastPathComponent).\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw WriteError(path: temporary, operation: "open", errno: errno) }
        var ok = true
        var failure = WriteError(path: temporary, operation: "write", errno: 0)
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                ok = false
                failure = WriteError(path: temporary, operation: "write", errno: errno)
                break
            }
            offset += written
        }
        if ok && durable && fsync(fd) != 0 {
            ok = false
            failure = WriteError(path: temporary, operation: "fsync", errno: errno)
        }
        close(fd)
        guard ok else {
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, path) == 0 else {
            let error = WriteError(path: path, operation: "rename", errno: errno)
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
