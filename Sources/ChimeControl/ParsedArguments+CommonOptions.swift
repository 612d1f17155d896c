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
        guard let text = value("base-time") else { return context.now }
        do {
            return try Timestamp.parse(text, now: context.now, localZone: context.localZone, zones: context.zones)
        } catch {
            throw UsageError("invalid --base-time '\(text)': \(error)")
        }
    }
}
