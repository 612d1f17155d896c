import ChimeTestSupport
import Foundation
import Testing

/// Why the real apprise cannot be tried here, if it cannot (Debian: apprise).
let appriseUnmetRequirement: String? = {
    if let reason = WebhookTestServer.unavailableReason { return reason }
    return FileManager.default.isExecutableFile(atPath: "/usr/bin/apprise") ? nil : "needs apprise"
}()

/// The `apprise` backend with Debian's real apprise, delivering to local stand-ins of the services it posts to (a
/// JSON webhook, an ntfy server), through `chimectl fire` (the dispatcher and backends chimed uses).
@Suite(.serialized, .enabled(if: appriseUnmetRequirement == nil, "skipped: \(appriseUnmetRequirement ?? "")"))
struct AppriseProcessTests {
    let chimectl = BinaryLocator.path(of: "chimectl")

    struct Instance {
        let directory: TemporaryDirectory

        init(conf: String, level: String = "active") throws {
            directory = try TemporaryDirectory(prefix: "chime-apprise")
            try directory.write("config/chimed.conf", conf)
            try directory.write(
                "config/rota.notification",
                "[Notification]\nTitle=On call: Dana\nBody=Pager handed over at 09:00\nInterruptionLevel=\(level)\n"
                    + "Deliver=phone\n[Trigger]\nOnCalendar=Mon 09:00\n")
        }

        var options: [String] {
            [
                "--config-dir=\(directory.path)/config", "--state-dir=\(directory.path)/state",
                "--runtime-dir=\(directory.path)/run",
            ]
        }
    }

    func fire(_ instance: Instance) throws -> ProcessRunner.Output {
        try ProcessRunner.run(chimectl, ["fire", "rota"] + instance.options)
    }

    @Test func aJSONWebhookAndAnNtfyServerGetTheNotification() throws {
        let hook = try WebhookTestServer(answers: [.status(200)])
        let ntfy = try WebhookTestServer(answers: [.status(200)])
        let instance = try Instance(
            conf: """
                [Apprise]
                Name=phone
                URL=json://127.0.0.1:\(hook.port)/hook
                URL=ntfy://127.0.0.1:\(ntfy.port)/chime-alerts
                """, level: "critical")
        defer { instance.directory.remove() }
        let run = try fire(instance)
        #expect(run.status == 0, "\(run.standardError)")
        let posted = try #require(hook.waitForRequests(1, timeout: 10).first)
        let object = try JSONSerialization.jsonObject(with: Data(posted.body.utf8)) as? [String: Any]
        #expect(posted.path == "/hook")
        #expect(object?["title"] as? String == "On call: Dana")
        #expect(object?["message"] as? String == "Pager handed over at 09:00")
        #expect(object?["type"] as? String == "failure")
        let topic = try #require(ntfy.waitForRequests(1, timeout: 10).first)
        #expect(topic.method == "POST")
        #expect("\(topic.path) \(topic.body)".contains("chime-alerts"), "\(topic.path) \(topic.body)")
        #expect(topic.body.contains("Pager handed over at 09:00"), "\(topic.body)")
    }

    /// A failure is a failed delivery that says what happened without the URL's secret parts.
    @Test func aFailureNeverQuotesTheSecretPartsOfTheURL() throws {
        let refusing = try RefusingPort()
        let instance = try Instance(
            conf: """
                [Apprise]
                Name=phone
                URL=json://robot:hunter2@127.0.0.1:\(refusing.port)/s3cr3t-path?token=t0pS3cr3t
                TimeoutSec=20s
                """)
        defer { instance.directory.remove() }
        let run = try fire(instance)
        #expect(run.status == 1)
        #expect(
            run.standardOutput.contains("  phone: failed: apprise exited with status 1 (output: ")
                && run.standardOutput.contains("sending JSON notification to ***"), "\(run.standardOutput)")
        for secret in ["hunter2", "s3cr3t-path", "t0pS3cr3t", "robot"] {
            #expect(!(run.standardOutput + run.standardError).contains(secret), "\(secret) in: \(run.standardOutput)")
        }
    }

    /// apprise's own configuration file may hold secrets: used when others cannot read it, refused with the fix
    /// when they can.
    @Test func aConfigurationFileIsUsedOnlyWhenOthersCannotReadIt() throws {
        let hook = try WebhookTestServer(answers: [.status(200)])
        let secrets = try TemporaryDirectory(prefix: "chime-apprise-config")
        defer { secrets.remove() }
        let file = try secrets.write("apprise.yml", "urls:\n  - json://127.0.0.1:\(hook.port)/from-config\n")
        chmod(file, 0o640)
        let instance = try Instance(conf: "[Apprise]\nName=phone\nConfigFile=\(file)\n")
        defer { instance.directory.remove() }
        let run = try fire(instance)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(hook.waitForRequests(1, timeout: 10).first?.path == "/from-config")

        chmod(file, 0o644)
        let checked = try ProcessRunner.run(
            BinaryLocator.path(of: "chimed"), ["--check", "--config-dir=\(instance.directory.path)/config"])
        #expect(checked.status == 1)
        #expect(
            checked.standardError.contains(
                "chimed.conf:3:12: ConfigFile= \(file): the file is readable by others and may hold secrets; "
                    + "refusing to use it (chmod o-r \(file))."), "\(checked.standardError)")
        let refused = try fire(instance)
        #expect(refused.status == 1)
        #expect(
            refused.standardOutput.contains("phone: failed: nowhere to send to: set URL= or ConfigFile= in [Apprise]"),
            "\(refused.standardOutput)")
    }
}
