import ChimeCore
import ChimeSystemd
import Foundation
import Glibc

/// `chimectl history`: what became of chime's notifications, read back from the journal.
struct HistoryCommand: Command {
    static let name = "history"
    static let summary = "Show past deliveries and their outcomes, read from the journal"
    static let usage =
        "chimectl history [--json] [--lines=N] [--since=TIME] [--until=TIME] [--all] [--user] [--directory=DIR]"
        + " [ID...]"
    static let help = """
        Shows the outcome of each delivery chimed made, one line per backend, oldest first: delivered, caught-up
        (delivered late, for Persistent=yes), or failed, with the error; and interrupted, for a delivery that
        chimed's previous run did not finish and the next one made again. With IDs, only those notifications.
        chimed logs these to the journal (MESSAGE_IDs in chime.catalog); this reads them with sd-journal, as
        'journalctl SYSLOG_IDENTIFIER=chimed CHIME_ID=ID' would.

        Options:
          --lines=N             the N most recent entries (default 20), or 'all'
          --since=TIME          only entries from TIME on, in systemd.time(7) syntax ('today', '2026-11-30 09:00')
          --until=TIME          only entries up to TIME
          --all                 also occurrences not delivered: missed (chimed was not running; Persistent=no)
                                and skipped-past (At= already past when loaded)
          --json                one JSON object per entry and line:
                                {"time":"2026-11-30T08:55:00.000912Z","id":…,"event":"delivered","backend":…,
                                "title":…,"body":…,"fire_time":…,"last_fire_time":…,"delivered_at":…,"missed":…,
                                "error":…,"message":…,"info":{…}}, null where an entry lacks the field
          --user                the calling user's instance (entries with _UID= the caller's); otherwise the
                                system instance (_SYSTEMD_UNIT=chimed.service, or _UID=0)
          --directory=DIR       read the journal files in DIR instead of the local journal
          -h, --help            show this help

        Reading the system journal needs root or membership in the group systemd-journal or adm.
        Exit status: 0, 1 when the journal cannot be read or there is none, 64 on usage errors.
        """
    static let grammar = ParsedArguments.Grammar(
        valued: ["lines", "since", "until", "directory"], flags: ["json", "all", "user"])

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        let query = try query(arguments, in: context)
        let directory = arguments.value("directory")
        let reader: JournalReader
        do {
            if let directory {
                reader = try JournalReader(directory: directory)
            } else {
                reader = try JournalReader()
            }
        } catch {
            throw CommandFailure("cannot open the journal\(directory.map { " in \($0)" } ?? ""): \(error)")
        }
        let records: [HistoryRecord]
        do {
            records = try query.records(from: reader)
        } catch {
            throw CommandFailure("cannot read the journal: \(error)")
        }
        let access = JournalAccess(
            directories: directory.map { [$0] } ?? JournalAccess.localDirectories, uid: query.uid)
        if records.isEmpty, let absence = access.absence { throw CommandFailure(absence) }
        if let explanation = access.explanation {
            // Nothing found may mean only that the entries are in the files we cannot read.
            guard !records.isEmpty else { throw CommandFailure(explanation) }
            context.errors.line("chimectl history: \(explanation); entries in those files are not shown.")
        }
        if arguments.has("json") {
            for record in records { context.output.line(record.json.serialized) }
            return .success
        }
        guard !records.isEmpty else {
            context.output.line("No entries.")
            return .success
        }
        var table = TextTable(header: ["TIME", "ID", "EVENT", "BACKEND", "TITLE"])
        for record in records {
            table.add([
                Timestamp.format(record.time, zone: context.localZone) ?? "-", record.id, record.event,
                record.backend ?? "-", record.summary,
            ])
        }
        context.output.write(table.rendered())
        return .success
    }

    /// The query that the arguments ask for.
    static func query(_ arguments: ParsedArguments, in context: CommandContext) throws(UsageError) -> HistoryQuery {
        let user = arguments.has("user")
        var query = HistoryQuery(uid: user ? getuid() : 0, unit: user ? nil : "chimed.service")
        if arguments.has("all") { query.kinds = HistoryQuery.allKinds }
        query.ids = arguments.operands
        if let lines = arguments.value("lines") {
            if lines == "all" {
                query.limit = nil
            } else {
                guard let count = Int(lines), count > 0 else {
                    throw UsageError("invalid --lines '\(lines)': expected a positive number or 'all'")
                }
                query.limit = count
            }
        }
        query.since = try arguments.timestamp("since", in: context)
        query.until = try arguments.timestamp("until", in: context)
        if let since = query.since, let until = query.until, since > until {
            throw UsageError("--since must not be after --until")
        }
        return query
    }
}

/// Columns padded to their widest cell, two spaces apart, the last one unpadded.
struct TextTable {
    private var rows: [[String]]

    init(header: [String]) {
        rows = [header]
    }

    /// Appends a row; line breaks and tabs in a cell become spaces, so that a row stays one line.
    mutating func add(_ cells: [String]) {
        rows.append(cells.map { $0.replacingOccurrences(of: "[\n\r\t]", with: " ", options: .regularExpression) })
    }

    func rendered() -> String {
        var widths: [Int] = []
        for row in rows {
            for (index, cell) in row.enumerated() {
                if index == widths.count { widths.append(0) }
                widths[index] = max(widths[index], cell.count)
            }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ") + "\n"
        }.joined()
    }
}
