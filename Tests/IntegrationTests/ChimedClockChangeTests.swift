import ChimeTestSupport
import Foundation
import Testing

/// The real chimed while the system's wall clock is stepped and its time zone replaced, as NTP, an administrator
/// or `timedatectl` do: the schedule is rebuilt, what was jumped over is missed or caught up once, and nothing is
/// delivered twice.
///
/// The clock steps are a minute and a half long (an occurrence more than 60 s late counts as missed, chimed(8)) and
/// put back exactly (`RealtimeClockStepper`); the zone is replaced in a copy of `/etc`
/// that only chimed's mount namespace sees.
@Suite(.serialized) struct ChimedClockChangeTests {
    let chimed = BinaryLocator.path(of: "chimed")
    static let unshare = "/usr/bin/unshare"

    /// The deliveries on stdout so far: each one's id, fire time (µs since the epoch) and missed count.
    static func deliveries(_ output: String) -> [(id: String, fireTime: Int64, missed: Int)] {
        output.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let id = object["id"] as? String, let text = object["fire_time"] as? String,
                let fireTime = TestDate.microseconds(iso: text)
            else { return nil }
            return (id, fireTime, object["missed"] as? Int ?? 0)
        }
    }

    /// The number of `count` in `missed N occurrence(s)` that chimed said of `id` on standard error.
    static func missedCount(of id: String, in standardError: String) -> Int? {
        let prefix = "\(id): missed "
        guard let line = standardError.split(separator: "\n").first(where: { $0.contains(prefix) }),
            let start = line.range(of: prefix)?.upperBound
        else { return nil }
        return Int(line[start...].prefix { $0.isNumber })
    }

    @Test func aStepForwardCountsWhatItJumpedOverAndAStepBackRepeatsNothing() throws {
        if let reason = RealtimeClockStepper.unavailableReason { try Test.cancel("Skipped: \(reason)") }
        let directory = try TemporaryDirectory(prefix: "chimed-clock")
        defer { directory.remove() }
        // Due within the step's window: jumped over by the step forward, passed again after the step back.
        let dueAt = Int64(Date().timeIntervalSince1970) + 4
        try directory.write("config/tick.notification", "[Notification]\nTitle=Tick\n[Trigger]\nEvery=1s\n")
        try directory.write(
            "config/due.notification", "[Notification]\nTitle=Due\n[Trigger]\nAt=@\(dueAt)\nPersistent=yes\n")
        let notify = try NotifySocket(directory: directory.path)
        let process = try RunningProcess(
            chimed,
            [
                "--config-dir=\(directory.path)/config", "--runtime-dir=\(directory.path)/run",
                "--state-dir=\(directory.path)/state", "--deliver=stdout",
            ],
            environment: ["NOTIFY_SOCKET": notify.path, "TZ": "UTC"])
        _ = notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        #expect(process.waitForOutput(timeout: .seconds(5)) { $0.contains(#""id":"tick""#) } != nil)

        let clock = RealtimeClockStepper()
        let beforeStep = Int64(Date().timeIntervalSince1970 * 1_000_000)
        try clock.step(by: .seconds(90))
        let forward = notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        #expect(forward.contains { $0.contains("STATUS=Reloading (clock change)") }, "\(forward)")
        #expect(waitFor({ process.standardOutput.contains(#""id":"due""#) }, timeout: 5))
        try clock.restore()
        let back = notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        #expect(back.contains { $0.contains("STATUS=Reloading (clock change)") }, "\(back)")
        // On the restored clock, past the due time and the ticks delivered before the step back.
        Thread.sleep(until: Date(timeIntervalSince1970: Double(dueAt) + 1.5))
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 10) == 0)

        let errors = process.standardError
        #expect(errors.components(separatedBy: "chimed: The system clock changed").count - 1 == 2, "\(errors)")
        // The 90-odd ticks jumped over are one missed event; the one-shot is delivered late, once.
        let missed = try #require(Self.missedCount(of: "tick", in: errors), "\(errors)")
        #expect((85...91).contains(missed), "\(errors)")
        #expect(errors.contains("due: delivering late what was missed (1 occurrence(s))."), "\(errors)")
        let deliveries = Self.deliveries(process.standardOutput)
        let due = deliveries.filter { $0.id == "due" }
        #expect(due.count == 1, "\(process.standardOutput)")
        #expect(due.first?.fireTime == dueAt * 1_000_000 && due.first?.missed == 1)
        // Each tick once, none in the stretch the clock jumped over.
        let ticks = deliveries.filter { $0.id == "tick" }.map(\.fireTime)
        #expect(Set(ticks).count == ticks.count, "duplicates: \(ticks)")
        let jumpedOver = (beforeStep + 1_000_000)..<(beforeStep + 89_000_000)
        #expect(!ticks.contains { jumpedOver.contains($0) }, "\(ticks)")
        #expect(ticks.contains { $0 < beforeStep }, "\(ticks)")
    }

    static var zoneUnavailableReason: String? {
        if geteuid() != 0 { return "needs root to give chimed an /etc of its own in a mount namespace" }
        if !FileManager.default.isExecutableFile(atPath: unshare) { return "needs \(unshare)" }
        return nil
    }

    @Test func aNewSystemZoneMovesLocalTimesAndLeavesZonedOnes() throws {
        if let reason = Self.zoneUnavailableReason { try Test.cancel("Skipped: \(reason)") }
        let directory = try TemporaryDirectory(prefix: "chimed-zone")
        defer { directory.remove() }
        let etc = directory.path + "/etc"
        let copy = try ProcessRunner.run("/bin/cp", ["-a", "/etc", etc])
        try #require(copy.status == 0, "\(copy.standardError)")
        unlink(etc + "/localtime")
        try #require(symlink("/usr/share/zoneinfo/America/New_York", etc + "/localtime") == 0)
        // Due in seconds as Tokyo's wall clock reads: 13 or 14 hours away in New York, where chimed starts.
        let dueAt = Int64(Date().timeIntervalSince1970) + 3
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "Asia/Tokyo")
        format.dateFormat = "HH:mm:ss"
        let wallClock = format.string(from: Date(timeIntervalSince1970: Double(dueAt)))
        try directory.write(
            "config/local.notification", "[Notification]\nTitle=Local\n[Trigger]\nOnCalendar=\(wallClock)\n")
        try directory.write(
            "config/zoned.notification", "[Notification]\nTitle=Zoned\n[Trigger]\nOnCalendar=\(wallClock) Asia/Tokyo\n")
        let notify = try NotifySocket(directory: directory.path)
        // chimed sees the copy as /etc, and no TZ: the system zone is what /etc/localtime says.
        let script = "mount --bind \"$0\" /etc || exit 70; exec env -u TZ \"$@\""
        let process = try RunningProcess(
            Self.unshare,
            [
                "--mount", "--propagation", "private", "/bin/sh", "-c", script, etc, chimed,
                "--config-dir=\(directory.path)/config", "--runtime-dir=\(directory.path)/run",
                "--state-dir=\(directory.path)/state", "--deliver=stdout",
            ],
            environment: ["NOTIFY_SOCKET": notify.path])
        let started = notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        #expect(started.last?.contains("next: zoned at ") == true, "\(started) \(process.standardError)")

        // As timedatectl set-timezone does it: a new symlink renamed over the old.
        try #require(symlink("/usr/share/zoneinfo/Asia/Tokyo", etc + "/.localtime.new") == 0)
        try #require(rename(etc + "/.localtime.new", etc + "/localtime") == 0)
        let rebuilt = notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        #expect(rebuilt.contains { $0.contains("STATUS=Reloading (time zone change)") }, "\(rebuilt)")
        let both = process.waitForOutput(timeout: .seconds(10)) {
            $0.contains(#""id":"local""#) && $0.contains(#""id":"zoned""#)
        }
        #expect(both != nil, "\(process.standardOutput) \(process.standardError)")
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 10) == 0)
        // Each once, at the instant Tokyo's clock shows the time.
        let deliveries = Self.deliveries(process.standardOutput)
        #expect(deliveries.map(\.id).sorted() == ["local", "zoned"], "\(process.standardOutput)")
        #expect(deliveries.allSatisfy { $0.fireTime == dueAt * 1_000_000 }, "\(process.standardOutput)")
    }
}
