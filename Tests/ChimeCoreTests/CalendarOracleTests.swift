import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore

/// chime's calendar engine against the answers of the real `systemd-analyze calendar` (systemd 252), recorded in
/// `Fixtures/calendar-oracle.json` by `Fixtures/make-calendar-oracle`, and against the live tool when installed.
@Suite struct CalendarOracleTests {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        let spec: String
        let tz: String
        let base: String
        let iterations: Int
        let normalized: String?
        let elapses: [String]?
        let error: String?
        let never: Bool?
        let systemdError: String?
        let expectedElapses: [String]?

        enum CodingKeys: String, CodingKey {
            case spec, tz, base, iterations, normalized, elapses, error, never
            case systemdError = "systemd_error"
            case expectedElapses = "expected_elapses"
        }

        var testDescription: String { "\(spec) [\(tz) from \(base)]" }
    }

    struct Fixture: Decodable {
        let cases: [Case]
    }

    struct MissingFixture: Error {}

    /// The fixture's raw bytes and its decoded cases; a failure to find or decode it fails `fixtureDecodesWhole`.
    static let fixture: Result<(data: Data, cases: [Case]), any Error> = Result {
        guard
            let url = Bundle.module.url(
                forResource: "calendar-oracle", withExtension: "json", subdirectory: "Fixtures")
        else { throw MissingFixture() }
        let data = try Data(contentsOf: url)
        return (data, try JSONDecoder().decode(Fixture.self, from: data).cases)
    }

    /// Every case, each a test of its own (none when the fixture does not decode, which fails the test below).
    static let cases: [Case] = (try? fixture.get().cases) ?? []

    /// The elapses chime computes for a case, as microseconds, stopping at "never".
    static func chimeElapses(_ spec: CalendarSpec, zone: ZoneRules, base: Int64, count: Int) -> [Int64] {
        var result: [Int64] = []
        var after = base
        while result.count < count, let next = spec.nextElapse(afterMicroseconds: after, localZone: zone) {
            result.append(next)
            after = next
        }
        return result
    }

    @Test func fixtureDecodesWholeAndIsVaried() throws {
        let (data, cases) = try Self.fixture.get()
        // Every case in the file is one of the arguments of agreesWithSystemd: as many as a plain JSON read finds.
        let raw = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = try #require(raw["cases"] as? [Any])
        #expect(cases.count == entries.count)
        #expect(cases.count >= 3000)
        #expect(Set(cases.map(\.tz)).isSuperset(of: ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe"]))
        #expect(cases.contains { $0.systemdError != nil })
        #expect(cases.contains { $0.error != nil })
    }

    @Test(arguments: cases)
    func agreesWithSystemd(_ oracle: Case) throws {
        let zone = try ZoneDatabase.system.rules(named: oracle.tz)
        if oracle.error != nil {
            #expect(throws: CalendarSpecError.self, "systemd: \(oracle.error ?? "")") {
                try CalendarSpec(oracle.spec, localZone: zone, zones: .system)
            }
            return
        }
        let spec = try CalendarSpec(oracle.spec, localZone: zone, zones: .system)
        #expect(spec.description == oracle.normalized)
        let base = try #require(TestDate.microseconds(iso: oracle.base))
        let mine = Self.chimeElapses(spec, zone: zone, base: base, count: oracle.iterations)

        if let expected = oracle.expectedElapses {
            // systemd fails on this valid spec; chime must give the right answer, to the microsecond.
            #expect(mine == expected.compactMap(TestDate.microseconds(iso:)), "systemd: \(oracle.systemdError ?? "")")
            return
        }
        // systemd prints whole seconds.
        let systemd = (oracle.elapses ?? []).compactMap(TestDate.microseconds(iso:))
        let mineInSeconds = mine.map { $0 / 1_000_000 * 1_000_000 }
        if let wrong = Self.firstElapseNotAfterItsBase(systemd, base: base) {
            // systemd answered with a time that is not after its base (a spec naming CET/CEST or EST/EDT read on
            // the wrong side of a DST change). chime answers correctly from there on; before that it agrees.
            #expect(Array(mineInSeconds.prefix(wrong)) == Array(systemd.prefix(wrong)))
            #expect(zip(mine, [base] + mine).allSatisfy { $0 > $1 })
            return
        }
        #expect(mineInSeconds == systemd)
        #expect((oracle.never ?? false) == mine.isEmpty)
    }

    /// Re-asks the installed `systemd-analyze` (one process per zone and base) for a sample of the cases systemd
    /// answers, so that the fixture cannot drift from the tool it claims to record.
    @Test func agreesWithLiveSystemdAnalyze() throws {
        guard
            let tool = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            try Test.cancel("Skipped: systemd-analyze is not installed; only the recorded fixture was compared")
        }
        let sample = Self.cases.enumerated().filter { index, oracle in
            index % 7 == 0 && oracle.error == nil && oracle.systemdError == nil && !oracle.spec.isEmpty
        }.map(\.element)
        let groups = Dictionary(grouping: sample) { "\($0.tz) \($0.base) \($0.iterations)" }
        try #require(!sample.isEmpty)
        var compared = 0
        for (_, group) in groups.sorted(by: { $0.key < $1.key }) {
            let first = group[0]
            let zone = try ZoneDatabase.system.rules(named: first.tz)
            let base = try #require(TestDate.microseconds(iso: first.base))
            func ask(_ specs: [String]) throws -> [SystemdAnalyzeOutput.CalendarBlock] {
                let output = try ProcessRunner.run(
                    tool,
                    ["calendar", "--iterations=\(first.iterations)", "--base-time=@\(Self.epochText(base))"] + specs,
                    environment: ["TZ": first.tz, "SYSTEMD_COLORS": "0", "LC_ALL": "C"])
                return SystemdAnalyzeOutput.calendarBlocks(output.standardOutput)
            }
            let blocks = try ask(group.map(\.spec))
            try #require(blocks.count == group.count)
            for (oracle, block) in zip(group, blocks) {
                let spec = try CalendarSpec(oracle.spec, localZone: zone, zones: .system)
                #expect(spec.description == block.normalized, "\(oracle.spec)")
                let mine = Self.chimeElapses(spec, zone: zone, base: base, count: oracle.iterations)
                let live = block.elapsesInUTC
                if Self.firstElapseNotAfterItsBase(live, base: base) == nil {
                    #expect(mine.map { $0 / 1_000_000 * 1_000_000 } == live, "\(oracle.spec) in \(oracle.tz)")
                }
                compared += 1
            }
        }
        #expect(compared == sample.count)
    }

    /// Specs systemd-analyze fails on, first or in between, leave empty blocks in their places.
    @Test func calendarBlocksLineUpWithTheSpecs() throws {
        // What `systemd-analyze calendar --iterations=0 xx daily yy yy hourly zz` prints.
        let output =
            "\n  Original form: daily\nNormalized form: *-*-* 00:00:00\n\n\n\n  Original form: hourly\n"
            + "Normalized form: *-*-* *:00:00\n\n"
        let blocks = SystemdAnalyzeOutput.calendarBlocks(output)
        #expect(blocks.map(\.normalized) == ["", "*-*-* 00:00:00", "", "", "*-*-* *:00:00", ""])
        #expect(SystemdAnalyzeOutput.calendarBlocks("").map(\.normalized) == [""])
    }

    static func epochText(_ microseconds: Int64) -> String {
        let fraction = microseconds % 1_000_000
        guard fraction != 0 else { return String(microseconds / 1_000_000) }
        let digits = String(fraction)
        return "\(microseconds / 1_000_000).\(String(repeating: "0", count: 6 - digits.count))\(digits)"
    }

    /// Index of the first elapse that is not after the one before it (or the base), if any.
    static func firstElapseNotAfterItsBase(_ elapses: [Int64], base: Int64) -> Int? {
        var previous = base
        for (index, elapse) in elapses.enumerated() {
            // systemd's printed seconds truncate, so equal seconds after a fractional base still count as later.
            if elapse / 1_000_000 < previous / 1_000_000 { return index }
            previous = elapse
        }
        return nil
    }
}
