import ChimeCore
import Foundation

extension ParsedArguments {
    /// `--iterations=N` (a whole number, 0 allowed), or 1.
    func iterations() throws(UsageError) -> Int {
        guard let text = value("iterations") else { return 1 }
        guard let count = Int(text), count >= 0 else { throw UsageError("invalid --iterations '\(text)'") }
        return count
    }

    /// `--base-time=TIMESTAMP` read in the local zone, or now.
    func baseTime(in context: CommandContext) throws(UsageError) -> Date {
        try timestamp("base-time", in: context) ?? context.now
    }

    /// The value of `--OPTION=TIMESTAMP` read as systemd reads a timestamp, in the local zone; `nil` when the option
    /// is not given.
    func timestamp(_ option: String, in context: CommandContext) throws(UsageError) -> Date? {
        guard let text = value(option) else { return nil }
        do {
            return try Timestamp.parse(text, now: context.now, localZone: context.localZone, zones: context.zones)
        } catch {
            throw UsageError("invalid --\(option) '\(text)': \(error)")
        }
    }
}
