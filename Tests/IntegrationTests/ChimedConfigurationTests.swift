import ChimeTestSupport
import Foundation
import Testing

/// chimed.conf with the real `chimed`: read at start and at every reload, presentation settings applied and
/// logged, broken values reported by `--check`.
@Suite(.serialized) struct ChimedConfigurationTests {
    let chimed = BinaryLocator.path(of: "chimed")

    static let everySecond = """
        [Notification]
        Title=Tick
        [Trigger]
        OnCalendar=*:*:*
        """

    /// Lines of standard output that are deliveries of `id`.
    static func deliveries(_ output: String, id: String) -> Int {
        output.split(separator: "\n").filter { $0.contains(#""id":"\#(id)""#) }.count
    }

    @Test func presentationSettingsApplyAndAreLoggedAtStartAndOnReload() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-conf")
        defer { directory.remove() }
        // The default backend comes from chimed.conf (no --deliver); Alert=no keeps everything to the journal.
        try directory.write("config/chimed.conf", "[Daemon]\nDeliver=stdout\n[Presentation]\nAlert=no\nSound=no\n")
        try directory.write("config/tick.notification", Self.everySecond)
        let notify = try NotifySocket(directory: directory.path)
        let process = try RunningProcess(
            chimed,
            [
                "--config-dir=\(directory.path)/config", "--runtime-dir=\(directory.path)/run",
                "--state-dir=\(directory.path)/state",
            ],
            environment: ["NOTIFY_SOCKET": notify.path, "TZ": "UTC"])
        _ = notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        #expect(
            waitFor(
                { process.standardError.contains("Presentation: badge allowed; alert, sound not allowed.") },
                timeout: 10), "\(process.standardError)")
        // Two ticks, as the state records them, none of them on stdout: journal only.
        let occurrences = directory.path + "/state/occurrences.log"
        let fired = {
            ((try? String(contentsOfFile: occurrences, encoding: .utf8)) ?? "")
                .components(separatedBy: #""occurrence":"tick""#).count - 1
        }
        #expect(waitFor({ fired() >= 2 }, timeout: 10), "\(process.standardError)")
        #expect(Self.deliveries(process.standardOutput, id: "tick") == 0)

        try directory.write("config/chimed.conf", "[Daemon]\nDeliver=stdout\n")
        process.signal(SIGHUP)
        #expect(
            waitFor(
                { process.standardError.contains("Presentation: alert, sound, badge allowed.") }, timeout: 10),
            "\(process.standardError)")
        #expect(waitFor({ Self.deliveries(process.standardOutput, id: "tick") >= 2 }, timeout: 10))
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 10) == 0)
    }

    @Test func checkReportsProblemsOfChimedConfWithTheirLocation() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-conf")
        defer { directory.remove() }
        let path = try directory.write(
            "chimed.conf", "[Daemon]\nDeliver=desktop\n[Command]\nExec=notify-send\n[Presentation]\nSound=quiet\n")
        try directory.write("tick.notification", Self.everySecond)
        let result = try ProcessRunner.run(chimed, ["--check", "--config-dir=\(directory.path)"])
        #expect(result.status == 1)
        #expect(
            result.standardError.contains(
                "\(path):4:6: Exec= needs an absolute path to a program, not 'notify-send'; ignoring."))
        #expect(result.standardError.contains("\(path):6:7: Invalid Sound= 'quiet': expected yes or no; ignoring."))
        #expect(result.standardOutput.contains("chimed.conf: \(path) (2 error(s))"))
        #expect(result.standardOutput.contains("Default backends: desktop; presentation: alert, sound, badge allowed"))
    }
}
