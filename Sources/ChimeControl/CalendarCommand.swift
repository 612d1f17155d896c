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
            let elapses = Self.elapses(of: spec, after: base, count: iterations, localZone: context.localZone)
            if json {
                let members: [(String, JSONValue)] = [
                    ("spec", .string(text)), ("normalized", .string(spec.description)),
                    ("elapses", .array(elapses.map { .string(Timestamp.iso8601($0)) })),
                ]
                context.output.line(JSONValue.object(members).serialized)
                continue
            }
            // Written line by line: with --iterations=100000, a table built in memory costs more than the math.
            var lines = LabelledLineWriter(stream: context.output)
            if spec.description != text { lines.add("Original form:", text) }
            lines.add("Normalized form:", spec.description)
            if elapses.isEmpty && iterations > 0 { lines.add("Next elapse:", "never") }
            let showUTC = !context.localZone.isUniversal
            for (number, elapse) in elapses.enumerated() {
                lines.add(
                    number == 0 ? "Next elapse:" : "Iter. #\(number + 1):",
                    Timestamp.format(elapse, zone: context.localZone) ?? Timestamp.unformattable)
                if showUTC { lines.add("(in UTC):", Timestamp.formatUTC(elapse) ?? Timestamp.unformattable) }
                lines.add("From now:", Timestamp.relativeDescription(of: elapse, now: context.now))
            }
            lines.finish()
            if index + 1 < arguments.operands.count { context.output.line() }
        }
        return status
    }

    /// Up to `count` successive elapses after `base`.
    static func elapses(of spec: CalendarSpec, after base: Date, count: Int, localZone: ZoneRules) -> [Date] {
        var result: [Date] = []
        var after = base
        while result.count < count, let next = spec.nextElapse(after: after, localZone: localZone) {
            result.append(next)
            after = next
        }
        return result
    }
}
