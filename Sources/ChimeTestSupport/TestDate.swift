import ChimeCore
import Foundation

/// Instants written as text in tests' tables of expected values.
public enum TestDate {
    /// `2026-03-29T00:00:00Z`, or with a fraction (`…00.250000Z`, `…00.000412Z`), in microseconds since the epoch;
    /// `nil` for other text. Read by hand, from the civil date, not with the timestamp parser under test.
    public static func microseconds(iso text: String) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? { Int(String(decoding: bytes[range], as: UTF8.self)) }
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), let year = number(0..<4),
            let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var fraction = 0
        if bytes[19] == UInt8(ascii: ".") {
            let digits = bytes.count - 21
            guard (1...6).contains(digits), let value = number(20..<(bytes.count - 1)) else { return nil }
            fraction = value * Int(pow(10, Double(6 - digits)))
        }
        let days = Int64(CivilTime.days(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
        return seconds * 1_000_000 + Int64(fraction)
    }

    /// The instant of ISO 8601 text as `microseconds(iso:)` reads it, or `nil`.
    public static func iso(_ text: String) -> Date? {
        microseconds(iso: text).map(Date.init(epochMicroseconds:))
    }

    /// A systemd timestamp read in UTC unless it names a zone (`2026-10-20 07:00`, `2026-10-20 03:00
    /// Europe/Berlin`), with chime's parser: schedules written as a reader writes them. Traps on text that does not
    /// parse, which is a mistake in the test.
    public static func timestamp(_ text: String) -> Date {
        do {
            return try Timestamp.parse(text, now: Date(timeIntervalSince1970: 0), localZone: .utc, zones: .system)
        } catch {
            preconditionFailure("not a timestamp: \(text): \(error)")
        }
    }
}
