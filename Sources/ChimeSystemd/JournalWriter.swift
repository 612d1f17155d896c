import CSystemd
import Glibc

/// Writes structured entries to the systemd journal over its native protocol.
///
/// When no journald listens (its socket does not exist), libsystemd reports success and the entry is lost:
/// `isJournalAvailable` tells whether anything would receive it.
public struct JournalWriter: Sendable {
    /// The socket of journald's native protocol, which `sd_journal_sendv` writes to.
    public static let socketPath = "/run/systemd/journal/socket"

    public init() {}

    /// Sends one entry holding `fields`, in order, with `sd_journal_sendv(3)`: one `NAME=value` iovec per field.
    ///
    /// A name must be a journal field name (upper-case letters, digits and `_`, not starting with `_`); journald
    /// drops fields with other names. A value may hold any text, newlines included (libsystemd then sends it in
    /// its length-prefixed form); a name may repeat.
    /// - Throws: `SystemdError` with the errno `sd_journal_sendv` returned, e.g. `EINVAL` for no fields or an empty
    ///   name, `ECONNREFUSED` when the socket exists but nobody reads it.
    public func send(_ fields: [(name: String, value: String)]) throws(SystemdError) {
        // All "NAME=value" strings in one buffer, so that the iovecs can point into it while it is pinned.
        var bytes: [UInt8] = []
        var spans: [Range<Int>] = []
        for field in fields {
            let start = bytes.count
            bytes.append(contentsOf: field.name.utf8)
            bytes.append(UInt8(ascii: "="))
            bytes.append(contentsOf: field.value.utf8)
            spans.append(start..<bytes.count)
        }
        let result = bytes.withUnsafeMutableBytes { buffer in
            var vectors = spans.map { span in
                iovec(iov_base: buffer.baseAddress.map { $0 + span.lowerBound }, iov_len: span.count)
            }
            return sd_journal_sendv(&vectors, Int32(vectors.count))
        }
        try SystemdError.check(result, call: "sd_journal_sendv")
    }

    /// Whether journald's socket exists, i.e. whether `send` reaches a journal rather than succeeding silently.
    public static var isJournalAvailable: Bool {
        var status = stat()
        return stat(socketPath, &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK
    }

    /// Whether standard error is already connected to the journal, as systemd does for a service with the default
    /// `StandardError=journal`: then a line on standard error becomes a journal entry of its own.
    ///
    /// systemd announces the connection in `JOURNAL_STREAM=DEVICE:INODE` (decimal), which must match `fstat` of
    /// file descriptor 2; a mismatch means the variable was inherited and stderr was redirected since.
    /// `systemd-cat` does not set the variable.
    public static func isStandardErrorJournal(environment: [String: String]) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        return isJournalStream(stream, descriptor: STDERR_FILENO)
    }

    /// Whether `journalStream` (`DEVICE:INODE`) names the file that `descriptor` refers to.
    static func isJournalStream(_ journalStream: String, descriptor: Int32) -> Bool {
        let parts = journalStream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
