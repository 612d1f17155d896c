import ChimeCore
import Foundation

/// Reads the human-readable output of `systemd-analyze calendar`, for comparing chime with it.
public enum SystemdAnalyzeOutput {
    public struct CalendarBlock: Sendable {
        public var original = ""
        public var normalized = ""
        /// Each elapse in microseconds since the epoch (whole seconds, as systemd prints them).
        public var elapsesInUTC: [Int64] = []
    }

    /// Splits the output into one block per spec: systemd-analyze writes a newline before every spec but the
    /// first and nothing for a spec that fails (or whose elapse it cannot compute), and a block has no empty
    /// lines, so each empty line starts the next spec's block and the blocks line up with the specs asked for
    /// (a failing spec's block is empty). Elapses are read from the `(in UTC)` lines, or from the elapse lines
    /// themselves when the local zone is UTC (then there is no `(in UTC)` line).
    public static func calendarBlocks(_ output: String) -> [CalendarBlock] {
        var lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        var chunks: [[Substring]] = [[]]
        for line in lines {
            if line.isEmpty { chunks.append([]) } else { chunks[chunks.count - 1].append(line) }
        }
        return chunks.map { chunk in
            var block = CalendarBlock()
            var localLines: [String] = []
            var utcLines: [String] = []
            for rawLine in chunk {
                let line = rawLine.trimmingCharacters(in: .whitespaces)
                guard let colon = line.range(of: ": ") else { continue }
                let key = line[..<colon.lowerBound]
                let value = String(line[colon.upperBound...])
                switch key {
                case "Original form": block.original = value
                case "Normalized form": block.normalized = value
                case "(in UTC)": utcLines.append(value)
                case _ where key == "Next elapse" || key.hasPrefix("Iter. #"):
                    if value != "never" { localLines.append(value) }
                default: break
                }
            }
            if block.original.isEmpty { block.original = block.normalized }
            block.elapsesInUTC = (utcLines.isEmpty ? localLines : utcLines).compactMap(seconds(fromUTCLine:)).map {
                $0 * 1_000_000
            }
            return block
        }
    }

    /// Seconds since the epoch of `Tue 2026-12-01 08:55:00 UTC` (the zone word is ignored: the caller knows it is
    /// UTC).
    static func seconds(fromUTCLine line: String) -> Int64? {
        let parts = line.split(separator: " ")
        guard parts.count >= 3 else { return nil }
        let date = parts[1].split(separator: "-").compactMap { Int($0) }
        let time = parts[2].split(separator: ":").compactMap { Int($0) }
        guard date.count == 3, time.count == 3 else { return nil }
        let days = Int64(CivilTime.days(year: date[0], month: date[1], day: date[2]))
        return days * 86_400 + Int64(time[0] * 3_600 + time[1] * 60 + time[2])
    }
}
