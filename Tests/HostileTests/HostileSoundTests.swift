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
}
