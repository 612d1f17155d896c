import ChimeCore
import ChimeDaemonTestSupport
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// The `apprise` backend's argv, what it hides of a URL, and its section of chimed.conf.
struct AppriseBackendTests {
    static func backend(_ settings: AppriseSettings) -> AppriseBackend {
        AppriseBackend(
            settings: settings,
            context: BackendContext(
                log: RecordingEventLog(), clock: ManualClock(Date()), responder: CommandBackendTests.NoResponder(),
                environment: [:]))
    }

    @Test func theArgvCarriesTitleBodyAndTypeAndNoShell() {
        var settings = AppriseSettings()
        settings.urls = ["ntfy://ntfy.example.org/alerts", "mailto://user:pass@example.org"]
        var notification = ScheduledNotification(id: "tea", title: "Tea; rm -rf /", trigger: Trigger())
        notification.interruptionLevel = .timeSensitive
        let argv = Self.backend(settings).arguments(for: Delivery(notification: notification, fireTime: Date()))
        #expect(
            argv == [
                "/usr/bin/apprise", "-v", "--title=Tea; rm -rf /", "--body=Tea; rm -rf /",
                "--notification-type=warning",
                "ntfy://ntfy.example.org/alerts", "mailto://user:pass@example.org",
            ])
        settings.urls = []
        settings.configFile = "/etc/chime/apprise.yml"
        notification.body = "Kettle is on"
        notification.interruptionLevel = .critical
        #expect(
            Self.backend(settings).arguments(for: Delivery(notification: notification, fireTime: Date())).suffix(3) == [
                "--body=Kettle is on", "--notification-type=failure", "--config=/etc/chime/apprise.yml",
            ])
    }

    @Test(arguments: [
        (ScheduledNotification.InterruptionLevel.passive, ScheduledNotification.Urgency.low, "info"),
        (.active, .normal, "info"), (.timeSensitive, .normal, "warning"), (.critical, .normal, "failure"),
        (.active, .critical, "failure"),
    ])
    func levelsAndUrgenciesBecomeApprisesTypes(
        level: ScheduledNotification.InterruptionLevel, urgency: ScheduledNotification.Urgency, type: String
    ) {
        var notification = ScheduledNotification(id: "x", title: "X", trigger: Trigger())
        notification.interruptionLevel = level
        notification.urgency = urgency
        #expect(AppriseBackend.notificationType(of: notification) == type)
    }

    /// Only the service shows: Telegram's token sits where a host would, ntfy's topic in the path.
    @Test func everythingButTheSchemeIsHidden() {
        let secrets = AppriseSecrets(urls: [
            "ntfys://robot:hunter22@ntfy.example.org/chime-alerts?priority=urgent",
            "tgram://123456:ABC-token/987654", "gotify://gotify.example.org/AbCdEf123",
        ])
        let text =
            "Failed to send to ntfys://robot:hunter22@ntfy.example.org/chime-alerts?priority=urgent; "
            + "tgram://123456:ABC-token/987654; Gotify at gotify.example.org (AbCdEf123): 401; ABC-token"
        #expect(
            secrets.redact(text)
                == "Failed to send to ntfys://***; tgram://***; Gotify at *** (***): 401; ***")
    }

    @Test func theSectionIsReadWithItsRules() throws {
        let directory = try TemporaryDirectory(prefix: "chime-apprise-conf")
        defer { directory.remove() }
        let open = try directory.write("open.yml", "urls:\n  - json://localhost/hook\n", permissions: 0o644)
        let closed = try directory.write("closed.yml", "urls:\n  - json://localhost/hook\n", permissions: 0o640)
        try directory.write(
            "chimed.conf",
            """
            [Apprise]
            Name=phone
            URL=ntfy://ntfy.example.org/alerts
            URL=not a url
            ConfigFile=\(open)
            TimeoutSec=5s

            [Apprise]
            Name=mail
            ConfigFile=\(closed)

            [Command]
            Name=pager
            Exec=/bin/true

            [Apprise]
            Name=pager
            URL=json://localhost/x
            """)
        let configuration = DaemonConfiguration.load(directories: [directory.path])
        let phone = try #require(configuration.apprises.first { $0.name == "phone" })
        #expect(phone.urls == ["ntfy://ntfy.example.org/alerts"])
        #expect(phone.configFile == nil)
        #expect(phone.timeout == .seconds(5))
        #expect(configuration.apprises.first { $0.name == "mail" }?.configFile == closed)
        #expect(configuration.backendNames.suffix(3) == ["pager", "phone", "mail"])
        let path = directory.path + "/chimed.conf"
        #expect(
            configuration.diagnostics.map(\.description) == [
                "\(path):4:5: Invalid URL=: expected an apprise URL such as ntfy://host/topic; ignoring.",
                "\(path):5:12: ConfigFile= \(open): the file is readable by others and may hold secrets; refusing to "
                    + "use it (chmod o-r \(open)).",
                "\(path):17:6: Name= 'pager' is already the name of another backend; ignoring this [Apprise].",
            ])
    }
}
