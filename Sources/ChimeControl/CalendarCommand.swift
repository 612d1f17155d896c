import ChimeCore
import Foundation

/// `chimectl calendar`: normalises calendar events and lists when they elapse next, as
/// `systemd-analyze calendar` does.
struct CalendarCommand: Command {
    static let name = "calendar"
    static let summary = "Normalise calendar events and show when they elapse next"
    static let usage = "chimectl calendar [--iterations=N] [--base-time=TIMESTAMP] [--json] SPEC..."
    static let help = """
        Parses each SPEC as a systemd.time(7) calendar event, prints its normalised form and the next
        elapses after the base time (now by default), in local time and UTC. Time zones and DST are handled
        as systemd does; the local zone follows $TZ.

        Options:
          --iterations=N        how many elapses to show (default 1)
          --base-time=TS        compute from this timestamp instead of now (e.g. '2026-03-29 00:00 UTC', @EPOCH)
          --json                one JSON object per SPEC and line:
                                {"spec":…,"normalized":…,"elapses":["2026-03-30T00:30:00Z",…]}
                                or {"spec":…,"error":…}
          -h, --help            show this help

        Exit status: 0 if every SPEC parsed and could be computed, 1 otherwise, 64 on usage errors.
        """
    static let grammar = ParsedArguments.Grammar(valued: ["iterations", "base-time"], flags: ["json"])

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        guard !arguments.operands.isEmpty else { throw UsageError("expected at least one calendar specification") }
        let iterations = try arguments.iterations()
        let base = try arguments.baseTime(in: context)
        let json = arguments.has("json")
        var status = ExitCode.success
        for (index, text) in arguments.operands.enumerated() {
            let spec: CalendarSpec
            do {
                spec = try CalendarSpec(text, localZone: context.localZone, zones: context.zones)
            } catch {
                status = .failure
                if json {
                    context.output.line(
                        JSONValue.object([("spec", .string(text)), ("error", .string("\(error)"))]).serialized)
                } else {
                    context.errors.line("Failed to parse calendar specification '\(text)': \(error)")
                    if index + 1 < arguments.operands.count { context.output.line() }
                }
                continue
            }
            if json {
                let elapses = spec.elapses(afterMicroseconds: base.epochMicroseconds, localZone: context.localZone)
                let members: [(String, JSONValue)] = [
                    ("spec", .string(text)), ("normalized", .string(spec.description)),
                    (
                        "elapses",
                        .array(elapses.prefix(iterations).map { .string(Timestamp.iso8601(microseconds: $0)) })
                    ),
                ]
                context.output.line(JSONValue.object(members).serialized)
                continue
            }
            list(spec, text: text, after: base, count: iterations, in: context)
            if index + 1 < arguments.operands.count { context.output.line() }
        }
        return status
    }

    private static let nextElapse = LabelledLineWriter.Label("Next elapse:")
    private static let iteration = Array("Iter. #".utf8)
    private static let inUTC = LabelledLineWriter.Label("(in UTC):")
    private static let fromNow = LabelledLineWriter.Label("From now:")

    /// Prints the normalised form and up to `count` elapses after `base`, each in local time, in UTC (unless local
    /// time is UTC) and relative to now.
    ///
    /// Written line by line as bytes: with --iterations=100000 a table built in memory, or a string per value, costs
    /// more than the calendar math.
    private static func list(
        _ spec: CalendarSpec, text: String, after base: Date, count: Int, in context: CommandContext
    ) {
        var lines = LabelledLineWriter(stream: context.output)
        let normalized = spec.description
        if normalized != text { lines.add("Original form:", text) }
        lines.add("Normalized form:", normalized)
        let zone = context.localZone
        let showUTC = !zone.isUniversal
        let now = context.now.epochMicroseconds
        // Labels in locals: each use of a static one would check that it is initialised and retain its bytes.
        let (nextElapse, iteration, inUTC, fromNow) = (Self.nextElapse, Self.iteration, Self.inUTC, Self.fromNow)
        var elapses = spec.elapses(afterMicroseconds: base.epochMicroseconds, localZone: zone)
        var number = 0
        while number < count, let elapse = elapses.next() {
            if number == 0 {
                lines.begin(nextElapse)
            } else {
                lines.begin(iteration, number: number + 1)
            }
            appendLocal(elapse, zone: zone, to: &lines.bytes)
            lines.end()
            if showUTC {
                lines.begin(inUTC)
                if !Timestamp.formatUTC(microseconds: elapse, into: &lines.bytes) {
                    lines.bytes.append(contentsOf: Timestamp.unformattable.utf8)
                }
                lines.end()
            }
            lines.begin(fromNow)
            Timestamp.relativeDescription(ofMicroseconds: elapse, now: now, into: &lines.bytes)
            lines.end()
            number += 1
        }
        if number == 0 && count > 0 { lines.add("Next elapse:", "never") }
        lines.finish()
    }

    /// The elapse in local time; systemd prints the placeholder where it prints no time.
    @inline(__always)
    private static func appendLocal(_ elapse: Int64, zone: ZoneRules, to bytes: inout [UInt8]) {
        if !Timestamp.format(microseconds: elapse, zone: zone, into: &bytes) {
            bytes.append(contentsOf: Timestamp.unformattable.utf8)
        }
    }
}
