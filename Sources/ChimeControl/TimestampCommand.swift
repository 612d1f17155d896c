import ChimeCore
import Foundation

/// `chimectl timestamp`: parses timestamps as `systemd-analyze timestamp` does and shows them normalised.
struct TimestampCommand: Command {
    static let name = "timestamp"
    static let summary = "Parse timestamps and show them normalised, in UTC and as UNIX time"
    static let usage = "chimectl timestamp [--json] TIMESTAMP..."
    static let help = """
        Parses each TIMESTAMP as systemd.time(7) reads one — '2026-12-01 07:00', 'Tue 2026-12-01 07:00:00 CET',
        '2026-12-01 07:00 Asia/Tokyo', '@1796108400', 'now', 'today', 'tomorrow', '+5min', '5min ago' — and
        prints it in local time and UTC, as seconds since the epoch, and relative to now. The local zone follows
        $TZ. This is the syntax of At=, From= and Until= in notification files, which take only the forms that
        name the same instant whenever the file is read: not 'now', 'today', 'tomorrow', '+5min', '5min ago' or a
        time without a date ('chimectl add --at' fixes those when the request is made).

        Options:
          --json                one JSON object per TIMESTAMP and line:
                                {"timestamp":…,"utc":"2026-12-01T07:00:00Z","epoch_usec":…} or {"timestamp":…,"error":…}
          -h, --help            show this help

        Exit status: 0 if every TIMESTAMP parsed, 1 otherwise, 64 on usage errors.
        """
    static let grammar = ParsedArguments.Grammar(flags: ["json"])

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        guard !arguments.operands.isEmpty else { throw UsageError("expected at least one timestamp") }
        var status = ExitCode.success
        for (index, text) in arguments.operands.enumerated() {
            let date: Date
            do {
                date = try Timestamp.parse(text, now: context.now, localZone: context.localZone, zones: context.zones)
            } catch {
                status = .failure
                if arguments.has("json") {
                    context.output.line(
                        JSONValue.object([("timestamp", .string(text)), ("error", .string("\(error)"))]).serialized)
                } else {
                    context.errors.line("Failed to parse \"\(text)\": \(error)")
                }
                continue
            }
            let microseconds = date.epochMicroseconds
            if arguments.has("json") {
                let members: [(String, JSONValue)] = [
                    ("timestamp", .string(text)), ("utc", .string(Timestamp.iso8601(date))),
                    ("epoch_usec", .number(microseconds)),
                ]
                context.output.line(JSONValue.object(members).serialized)
                continue
            }
            var lines = LabelledLines()
            lines.add("Original form:", text)
            lines.add("Normalized form:", Timestamp.format(date, zone: context.localZone) ?? Timestamp.unformattable)
            if !context.localZone.isUniversal {
                lines.add("(in UTC):", Timestamp.formatUTC(date) ?? Timestamp.unformattable)
            }
            let seconds = String(microseconds / 1_000_000)
            let fraction = microseconds % 1_000_000
            let fractionText = String(fraction)
            lines.add(
                "UNIX seconds:",
                fraction == 0
                    ? "@" + seconds
                    : "@\(seconds).\(String(repeating: "0", count: 6 - fractionText.count))\(fractionText)")
            lines.add("From now:", Timestamp.relativeDescription(of: date, now: context.now))
            context.output.write(lines.rendered())
            if index + 1 < arguments.operands.count { context.output.line() }
        }
        return status
    }
}
