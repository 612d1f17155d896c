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
        // Faster than a file may fire unless chimed.conf allows it.
        try directory.write("config/chimed.conf", "[Daemon]\nMinimumInterval=1ms\n")
        let arguments = [
            "--config-dir=\(directory.path)/config", "--runtime-dir=\(directory.path)/run",
            "--state-dir=\(directory.path)/state", "--deliver=stdout",
        ]
        var generator = SystemRandomNumberGenerator()
        var runs: [[Line]] = []
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let process = try RunningProcess(chimed, arguments)
            let lifetime = Double.random(in: 0.3...1.6, using: &generator)
            Thread.sleep(forTimeInterval: lifetime)
            let finished = Self.lines(process.standardOutput).count
            process.signal(SIGKILL)
            process.wait(timeout: 5)
            runs.append(Self.lines(process.standardOutput))
            // Stop once a run saw the last occurrence, or the schedule has certainly run out.
            if finished > 0 && Self.covered(runs.flatMap { $0 }, step: step).count >= count { break }
        }
        let kills = runs.count
        let lines = runs.flatMap { $0 }
        let covered = Self.covered(lines, step: step)
        let first = try #require(covered.min())
        // Every one of the 1,000 occurrences, on the anchor's grid, and no 1,001st (Count= across restarts).
        #expect(covered == Set((0..<Int64(count)).map { first + $0 * step }), "kills: \(kills)")
        #expect(lines.allSatisfy { ($0.fireTime - first) % step == 0 }, "the Every= anchor moved")
        // Repeats: only deliveries in flight at a kill (handed over, their end not yet recorded), so the latest the
        // killed run printed. How many that is depends on how far recording lags behind the timer on a busy machine
        // (it has been 49, a quarter of a second's); a loss of state would instead repeat a whole run (60 to 320).
        // So each restart may repeat only from the later half, or the last 40, of what the last run that printed
        // anything printed.
        var seen = Set<Int64>()
        var repeatsPerKill: [Int] = []
        var previous: [Int64] = []
        for run in runs {
            let repeated = Set(run.map(\.fireTime).filter { seen.contains($0) })
            let latest = Set(previous.sorted().suffix(max(40, previous.count / 2)))
            #expect(
                repeated.isSubset(of: latest),
                "a restart repeated \(repeated.count), not all among the latest of the killed run's \(previous.count)")
            repeatsPerKill.append(repeated.count)
            seen.formUnion(run.map(\.fireTime))
            if !run.isEmpty { previous = run.map(\.fireTime) }
        }
        print("repeated deliveries after each kill: \(repeatsPerKill.dropFirst())")
        #expect(kills >= 2)
    }

    /// SIGKILL while a slow `[Command]` runs for deliveries that `stdout` has printed: the command dies with chimed
    /// (it does not finish afterwards), and after the restart each such delivery goes again to the command alone:
    /// nothing is printed twice, and no occurrence's command finishes twice.
    @Test func aKillRepeatsADeliveryOnlyToTheBackendsThatHadNotFinishedIt() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-crash-backends")
        defer { directory.remove() }
        let log = directory.path + "/command.log"
        let slow = try directory.write(
            "bin/slow",
            "#!/bin/sh\necho \"$CHIME_ID $CHIME_FIRE_TIME start\" >> \(log)\nsleep 3\n"
                + "echo \"$CHIME_ID $CHIME_FIRE_TIME done\" >> \(log)\n",
            permissions: 0o755)
        try directory.write("config/chimed.conf", "[Command]\nName=slow\nExec=\(slow)\n")
        for number in 1...5 {
            try directory.write(
                "config/tick\(number).notification",
                "[Notification]\nTitle=Tick\nDeliver=stdout slow\n[Trigger]\nOnCalendar=*:*:0/2\n")
        }
        let arguments = [
            "--config-dir=\(directory.path)/config", "--runtime-dir=\(directory.path)/run",
            "--state-dir=\(directory.path)/state",
        ]
        // Occurrences as "ID MICROSECONDS", however each place writes the time.
        func occurrence(_ id: some StringProtocol, _ time: some StringProtocol) -> String {
            "\(id) \(TestDate.iso(String(time)).map { Int64(($0.timeIntervalSince1970 * 1e6).rounded()) } ?? -1)"
        }
        func commandLines(_ state: String) -> [String] {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line in
                let words = line.split(separator: " ")
                return words.count == 3 && words[2] == state ? occurrence(words[0], words[1]) : nil
            }
        }
        func printed(_ output: String) -> [String] {
            output.split(separator: "\n").compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let id = object["id"] as? String, let fire = object["fire_time"] as? String
                else { return nil }
                return occurrence(id, fire)
            }
        }
        // What the killed chimed had recorded as done, from its state journal: whole deliveries, and stdout's alone.
        func recorded() -> (finished: Set<String>, printed: Set<String>) {
            let text = (try? String(contentsOfFile: directory.path + "/state/occurrences.log", encoding: .utf8)) ?? ""
            var result: (finished: Set<String>, printed: Set<String>) = ([], [])
            for line in text.split(separator: "\n") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let at = object["at"] as? String
                else { continue }
                if let id = object["finished"] as? String { result.finished.insert(occurrence(id, at)) }
                if let id = object["backend_finished"] as? String, object["backend"] as? String == "stdout" {
                    result.printed.insert(occurrence(id, at))
                }
            }
            return result
        }

        let first = try RunningProcess(chimed, arguments)
        // Killed while the commands of the latest fire still sleep: three fires or more, a second after the last
        // one's commands started (time for stdout's end to be recorded).
        #expect(waitFor({ Set(commandLines("done")).count >= 5 && commandLines("start").count >= 15 }, timeout: 30))
        Thread.sleep(forTimeInterval: 1)
        first.signal(SIGKILL)
        first.wait(timeout: 5)
        let printedBefore = printed(first.standardOutput)
        let doneAtKill = commandLines("done")
        let interrupted = Set(commandLines("start")).subtracting(doneAtKill)
        let atKill = recorded()
        try #require(!interrupted.isEmpty, "no command was running at the kill")
        try #require(!interrupted.isDisjoint(with: atKill.printed), "no interrupted delivery had stdout's end recorded")
        // Longer than the command sleeps: one that outlived chimed would have finished by now.
        Thread.sleep(forTimeInterval: 3.5)
        #expect(commandLines("done") == doneAtKill, "a command finished after chimed was killed")

        let second = try RunningProcess(chimed, arguments)
        defer { second.wait(timeout: 0) }
        #expect(
            waitFor({ interrupted.isSubset(of: Set(commandLines("done"))) }, timeout: 30),
            "not run again: \(interrupted.subtracting(commandLines("done")))")
        second.signal(SIGTERM)
        #expect(second.wait(timeout: 30) == 0)
        // At least once, and a second time only where the end was not recorded yet when chimed was killed.
        let printedTwice = Set(printedBefore).intersection(printed(second.standardOutput))
        #expect(printedTwice.isDisjoint(with: atKill.printed.union(atKill.finished)), "printed twice: \(printedTwice)")
        let done = commandLines("done")
        let doneTwice = Set(done.filter { line in done.filter { $0 == line }.count > 1 })
        #expect(doneTwice.isDisjoint(with: atKill.finished), "a command finished twice: \(doneTwice)")
        #expect(
            second.standardError.contains("delivering it again except to stdout, which had finished"),
            "\(second.standardError)")
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
