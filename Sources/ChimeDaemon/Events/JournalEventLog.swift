import ChimeCore
import ChimePlatform
import ChimeSystemd
import Foundation

/// The daemon's event log: each event as one structured journal entry, and as a line on standard error unless
/// standard error already goes to the journal (a service's default), so that errors reach a foreground user too.
///
/// A failing journal write is reported once on standard error (again only after a write succeeded in between), and
/// the events that could not be written go to standard error instead, even when it is the journal's stream.
public struct JournalEventLog: EventLog {
    /// The entries' `SYSLOG_IDENTIFIER`, and the prefix of lines on standard error.
    public let identifier: String
    private let standardErrorIsJournal: Bool
    private let send: @Sendable ([(name: String, value: String)]) throws(SystemdError) -> Void
    private let writeLine: @Sendable (String) -> Void
    private let outage = Outage()

    /// Writes with `JournalWriter` and to file descriptor 2; `environment` tells whether that is the journal
    /// (`JOURNAL_STREAM`).
    public init(identifier: String = "chimed", environment: [String: String] = ProcessInfo.processInfo.environment) {
        let writer = JournalWriter()
        self.init(
            identifier: identifier,
            standardErrorIsJournal: JournalWriter.isStandardErrorJournal(environment: environment),
            send: { fields throws(SystemdError) in try writer.send(fields) },
            writeLine: StandardError.writeLine)
    }

    /// Sends entries with `send` and writes standard error's lines (without their newline) with `writeLine`.
    init(
        identifier: String, standardErrorIsJournal: Bool,
        send: @escaping @Sendable ([(name: String, value: String)]) throws(SystemdError) -> Void,
        writeLine: @escaping @Sendable (String) -> Void
    ) {
        self.identifier = identifier
        self.standardErrorIsJournal = standardErrorIsJournal
        self.send = send
        self.writeLine = writeLine
    }

    public func record(_ event: DaemonEvent) {
        do {
            try send(event.journalFields + [("SYSLOG_IDENTIFIER", identifier)])
            outage.end()
            if !standardErrorIsJournal {
                writeLine(line(event.message, priority: event.priority))
            }
        } catch {
            if outage.begin() {
                writeLine(
                    line("Failed to write to the journal (\(error)), writing events here instead", priority: .warning))
            }
            writeLine(line(event.message, priority: event.priority))
        }
    }

    /// `chimed: MESSAGE` on a terminal or file; `<PRIORITY>MESSAGE` when standard error is the journal's stream, which
    /// reads the priority from that prefix and adds the identifier itself.
    private func line(_ message: String, priority: DaemonEvent.Priority) -> String {
        standardErrorIsJournal ? "<\(priority.rawValue)>\(message)" : "\(identifier): \(message)"
    }
}

/// Whether journal writes are failing; shared by the copies of a `JournalEventLog`.
private final class Outage: Sendable {
    private let failing = Locked(false)

    /// Records a failed write; returns whether it is the first since the last success.
    func begin() -> Bool {
        failing.withLock { failing in
            defer { failing = true }
            return !failing
        }
    }

    /// Records a successful write.
    func end() {
        failing.withLock { $0 = false }
    }
}

/// File descriptor 2, written without buffering.
enum StandardError {
    /// Writes `line` and a newline in one `write(2)` where possible, so that lines of several threads do not
    /// interleave.
    @Sendable static func writeLine(_ line: String) {
        // Standard error is the report of last resort: when it fails there is nowhere left to say so.
        try? SystemCall.writeAll(STDERR_FILENO, Array(line.utf8) + [UInt8(ascii: "\n")], call: "write")
    }
}
