import ChimeCore
import ChimeSystemd
import Foundation

/// `journal`: one structured journal entry per delivery, with `sd_journal_sendv`.
///
/// The entry is the record of the delivery (`MESSAGE_ID` delivered, or caught-up for a late one) and carries
/// `CHIME_ID`, `CHIME_FIRE_TIME`, `CHIME_TITLE`, `CHIME_BACKEND=journal`, the body, and each `Info=KEY=VALUE` as
/// `CHIME_INFO_KEY`; `journalctl CHIME_ID=standup` finds them.
public struct JournalBackend: DeliveryBackend, RecordsOwnDelivery {
    public let name = "journal"
    private let writer = JournalWriter()

    public init() {}

    /// Whether a journald listens. Without one `sd_journal_sendv` succeeds and the entry is lost, so a delivery
    /// that "succeeded" reached nobody.
    public static var isJournalAvailable: Bool { JournalWriter.isJournalAvailable }

    /// journald's socket, whose absence `isJournalAvailable` reports.
    public static var socketPath: String { JournalWriter.socketPath }

    /// No journald listens: the entry would be lost, so the delivery fails.
    struct JournalMissing: Error, CustomStringConvertible {
        var description: String { "no journal listens (\(JournalBackend.socketPath) is missing)" }
    }

    public func deliver(_ delivery: Delivery, deliveredAt: Date) async throws {
        guard Self.isJournalAvailable else { throw JournalMissing() }
        let event = Dispatcher.delivered(delivery, backend: name, at: deliveredAt)
        try writer.send(event.journalFields + [("SYSLOG_IDENTIFIER", "chimed")])
    }
}
