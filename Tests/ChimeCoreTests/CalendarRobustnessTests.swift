import ChimePlatform
import ChimeTestSupport
import Testing

@testable import ChimeCore

/// Whatever text it is handed, the calendar engine answers — a spec or an error, then an elapse or "never" —
/// without crashing or hanging.
@Suite struct CalendarRobustnessTests {
    /// Seeded, so that CI sees the same inputs every time; the fuzz target `calendar` goes on from there.
    static let inputCount = 20_000

    @Test(.timeLimit(.minutes(1)))
    func randomAndMutatedSpecsAreAnswered() throws {
        let zones = try CalendarSamples.zoneNames.map { try ZoneDatabase.system.rules(named: $0) }
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
                spec = try CalendarSpec(text, localZone: zone, zones: .system)
            } catch {
                rejected += 1
                continue
            }
            parsed += 1
            // The normalised form reads back as itself.
            let again = try? CalendarSpec(spec.description, localZone: zone, zones: .system)
            if again?.description != spec.description {
                let reading = again?.description ?? "an error"
                problems.append("\(text.debugDescription): \(spec.description) reads back as \(reading)")
            }
            // Two bases per spec, rotating through the list.
            let bases = CalendarSamples.instants
            for base in [bases[index % bases.count], bases[(index / 7 + 3) % bases.count]] {
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
