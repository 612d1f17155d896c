import ChimeTestSupport
import Foundation
import Testing

/// Sounds that would stall or swamp the player: a FIFO and a device as `Sound=` files, and a burst of alarms that all
/// ring until answered. The real `chimed --user` delivers every one, says why it could not play, and stays within a
/// few threads.
@Suite(.serialized)
struct HostileSoundTests {
    @Test func aFifoADeviceAndABurstOfAlarmsNeitherStallNorSwampChimed() throws {
        let directory = try TemporaryDirectory(prefix: "hostile-sound")
        defer { directory.remove() }
        let fifo = directory.path + "/alarm.oga"
        #expect(mkfifo(fifo, 0o644) == 0)
        let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 3
        try directory.write("config/chimed.conf", "[Daemon]\nDeliver=stdout\n")
        try directory.write(
            "config/fifo.notification",
            "[Notification]\nTitle=Fifo\nSound=\(fifo)\nRing=until-answered\n[Trigger]\nAt=@\(due)\n")
        try directory.write(
            "config/zero.notification",
            "[Notification]\nTitle=Zero\nSound=/dev/zero\nRing=until-answered\n[Trigger]\nAt=@\(due)\n")
        for index in 0..<40 {
            try directory.write(
                "config/burst-\(index).notification",
                "[Notification]\nTitle=Burst\nSound=default\nRing=until-answered\n[Trigger]\nAt=@\(due + 1)\n")
        }
        try directory.write("config/after.notification", "[Notification]\nTitle=After\n[Trigger]\nAt=@\(due + 3)\n")
        let chimed = try RunningProcess(
            BinaryLocator.path(of: "chimed"),
            [
                "--user", "--config-dir=\(directory.path)/config", "--state-dir=\(directory.path)/state",
                "--runtime-dir=\(directory.path)/run",
            ],
            // No audio server: whatever is played fails to connect, quickly.
            environment: ["TZ": "UTC", "PULSE_SERVER": "unix:\(directory.path)/no-audio-server"])
        defer {
            chimed.signal(SIGTERM)
            chimed.wait(timeout: 10)
        }
        let after = chimed.waitForOutput(timeout: .seconds(20)) { $0.contains("\"title\":\"After\"") }
        #expect(after != nil, "\(chimed.standardOutput)\(chimed.standardError)")
        let delivered = chimed.standardOutput.split(separator: "\n")
        #expect(delivered.filter { $0.contains("\"title\":\"Burst\"") }.count == 40)
        #expect(delivered.contains { $0.contains("\"title\":\"Fifo\"") })
        #expect(delivered.contains { $0.contains("\"title\":\"Zero\"") })
        let log = chimed.standardError
        #expect(log.contains("fifo: the sound '\(fifo)' was not played: \(fifo) is not a regular file"), "\(log)")
        #expect(log.contains("zero: the sound '/dev/zero' was not played: /dev/zero is not a regular file"), "\(log)")
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(chimed.pid)/task").count
        #expect(threads < 32, "chimed has \(threads) threads")
    }

    /// The sound helper's children of chimed: pids of processes named chime-sound whose parent is `pid`.
    static func helpers(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? "")
                .split(separator: " ").compactMap { Int32($0) }
        }.filter { child in
            (try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8))?.hasPrefix("chime-sound") == true
        }
    }

    /// A decoder that crashes on a file takes the sound helper down, not chimed: the helper is killed while it rings;
    /// chimed says so, and the next sound rings through a new helper.
    @Test(
        .enabled(
            if: PrivateAudioServer.unmetRequirement == nil, "skipped: \(PrivateAudioServer.unmetRequirement ?? "")"))
    func aCrashingSoundHelperCostsOneSoundNotChimed() async throws {
        let directory = try TemporaryDirectory(prefix: "hostile-helper")
        defer { directory.remove() }
        let audio = try await PrivateAudioServer()
        defer { audio.stop() }
        let tone = directory.path + "/tone.wav"
        try Wave.tone(seconds: 1).write(to: URL(fileURLWithPath: tone))
        let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 3
        try directory.write("config/chimed.conf", "[Daemon]\nDeliver=stdout\n")
        try directory.write(
            "config/alarm.notification",
            "[Notification]\nTitle=Alarm\nSound=\(tone)\nRing=until-answered\n[Trigger]\nAt=@\(due)\n")
        try directory.write(
            "config/later.notification", "[Notification]\nTitle=Later\nSound=\(tone)\n[Trigger]\nAt=@\(due + 4)\n")
        let chimed = try RunningProcess(
            BinaryLocator.path(of: "chimed"),
            [
                "--user", "--config-dir=\(directory.path)/config", "--state-dir=\(directory.path)/state",
                "--runtime-dir=\(directory.path)/run",
            ], environment: ["TZ": "UTC"].merging(audio.environment) { $1 })
        defer {
            chimed.signal(SIGTERM)
            chimed.wait(timeout: 10)
        }
        let recording = try await audio.recording {
            let started = await eventually(timeout: 20) {
                chimed.standardOutput.contains("\"title\":\"Alarm\"") && !Self.helpers(of: chimed.pid).isEmpty
            }
            try #require(started, "\(chimed.standardError)")
            try await Task.sleep(for: .seconds(1))
            // SIGKILL, as abrupt as a crash: a SIGSEGV would be caught and reported as a finding by
            // ThreadSanitizer in make test's thread pass (SoundHelperTests has a helper die by SIGSEGV).
            for helper in Self.helpers(of: chimed.pid) { kill(helper, SIGKILL) }
            let later = await eventually(timeout: 20) { chimed.standardOutput.contains("\"title\":\"Later\"") }
            try #require(later, "\(chimed.standardError)")
            try await Task.sleep(for: .seconds(2))
        }
        #expect(chimed.isRunning)
        #expect(
            chimed.standardError.contains(
                "alarm: the sound '\(tone)' was not played: the sound player was killed by signal 9"),
            "\(chimed.standardError)")
        // The alarm until the crash, then the later one, whole.
        let sounds = recording.sounds()
        #expect(sounds.count == 2, "\(sounds)")
        #expect(sounds.last.map { $0.upperBound - $0.lowerBound > .milliseconds(800) } == true, "\(sounds)")
    }
}
