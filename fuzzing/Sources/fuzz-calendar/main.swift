import ChimeCore
import ChimePlatform
import ChimeTestSupport
import FuzzSupport

// Calendar events (OnCalendar=, chimectl calendar) in a zone chosen by the input's length: what parses has a
// normalised form that reads back as itself, and its next three elapses after a base (also chosen by the length)
// each come later than the one before.
Fuzzer.run { input in
    let text = Fuzzer.text(input)
    let zone = Fuzzer.zone(input.count)
    guard let spec = try? CalendarSpec(text, localZone: zone, zones: .system) else { return }
    let normalized = spec.description
    let again = try? CalendarSpec(normalized, localZone: zone, zones: .system)
    Fuzzer.expect(
        again?.description == normalized,
        "\(text.debugDescription) is \(normalized), which reads back as \(again?.description ?? "an error")")
    let bases = CalendarSamples.instants
    var after = bases[input.count / Fuzzer.zones.count % bases.count]
    for next in spec.elapses(afterMicroseconds: after, localZone: zone).prefix(3) {
        Fuzzer.expect(next > after, "\(text.debugDescription): the elapse after \(after) is \(next)")
        after = next
    }
}
