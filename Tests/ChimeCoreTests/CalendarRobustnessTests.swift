import ChimeTestSupport
import Testing

@testable import ChimeCore

/// Whatever text it is handed, the calendar engine answers — a spec or an error, then an elapse or "never" —
/// without crashing or hanging.
@Suite struct CalendarRobustnessTests {
    static let inputCount = 100_000

    static let zoneNames = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "UTC", "Asia/Kolkata"]

    /// Ordinary days and the hours around DST changes (2026) of the zones above, some with fractional seconds.
    static let bases: [Int64] = [
        1_774_746_000_000_000,  // 2026-03-29 01:00:00Z, Berlin springs forward
        1_792_890_605_500_000,  // 2026-10-25 01:10:05.5Z, inside Berlin's repeated hour
        1_772_952_000_000_000,  // 2026-03-08 06:40:00Z, New York springs forward
        1_793_514_000_000_001,  // 2026-11-01 06:20:00.000001Z, inside New York's repeated hour
        1_775_314_200_000_000,  // 2026-04-04 14:50:00Z, Lord Howe falls back half an hour
        1_791_044_400_000_000,  // 2026-10-03 16:20:00Z, Lord Howe springs forward half an hour
        1_781_518_830_250_000,  // 2026-06-15 10:20:30.25Z
        1_835_352_000_000_000,  // 2028-02-28 12:00:00Z
        7_258_118_399_000_000,  // 2199-12-31 23:59:59Z, the last second systemd computes
    ]

    @Test(.timeLimit(.minutes(1)))
    func randomAndMutatedSpecsAreAnswered() throws {
        let zones = try Self.zoneNames.map { try ZoneDatabase.system.rules(named: $0) }
        var fuzzer = CalendarSpecFuzzer(seed: 0x00C4_1AE5_F022)
        var parsed = 0
        var rejected = 0
        var answered = 0
        var never = 0
        var problems: [String] = []

        for index in 0..<Self.inputCount {
            let text = fuzzer.next()
            let zone = zones[index % zones.count]
            let spec: CalendarSpec
            do {
                spec = try CalendarSpec(text, localZone: zone)
            } catch {
                rejected += 1
                continue
            }
            parsed += 1
            // The normalised form reads back as itself.
            let again = try? CalendarSpec(spec.description, localZone: zone)
            if again?.description != spec.description {
                let reading = again?.description ?? "an error"
                problems.append("\(text.debugDescription): \(spec.description) reads back as \(reading)")
            }
            // Two bases per spec, rotating through the list.
            for base in [Self.bases[index % Self.bases.count], Self.bases[(index / 7 + 3) % Self.bases.count]] {
                guard let next = spec.nextElapse(afterMicroseconds: base, localZone: zone) else {
                    never += 1
                    continue
                }
                answered += 1
                if next <= base { problems.append("\(text.debugDescription) from \(base): \(next) is not later") }
            }
        }

        #expect(problems.isEmpty, "\(problems.count) problems, first: \(problems.prefix(5))")
        // Both sides of the parser and of the search were exercised.
        #expect(parsed + rejected == Self.inputCount)
        #expect(parsed > Self.inputCount / 5 && rejected > Self.inputCount / 5)
        #expect(answered > parsed / 2 && never > 0)
    }

    @Test func fuzzerIsReproducible() {
        var first = CalendarSpecFuzzer(seed: 7)
        var second = CalendarSpecFuzzer(seed: 7)
        let a = (0..<200).map { _ in first.next() }
        let b = (0..<200).map { _ in second.next() }
        #expect(a == b)
        #expect(Set(a).count > 150)
    }
}
