import ChimeCore
import ChimePlatform
import Foundation
import Glibc

/// The records the state journal (`occurrences.log`) could not take, kept in a file of the runtime directory (a
/// tmpfs: another file system, which survives chimed but not a reboot) until it can: while the state directory is
/// full, what was delivered is recorded here, and a restart before space returns reads it here rather than deliver
/// it again. Only what could be recorded in neither place may come twice.
///
/// The file's first line says where in the journal its records begin (`{"journal_offset":N}`): a journal that took
/// some of them before the file could be removed (a crash in that moment) is not given them twice.
struct JournalOverflow: Sendable {
    let path: String

    /// Replaces the file by `records` (whole lines), the records that follow the journal's first `offset` bytes.
    /// Returns whether they are kept.
    func keep(_ records: [UInt8], after offset: Int) -> Bool {
        guard !records.isEmpty else {
            clear()
            return true
        }
        // Not synced: the file is there for a restart after chimed's end, not after the machine's.
        let text = #"{"journal_offset":\#(offset)}"# + "\n" + String(decoding: records, as: UTF8.self)
        return (try? AtomicFile.write(text, to: path, mode: 0o600, durable: false)) != nil
    }

    /// Removes the file: the journal (or a snapshot) holds everything it held.
    func clear() {
        unlink(path)
    }

    /// The records that a journal of `journalLength` bytes (whole records) does not hold yet, in order; empty when
    /// there are none (or no file).
    func records(beyond journalLength: Int) -> [UInt8] {
        guard let bytes = FileManager.default.contents(atPath: path),
            let newline = bytes.firstIndex(of: UInt8(ascii: "\n")),
            let header = try? JSONSerialization.jsonObject(with: bytes[..<newline]) as? [String: Any],
            let offset = (header["journal_offset"] as? NSNumber)?.intValue, offset >= 0
        else { return [] }
        let records = bytes[(newline + 1)...]
        // The journal took the first of them already: what it holds beyond the offset, whole records, is left out.
        let taken = journalLength - offset
        guard taken > 0 else { return Array(records) }
        guard taken < records.count else { return [] }
        let rest = records.dropFirst(taken)
        if records[records.startIndex + taken - 1] == UInt8(ascii: "\n") { return Array(rest) }
        // Not on a record's boundary (the journal changed otherwise): from the next whole record.
        guard let next = rest.firstIndex(of: UInt8(ascii: "\n")) else { return [] }
        return Array(rest[(next + 1)...])
    }
}
