import CSystemd
import ChimePlatform
import Foundation
import Glibc

/// Reads the systemd journal with sd-journal: open, match, seek, step, read fields.
///
/// One reader is one `sd_journal` handle: sd-journal is neither thread-safe nor fork-safe, so a reader is used
/// by one thread at a time and is not `Sendable`. The handle is closed when the reader is released.
///
/// Matches follow sd-journal's rules: matches on the same field are alternatives (`CHIME_ID=a` or `CHIME_ID=b`),
/// matches on different fields must all hold, `addDisjunction()` and `addConjunction()` combine groups.
public final class JournalReader {
    /// One journal entry: its fields and when journald received it.
    public struct Entry: Sendable, Equatable {
        /// Every field of the entry, trusted `_…` fields included. A field that occurs more than once keeps its
        /// first value; a value that is not UTF-8 has its bad bytes replaced with U+FFFD.
        public var fields: [String: String]
        /// The entry's wall-clock time (`CLOCK_REALTIME` when journald received it), in µs since the epoch.
        public var realtimeMicroseconds: UInt64

        public init(fields: [String: String], realtimeMicroseconds: UInt64) {
            self.fields = fields
            self.realtimeMicroseconds = realtimeMicroseconds
        }

        /// The entry's wall-clock time.
        public var realtime: Date {
            Date(timeIntervalSince1970: Double(realtimeMicroseconds) / 1_000_000)
        }

        public subscript(field: String) -> String? { fields[field] }
    }

    private let handle: OpaquePointer

    /// Opens the local machine's journal files, system and users', with
    /// `sd_journal_open(3)` and `SD_JOURNAL_LOCAL_ONLY`.
    ///
    /// Files the caller may not read are skipped silently (sd-journal does not say which); an unprivileged user
    /// then sees only their own user journal, if there is one.
    /// - Throws: `SystemdError` from `sd_journal_open`.
    public convenience init() throws(SystemdError) {
        var handle: OpaquePointer?
        try SystemdError.check(sd_journal_open(&handle, Int32(SD_JOURNAL_LOCAL_ONLY)), call: "sd_journal_open")
        try self.init(opened: handle, call: "sd_journal_open")
    }

    /// Opens the journal files in `directory` and in its subdirectories named by machine ids (as
    /// `journalctl --directory` does), with `sd_journal_open_directory(3)`.
    /// - Throws: `SystemdError` from `sd_journal_open_directory`, e.g. `ENOENT` when `directory` does not exist.
    public convenience init(directory: String) throws(SystemdError) {
        var handle: OpaquePointer?
        try SystemdError.check(sd_journal_open_directory(&handle, directory, 0), call: "sd_journal_open_directory")
        try self.init(opened: handle, call: "sd_journal_open_directory")
    }

    private init(opened handle: OpaquePointer?, call: String) throws(SystemdError) {
        guard let handle else { throw SystemdError(call: call, errno: .invalidArgument) }
        self.handle = handle
    }

    /// Closes the handle with `sd_journal_close(3)`.
    deinit {
        sd_journal_close(handle)
    }

    /// Adds the match `field=value` with `sd_journal_add_match(3)`.
    ///
    /// `value` is matched byte for byte; `field` must be a valid field name (upper-case letters, digits, `_`).
    /// - Throws: `SystemdError` with `EINVAL` for an invalid field name.
    public func addMatch(field: String, value: String) throws(SystemdError) {
        var bytes = Array(field.utf8)
        bytes.append(UInt8(ascii: "="))
        bytes.append(contentsOf: value.utf8)
        // The size is passed explicitly: a value may contain NUL, and size 0 would mean "use strlen()".
        let result = bytes.withUnsafeBytes { sd_journal_add_match(handle, $0.baseAddress, $0.count) }
        try SystemdError.check(result, call: "sd_journal_add_match")
    }

    /// Ends the current group of matches so that the next ones are an alternative to it, with
    /// `sd_journal_add_disjunction(3)`.
    public func addDisjunction() throws(SystemdError) {
        try SystemdError.check(sd_journal_add_disjunction(handle), call: "sd_journal_add_disjunction")
    }

    /// Ends the current group of matches so that the next ones must hold as well, with
    /// `sd_journal_add_conjunction(3)`.
    public func addConjunction() throws(SystemdError) {
        try SystemdError.check(sd_journal_add_conjunction(handle), call: "sd_journal_add_conjunction")
    }

