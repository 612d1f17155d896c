import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore

/// 20,000 seeded random and mutated inputs (the fuzz targets `timespan` and `timestamp` go on from there), each given to both parsers: every one must be answered (a value or
/// a `TimeParseError` pointing inside the text), and what is accepted must survive a format-and-parse round trip.
@Suite struct TimeParsingRobustnessTests {
    /// Pieces that matter to the two grammars, plus characters they must not trip over.
    private static let tokens = [
        "0", "1", "5", "9", "12", "23", "31", "59", "60", "61", "69", "99", "2026", "1970", "9999", "99999999999",
        "9223372036854775807", "18446744073709551615", "-", ":", ".", " ", "  ", "\t", "\u{0B}", "\n", "+", "@", "s",
        "sec", "m", "min", "ms", "us", "µs", "μs", "h", "hr", "d", "w", "M", "month", "y", "years", "infinity",
        " ago", " left", "now", "today", "tomorrow", "yesterday", " UTC", " utc", "Tue ", "monday ", " CET", " EST",
        " Asia/Tokyo", " Europe/Berlin", "T", "Z", "x", "é", "😀", "\u{301}", "\0",
    ]

    private static let corpus = [
        "1h 30min", "1.5h", "500ms", "2d 3h", "infinity", "5y 6month", "2026-12-01 07:00", "Tue 2026-12-01 07:00:00.5",
        "26-02-29 23:59:60", "07:00", "now", "today UTC", "tomorrow", "@1796108400.5", "+5min", "-1h", "5min ago",
        "1h left", "2026-12-01 07:00 Asia/Tokyo", "2026-07-01 12:00 CET", "9999-12-30 23:59:59 UTC",
    ]

    /// Monday 2026-11-30 09:11:53.241911 UTC.
    private static let now = Date(epochMicroseconds: 1_796_029_913_241_911)

    @Test func answersEveryInputAndReadsBackWhatItAccepts() throws {
        var generator = SeededRandomNumberGenerator(seed: 0x7153_7A3F)
        let berlin = try ZoneDatabase.system.rules(named: "Europe/Berlin")
        var accepted = (spans: 0, timestamps: 0)
        for round in 0..<20_000 {
            let input = Self.input(&generator)
            let length = input.count
            do {
                let span = try Timespan.parse(input)
                accepted.spans += 1
                #expect(try Timespan.parse(span.description) == span, "\(input.debugDescription)")
            } catch {
                #expect((1...length + 1).contains(error.column), "\(input.debugDescription): \(error)")
            }
            let zone = round.isMultiple(of: 2) ? ZoneRules.utc : berlin
            let date: Date
            do {
                date = try Timestamp.parse(input, now: Self.now, localZone: zone, zones: .system)
            } catch {
                #expect((1...length + 1).contains(error.column), "\(input.debugDescription): \(error)")
                continue
            }
            accepted.timestamps += 1
            try expectRoundTrip(date, input: input)
        }
        // Keeps the generator honest: a change that made nearly everything fail would go unnoticed otherwise.
        #expect(accepted.spans > 1_000 && accepted.timestamps > 1_000)
    }

    /// "Now" at the ends of what a `Date` holds must not trip the arithmetic.
    @Test(arguments: [
        Date.distantPast, .distantFuture, Date(timeIntervalSince1970: -1e15), Date(timeIntervalSince1970: 1e15),
    ])
    func survivesExtremeNow(now: Date) throws {
        let berlin = try ZoneDatabase.system.rules(named: "Europe/Berlin")
        for input in ["now", "today", "tomorrow", "07:00", "+5min", "-5min", "5min ago", "1y left", "@0", "Mon 07:00"] {
            _ = try? Timestamp.parse(input, now: now, localZone: berlin, zones: .system)
            _ = try? Timestamp.parse(input + " UTC", now: now, localZone: .utc, zones: .system)
        }
        _ = Timestamp.relativeDescription(of: now, now: Date(epochMicroseconds: 0))
        _ = Timestamp.relativeDescription(of: .distantPast, now: .distantFuture)
        let formatted = Timestamp.format(now, zone: berlin)
        if now.timeIntervalSince1970 <= 0 {
            #expect(formatted == nil)
        } else if now > Timestamp.latestFormattable {
            #expect(formatted == Timestamp.unformattable)
        } else {
            #expect(formatted?.hasPrefix("Mon 4001-01-01 ") == true)
        }
    }

    /// `format` in UTC with microseconds, then `parse`, gives the instant back (where systemd formats it at all).
    private func expectRoundTrip(_ date: Date, input: String) throws {
        guard let text = Timestamp.format(date, zone: .utc, precision: .microseconds), text != Timestamp.unformattable
        else { return }
        let again = try Timestamp.parse(text, now: Self.now, localZone: .utc, zones: .system)
        #expect(again.epochMicroseconds == date.epochMicroseconds, "\(input.debugDescription) → \(text)")
    }

    /// Either a few random tokens, or a corpus entry with up to three characters inserted, deleted or replaced.
    private static func input(_ generator: inout SeededRandomNumberGenerator) -> String {
        if Bool.random(using: &generator) {
            return (0..<Int.random(in: 1...6, using: &generator)).map { _ in tokens.randomElement(using: &generator)! }
                .joined()
        }
        var characters = Array(corpus.randomElement(using: &generator)!)
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let index = Int.random(in: 0...characters.count, using: &generator)
            let replacement = tokens.randomElement(using: &generator)!.first ?? " "
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: characters.insert(replacement, at: index)
            case 1 where index < characters.count: characters.remove(at: index)
            default: if index < characters.count { characters[index] = replacement }
            }
        }
        return String(characters)
    }
}
