import ChimeCore
import Foundation

/// The next-fire figures as a table for people and as JSON for bench/daemon.
enum NextFireReport {
    static func table(_ results: [NextFireBenchmark.Result]) -> String {
        let header = ["kind", "[Trigger]", "ns/call", "min–max", "calls/run", "found"]
        let rows = results.map { result in
            [
                result.kind, result.lines.joined(separator: " "), decimal(result.median),
                "\(decimal(result.nanosecondsPerCall.min()!))–\(decimal(result.nanosecondsPerCall.max()!))",
                String(result.callsPerRun), "\(result.found)/\(result.queries)",
            ]
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max()!
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).enumerated().map { column, pair in
                let padding = String(repeating: " ", count: pair.1 - pair.0.count)
                // Text columns to the left, figures to the right.
                return column < 2 ? pair.0 + padding : padding + pair.0
            }.joined(separator: "  ")
        }
        return ([line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line))
            .joined(separator: "\n")
    }

    /// One JSON object; nanoseconds have one decimal.
    static func json(_ results: [NextFireBenchmark.Result], runs: Int) -> String {
        let cases = results.map { result in
            let runs = result.nanosecondsPerCall.map(decimal).joined(separator: ",")
            let lines = JSONValue.array(result.lines.map(JSONValue.string)).serialized
            return "{\"kind\":\(JSONValue.string(result.kind).serialized),\"trigger\":\(lines),"
                + "\"calls_per_run\":\(result.callsPerRun),\"ns_per_call\":{\"median\":\(decimal(result.median)),"
                + "\"min\":\(decimal(result.nanosecondsPerCall.min()!)),"
                + "\"max\":\(decimal(result.nanosecondsPerCall.max()!)),\"runs\":[\(runs)]},"
                + "\"found\":\(result.found),\"queries\":\(result.queries)}"
        }
        let base = Int64(NextFireBenchmark.baseTime.timeIntervalSince1970)
        return "{\"base_time\":\(base),\"runs\":\(runs),\"cases\":[\(cases.joined(separator: ","))]}"
    }

    private static func decimal(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}
