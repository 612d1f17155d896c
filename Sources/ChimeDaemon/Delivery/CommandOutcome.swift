import ChimeCore
import Foundation
import Glibc

/// How a program run by `CommandRunner` ended, and what it wrote.
public struct CommandOutcome: Sendable, Equatable {
    public enum Ending: Sendable, Equatable {
        case exited(status: Int32)
        case killedBySignal(Int32)
        /// Still running at the timeout (itself, or what it started in its group, or its output held open): its
        /// process group was killed.
        case timedOut
        /// Wrote more than the output limit to stdout: its process group was killed.
        case printedTooMuch
        /// The task waiting for it was cancelled: its process group was killed.
        case cancelled
    }

    public var ending: Ending
    /// What it wrote to stdout, when the run collected it (`outputLimit`); otherwise empty.
    public var output = LineChunks()
    /// The last `CommandRunner.standardErrorTailLimit` bytes it wrote to stderr.
    public var standardErrorTail: [UInt8] = []

    /// How it ended, as the second half of a sentence whose subject is the program ("exited with status 3").
    public func explanation(timeout: Duration, outputLimit: Int? = nil) -> String {
        switch ending {
        case .exited(let status):
            return "exited with status \(status)"
        case .killedBySignal(let signal):
            return "was killed by signal \(signal) (\(String(cString: strsignal(signal))))"
        case .timedOut:
            return "did not finish within \(Timespan(timeout) ?? .infinity); killed it and everything it started"
        case .printedTooMuch:
            return "printed more than \(outputLimit ?? 0) bytes; killed it and everything it started"
        case .cancelled:
            return "was still running when chimed gave up on it; killed it and everything it started"
        }
    }

    /// The last `lines` non-blank lines of stderr (at most `characters` characters, control characters removed)
    /// in quotes, joined by " / ", or `nil` if it wrote nothing to show.
    public func quotedStandardError(lines: Int = 3, characters: Int = 300) -> String? {
        let text = String(decoding: standardErrorTail, as: UTF8.self)
        let shown = text.split(whereSeparator: \.isNewline).map {
            String($0.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
                .trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        guard !shown.isEmpty else { return nil }
        var joined = shown.suffix(lines).joined(separator: " / ")
        if joined.count > characters { joined = "…" + joined.suffix(characters - 1) }
        return "\"\(joined)\""
    }
}