    /// Removes every match, with `sd_journal_flush_matches(3)`.
    public func flushMatches() {
        sd_journal_flush_matches(handle)
    }

    /// Moves before the first entry, with `sd_journal_seek_head(3)`: `next()` then reads the oldest.
    public func seekHead() throws(SystemdError) {
        try SystemdError.check(sd_journal_seek_head(handle), call: "sd_journal_seek_head")
    }

    /// Moves after the last entry, with `sd_journal_seek_tail(3)`: `previous()` then reads the newest.
    public func seekTail() throws(SystemdError) {
        try SystemdError.check(sd_journal_seek_tail(handle), call: "sd_journal_seek_tail")
    }

    /// Moves to the wall-clock time `microseconds` (since the epoch), with `sd_journal_seek_realtime_usec(3)`:
    /// `next()` then reads the first entry at or after it, `previous()` the last one at or before it.
    ///
    /// Wall-clock time is not monotonic across clock changes, so this is a starting point, not a filter.
    public func seek(realtimeMicroseconds microseconds: UInt64) throws(SystemdError) {
        try SystemdError.check(
            sd_journal_seek_realtime_usec(handle, microseconds), call: "sd_journal_seek_realtime_usec")
    }

    /// Steps to the next entry that passes the matches, with `sd_journal_next(3)`. Returns `false` at the end.
    public func next() throws(SystemdError) -> Bool {
        let result = sd_journal_next(handle)
        try SystemdError.check(result, call: "sd_journal_next")
        return result > 0
    }

    /// Steps to the previous entry that passes the matches, with `sd_journal_previous(3)`. Returns `false` at the
    /// beginning.
    public func previous() throws(SystemdError) -> Bool {
        let result = sd_journal_previous(handle)
        try SystemdError.check(result, call: "sd_journal_previous")
        return result > 0
    }

    /// The current entry's wall-clock time in µs since the epoch, with `sd_journal_get_realtime_usec(3)`.
    /// - Throws: `SystemdError` with `EADDRNOTAVAIL` when no entry is current (before the first step).
    public func realtimeMicroseconds() throws(SystemdError) -> UInt64 {
        var microseconds: UInt64 = 0
        try SystemdError.check(
            sd_journal_get_realtime_usec(handle, &microseconds), call: "sd_journal_get_realtime_usec")
        return microseconds
    }

    /// The value of `field` in the current entry, or `nil` when it has none, with `sd_journal_get_data(3)`.
    ///
    /// For a field that occurs several times, this is the first value. A compressed value longer than the data
    /// threshold (64 KiB) is cut there, as sd-journal does.
    public func value(of field: String) throws(SystemdError) -> String? {
        var data: UnsafeRawPointer?
        var length = 0
        let result = sd_journal_get_data(handle, field, &data, &length)
        if result == -ENOENT { return nil }
        try SystemdError.check(result, call: "sd_journal_get_data")
        // The data is "FIELD=value", not NUL-terminated, valid until the next call on the handle.
        return Self.split(data, length)?.value
    }

    /// Every field of the current entry, with `sd_journal_restart_data(3)` and `sd_journal_enumerate_data(3)`.
    ///
    /// A field that occurs several times keeps its first value.
    public func fields() throws(SystemdError) -> [String: String] {
        sd_journal_restart_data(handle)
        var fields: [String: String] = [:]
        while true {
            var data: UnsafeRawPointer?
            var length = 0
            let result = sd_journal_enumerate_data(handle, &data, &length)
            try SystemdError.check(result, call: "sd_journal_enumerate_data")
            guard result > 0 else { return fields }
            if let field = Self.split(data, length), fields[field.name] == nil {
                fields[field.name] = field.value
            }
        }
    }

    /// The current entry: `fields()` and `realtimeMicroseconds()`.
    public func entry() throws(SystemdError) -> Entry {
        Entry(fields: try fields(), realtimeMicroseconds: try realtimeMicroseconds())
    }

    /// Splits sd-journal's `FIELD=value` bytes at the first `=`.
    private static func split(_ data: UnsafeRawPointer?, _ length: Int) -> (name: String, value: String)? {
        guard let data else { return nil }
        let bytes = UnsafeRawBufferPointer(start: data, count: length)
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        return (
            String(decoding: bytes[..<equals], as: UTF8.self),
            String(decoding: bytes[(equals + 1)...], as: UTF8.self)
        )
    }
}
