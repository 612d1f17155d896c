import ChimeTestSupport
import Foundation
import Testing

/// The real `chimed` killed with SIGKILL at random moments while it delivers 1,000 occurrences, and started again
/// on the same state: nothing is lost, nothing is repeated beyond what was in flight at a kill, `Count=` and the
/// `Every=` anchor hold across restarts.
@Suite(.serialized) struct ChimedCrashTests {
    let chimed = BinaryLocator.path(of: "chimed")

    struct Line {
        var fireTime: Int64
        var missed: Int
    }

    static func lines(_ output: String) -> [Line] {
        output.split(separator: "\n").compactMap { line in
            guard let data = line.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let fire = object["fire_time"] as? String, let date = TestDate.iso(fire)
            else { return nil }
            return Line(
                fireTime: Int64((date.timeIntervalSince1970 * 1_000_000).rounded()),
                missed: object["missed"] as? Int ?? 0)
        }
    }

    @Test func sigkillAtRandomMomentsLosesNothingAndRepeatsOnlyWhatWasInFlight() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-crash")
        defer { directory.remove() }
        let step: Int64 = 5_000  // µs
        let count = 1_000
        try directory.write(
            "config/burst.notification",
            "[Notification]\nTitle=Burst\n[Trigger]\nEvery=5ms\nCount=\(count)\nPersistent=yes\n")
        let arguments = [
            "--config-dir=\(directory.path)/config", "--runtime-dir=\(directory.path)/run",
            "--state-dir=\(directory.path)/state", "--deliver=stdout",
        ]
        var generator = SystemRandomNumberGenerator()
        var output = ""
        var kills = 0
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let process = try RunningProcess(chimed, arguments)
            let lifetime = Double.random(in: 0.3...1.6, using: &generator)
            Thread.sleep(forTimeInterval: lifetime)
            let finished = Self.lines(process.standardOutput).count
            process.signal(SIGKILL)
            process.wait(timeout: 5)
            output += process.standardOutput
            kills += 1
            // Stop once a run saw the last occurrence, or the schedule has certainly run out.
            if finished > 0 && Self.covered(Self.lines(output), step: step).count >= count { break }
        }
        let lines = Self.lines(output)
        let covered = Self.covered(lines, step: step)
        let first = try #require(covered.min())
        // Every one of the 1,000 occurrences, on the anchor's grid, and no 1,001st (Count= across restarts).
        #expect(covered == Set((0..<Int64(count)).map { first + $0 * step }), "kills: \(kills)")
        #expect(lines.allSatisfy { ($0.fireTime - first) % step == 0 }, "the Every= anchor moved")
        // Repeats: only deliveries in flight at a kill (recorded after hand-off, before re-arming).
        let repeats = lines.count - Set(lines.map(\.fireTime)).count
        #expect(repeats <= kills * 3, "\(repeats) repeated deliveries over \(kills) kills")
        #expect(kills >= 2)
    }

    /// The occurrences a list of deliveries stands for: each its own, and a caught-up one the `missed` occurrences
    /// up to its fire time.
    static func covered(_ lines: [Line], step: Int64) -> Set<Int64> {
        var set = Set<Int64>()
        for line in lines {
            for back in 0..<max(line.missed, 1) { set.insert(line.fireTime - Int64(back) * step) }
        }
        return set
    }
}
