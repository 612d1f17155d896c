import ChimeCore
import ChimePlatform
import Foundation
import FuzzSupport

/// Monday 2026-11-30 09:11:53.241911 UTC: "now" for the relative forms.
let now = Date(epochMicroseconds: 1_796_029_913_241_911)
/// Another "now", 400 days, an hour and half a second later.
let later = now.addingTimeInterval(400 * 86_400 + 3_600.5)

// Timestamps (At=, From=, Until=, chimectl's --base-time=) in a zone chosen by the input's length: any text gets an
// instant or an error pointing inside it; an instant reads back the same from systemd's format (UTC, microseconds)
// and from the ISO 8601 form the state file keeps; one that is said not to depend on "now" (At= accepts it) is the
// same at another.
Fuzzer.run { input in
    let text = Fuzzer.text(input)
    let zone = Fuzzer.zone(input.count)
    let date: Date
    do throws(TimeParseError) {
        let reading = try Timestamp.read(text, now: now, localZone: zone, zones: .system)
        date = reading.date
        if !reading.dependsOnNow {
            let again = try? Timestamp.parse(text, now: later, localZone: zone, zones: .system)
            Fuzzer.expect(
                again == date, "\(text.debugDescription) is \(date) now, \(again.map { "\($0)" } ?? "an error") later")
        }
    } catch {
        Fuzzer.expect((1...text.count + 1).contains(error.column), "\(text.debugDescription): \(error)")
        return
    }
    if let formatted = Timestamp.format(date, zone: .utc, precision: .microseconds),
        formatted != Timestamp.unformattable
    {
        let again = try? Timestamp.parse(formatted, now: now, localZone: .utc, zones: .system)
        Fuzzer.expect(
            again?.epochMicroseconds == date.epochMicroseconds,
            "\(text.debugDescription) is \(formatted), which reads back as \(again.map { "\($0)" } ?? "an error")")
    }
    let iso = Timestamp.iso8601(date, fraction: .microseconds)
    Fuzzer.expect(
        Timestamp.parseISO8601(iso)?.epochMicroseconds == date.epochMicroseconds,
        "\(text.debugDescription) is \(iso), which does not read back")
}
