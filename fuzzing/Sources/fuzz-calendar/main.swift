import ChimeCore
import FuzzSupport

/// Ordinary days and the hours around DST changes in the zones of `Fuzzer.zones` (as CalendarRobustnessTests).
let bases: [Int64] = [
    1_774_746_000_000_000,  // 2026-03-29 01:00:00Z, Berlin springs forward
    1_792_890_605_500_000,  // 2026-10-25 01:10:05.5Z, inside Berlin's repeated hour
    1_772_952_000_000_000,  // 2026-03-08 06:40:00Z, New York springs forward
    1_793_514_000_000_001,  // 2026-11-01 06:20:00.000001Z, inside New York's repeated hour
    1_775_314_200_000_000,  // 2026-04-04 14:50:00Z, Lord Howe falls back half an hour
    1_791_044_400_000_000,  // 2026-10-03 16:20:00Z, Lord Howe springs forward half an hour
    1_781_518_830_250_000,  // 2026-06-15 10:20:30.25Z
    7_258_118_399_000_000,  // 2199-12-31 23:59:59Z, the last second systemd computes
]

// Calendar events (OnCalendar=, chimectl calendar) in a zone chosen by the input's length: what parses has a
// normalised form that reads back as itself, and its next three elapses after a base (also chosen by the length)
// each come later than the one before.
Fuzzer.run { input in
    let text = Fuzzer.text(input)
    let zone = Fuzzer.zone(input.count)
    guard let spec = try? CalendarSpec(text, localZone: zone) else { return }
    let normalized = spec.description
    let again = try? CalendarSpec(normalized, localZone: zone)
    Fuzzer.expect(
        again?.description == normalized,
        "\(text.debugDescription) is \(normalized), which reads back as \(again?.description ?? "an error")")
    var after = bases[input.count / Fuzzer.zones.count % bases.count]
    for next in spec.elapses(afterMicroseconds: after, localZone: zone).prefix(3) {
        Fuzzer.expect(next > after, "\(text.debugDescription): the elapse after \(after) is \(next)")
        after = next
    }
}
