import ChimeCore
import ChimeDaemon
import ChimeSystemd
import Foundation

/// Which of chimed's journal entries `chimectl history` shows, and how to find them with sd-journal.
struct HistoryQuery {
    /// The outcomes of deliveries, one entry per backend.
    static let deliveryKinds: [DaemonEvent.Kind] = [.delivered, .caughtUp, .deliveryFailed]
    /// With `--all`: also the occurrences chimed did not deliver.
    static let allKinds = deliveryKinds + [.missed, .skippedPast]

    var kinds: [DaemonEvent.Kind] = deliveryKinds
    /// The `_UID` of the instance's chimed: 0 for the system instance, the user's own for `--user`. journald
    /// sets `_UID` from the sender's credentials, so another user's process cannot pass for it.
    var uid: UInt32
    /// The system service whose entries are the instance's too, whatever user it runs as (`chimed.service` runs as
    /// the user chime); `nil` for a user instance. journald sets `_SYSTEMD_UNIT` from the sender's control group,
    /// which only the service manager puts processes in.
    var unit: String?
    /// `CHIME_ID`s to show; empty for every notification.
    var ids: [String] = []
    /// Only entries received at or after this instant.
    var since: Date?
    /// Only entries received at or before this instant.
    var until: Date?
    /// At most this many records, the most recent ones; `nil` for all.
    var limit: Int? = 20

    /// The records that match, oldest first.
    ///
    /// Walks backwards from the end (or from `until`) so that only the records shown are read, and stops at the
    /// first entry before `since`, as `journalctl` does: after the clock was set back, older-looking entries that
    /// are newer in the journal are not looked for beyond that point.
    func records(from reader: JournalReader) throws(SystemdError) -> [HistoryRecord] {
        try installMatches(on: reader)
        if let until {
            try reader.seek(realtimeMicroseconds: UInt64(clamping: until.epochMicroseconds + 1))
        } else {
            try reader.seekTail()
        }
        var records: [HistoryRecord] = []
        let sinceMicroseconds = since.map { UInt64(clamping: $0.epochMicroseconds) }
        let untilMicroseconds = until.map { UInt64(clamping: $0.epochMicroseconds) }
        while limit.map({ records.count < $0 }) ?? true, try reader.previous() {
            let time = try reader.realtimeMicroseconds()
            if let untilMicroseconds, time > untilMicroseconds { continue }
            if let sinceMicroseconds, time < sinceMicroseconds { break }
            if let record = HistoryRecord(try reader.entry()) { records.append(record) }
        }
        return records.reversed()
    }

    /// Who may have sent the instance's entries, as journal fields that journald sets itself: a chimed running as
    /// `uid` (started by hand, or a system instance of an earlier version, which ran as root), or one in `unit`.
    var senders: [(field: String, value: String)] {
        [("_UID", String(uid))] + (unit.map { [("_SYSTEMD_UNIT", $0)] } ?? [])
    }

    /// chimed's entries of the chosen kinds (and ids) from any of the senders: matches on the same field are
    /// alternatives, different fields must all match, and each sender is a group of its own (a disjunction).
    func installMatches(on reader: JournalReader) throws(SystemdError) {
        reader.flushMatches()
        for (index, sender) in senders.enumerated() {
            if index > 0 { try reader.addDisjunction() }
            try reader.addMatch(field: "SYSLOG_IDENTIFIER", value: "chimed")
            try reader.addMatch(field: sender.field, value: sender.value)
            for kind in kinds { try reader.addMatch(field: "MESSAGE_ID", value: kind.messageID) }
            for id in ids { try reader.addMatch(field: "CHIME_ID", value: id) }
        }
    }
}
