import ChimeCore
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// chimed.conf: every key read, every broken value reported where it is and ignored, drop-ins and precedence.
@Suite struct DaemonConfigurationTests {
    @Test func withoutAFileEverythingHasItsDefault() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = DaemonConfiguration.load(directories: [directory.path])
        #expect(configuration == DaemonConfiguration())
        #expect(configuration.defaultBackends == nil)
        #expect(configuration.presentation == PresentationSettings(alert: true, sound: true, badge: true))
        #expect(configuration.backendNames == ["journal", "stdout", "desktop", "command", "webhook", "apprise"])
        #expect(configuration.desktop.fallback == "journal")
    }

    @Test func everyKeyIsRead() {
        let configuration = DaemonConfiguration(
            parsing: """
                [Daemon]
                Deliver=desktop journal
                GeneratorTimeoutSec=1min
                GeneratorMaxOutput=100M

                [Presentation]
                Alert=yes
                Sound=no
                Badge=off

                [Desktop]
                AppName=Reminders
                DesktopEntry=org.example.Reminders
                ExpireSec=30s
                Fallback=stdout

                [Command]
                Exec=/usr/bin/logger -t "chime says"
                TimeoutSec=5

                [Command]
                Name=speak
                Exec=/usr/bin/spd-say --wait
                TimeoutSec=1min

                [Webhook]
                Name=ops
                URL=https://hooks.example.org/chime
                Header=Authorization: Bearer abc
                Header=X-Team:  blue
                TimeoutSec=3s
                Retries=5
                RetrySec=500ms
                RetryMaxSec=20s
                """, path: "/etc/chime/chimed.conf")
        #expect(configuration.diagnostics.isEmpty, "\(configuration.diagnostics)")
        #expect(configuration.defaultBackends == ["desktop", "journal"])
        #expect(configuration.generatorTimeout == .seconds(60))
        #expect(configuration.generatorOutputLimit == 100 << 20)
        #expect(configuration.presentation == PresentationSettings(alert: true, sound: false, badge: false))
        #expect(configuration.desktop.appName == "Reminders")
        #expect(configuration.desktop.desktopEntry == "org.example.Reminders")
        #expect(configuration.desktop.expire == .seconds(30))
        #expect(configuration.desktop.fallback == "stdout")
        #expect(configuration.commands.map(\.name) == ["command", "speak"])
        #expect(configuration.commands[0].argv == ["/usr/bin/logger", "-t", "chime says"])
        #expect(configuration.commands[0].timeout == .seconds(5))
        #expect(configuration.commands[1].argv == ["/usr/bin/spd-say", "--wait"])
        #expect(configuration.commands[1].timeout == .seconds(60))
        #expect(configuration.webhooks.map(\.name) == ["webhook", "ops"])
        let ops = configuration.webhooks[1]
        #expect(ops.url == "https://hooks.example.org/chime")
        #expect(
            ops.headers == [.init(name: "Authorization", value: "Bearer abc"), .init(name: "X-Team", value: "blue")])
        #expect(ops.timeout == .seconds(3))
        #expect(ops.retries == 5)
        #expect(ops.retryDelay == .milliseconds(500))
        #expect(ops.retryMaxDelay == .seconds(20))
        #expect(configuration.webhooks[0].url == nil)
        #expect(
            configuration.backendNames == [
                "journal", "stdout", "desktop", "command", "webhook", "apprise", "speak", "ops",
            ])
    }

    @Test func aBrokenValueIsReportedWhereItIsAndTheRestStillLoads() {
        let configuration = DaemonConfiguration(
            parsing: """
                [Presentation]
                Sound=maybe
                Badge=no

                [Command]
                Exec=logger
                TimeoutSec=0

                [Webhook]
                URL=ftp://example.org/
                Retries=1000
                Header=no colon here
                Colour=blue

                [Frobnicate]
                [Daemon]
                TimeoutSec=5
                """, path: "/etc/chime/chimed.conf")
        let messages = configuration.diagnostics.map(\.description)
        #expect(
            messages == [
                "/etc/chime/chimed.conf:2:7: Invalid Sound= 'maybe': expected yes or no; ignoring.",
                "/etc/chime/chimed.conf:6:6: Exec= needs an absolute path to a program, not 'logger'; ignoring.",
                "/etc/chime/chimed.conf:7:12: Invalid TimeoutSec= '0': expected a time span above zero; ignoring.",
                "/etc/chime/chimed.conf:10:5: Invalid URL=: URL= must start with http:// or https://, not ftp://; ignoring.",
                "/etc/chime/chimed.conf:11:9: Invalid Retries= '1000': expected 0 to 100; ignoring.",
                "/etc/chime/chimed.conf:12:8: Invalid Header=: expected NAME: VALUE; ignoring.",
                "/etc/chime/chimed.conf:13:1: Unknown key 'Colour' in section [Webhook], ignoring.",
                "/etc/chime/chimed.conf:15:1: Unknown section 'Frobnicate', ignoring.",
                "/etc/chime/chimed.conf:17:1: Unknown key 'TimeoutSec' in section [Daemon], ignoring. TimeoutSec= "
                    + "belongs in [Apprise], [Command] or [Webhook].",
            ])
        #expect(configuration.presentation == PresentationSettings(alert: true, sound: true, badge: false))
        #expect(configuration.commands == [CommandSettings()])
        #expect(configuration.webhooks == [WebhookSettings()])
    }

    @Test(arguments: [("65536", 65536), ("512K", 512 << 10), ("64M", 64 << 20), ("1G", 1 << 30)])
    func generatorOutputSizes(text: String, bytes: Int) {
        let configuration = DaemonConfiguration(parsing: "[Daemon]\nGeneratorMaxOutput=\(text)\n", path: "c")
        #expect(configuration.diagnostics.isEmpty)
        #expect(configuration.generatorOutputLimit == bytes)
    }

    @Test(arguments: ["lots", "0", "-1M", "12T", "1.5M", "M"])
    func invalidGeneratorOutputSizesKeepTheDefault(text: String) {
        let configuration = DaemonConfiguration(parsing: "[Daemon]\nGeneratorMaxOutput=\(text)\n", path: "c")
        #expect(
            configuration.diagnostics.map(\.description) == [
                "c:2:20: Invalid GeneratorMaxOutput= '\(text)': expected a size above zero such as 65536, 512K, 64M "
                    + "or 1G; ignoring."
            ])
        #expect(configuration.generatorOutputLimit == GeneratorSource.defaultOutputLimit)
    }

    @Test func aBackendCannotTakeTheNameOfAnotherType() {
        let configuration = DaemonConfiguration(
            parsing: """
                [Command]
                Name=journal
                Exec=/bin/true

                [Command]
                Name=both
                Exec=/bin/true

                [Webhook]
                Name=both
                URL=http://localhost/

                [Desktop]
                Fallback=desktop
                """, path: "chimed.conf")
        #expect(
            configuration.diagnostics.map(\.description) == [
                "chimed.conf:2:6: Name= 'journal' is already the name of another backend; ignoring this [Command].",
                "chimed.conf:10:6: Name= 'both' is already the name of another backend; ignoring this [Webhook].",
                "chimed.conf:14:10: Fallback= names 'desktop', which is itself; using journal.",
            ])
        #expect(configuration.commands.map(\.name) == ["command", "both"])
        #expect(configuration.webhooks.map(\.name) == ["webhook"])
        #expect(configuration.desktop.fallback == "journal")
    }

    @Test func dropInsOfAllDirectoriesApplyAfterTheFirstMainFile() throws {
        let etc = try TemporaryDirectory()
        let lib = try TemporaryDirectory()
        defer {
            etc.remove()
            lib.remove()
        }
        try etc.write("chimed.conf", "[Daemon]\nDeliver=journal\n[Command]\nName=speak\nExec=/bin/echo one\n")
        try lib.write("chimed.conf", "[Daemon]\nDeliver=stdout\n")  // shadowed by /etc's
        try lib.write("chimed.conf.d/10-desktop.conf", "[Daemon]\nDeliver=desktop\n")
        try lib.write("chimed.conf.d/20-speak.conf", "[Command]\nName=speak\nTimeoutSec=9\n")
        try etc.write("chimed.conf.d/20-speak.conf", "[Command]\nName=speak\nTimeoutSec=7\n")  // wins over lib's
        try etc.write("chimed.conf.d/notes.txt", "[Daemon]\nDeliver=nothing\n")
        let configuration = DaemonConfiguration.load(directories: [etc.path, lib.path])
        #expect(configuration.diagnostics.isEmpty, "\(configuration.diagnostics)")
        #expect(
            configuration.paths == [
                etc.path + "/chimed.conf", lib.path + "/chimed.conf.d/10-desktop.conf",
                etc.path + "/chimed.conf.d/20-speak.conf",
            ])
        #expect(configuration.defaultBackends == ["desktop"])
        #expect(configuration.commands.last?.argv == ["/bin/echo", "one"])
        #expect(configuration.commands.last?.timeout == .seconds(7))
    }

    @Test func aFileOthersCanWriteIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("chimed.conf", "[Daemon]\nDeliver=stdout\n", permissions: 0o666)
        let configuration = DaemonConfiguration.load(directories: [directory.path])
        #expect(
            configuration.diagnostics.map(\.description) == [
                "\(path): File is writable by its group and by others; refusing to read it (chmod go-w \(path))."
            ])
        #expect(configuration.defaultBackends == nil)
    }

    @Test(arguments: [
        (
            PresentationSettings(alert: false), ["journal"], "bell" as String?, false,
            ScheduledNotification.BadgeChange.add(1) as ScheduledNotification.BadgeChange?
        ),
        (PresentationSettings(sound: false), ["desktop", "stdout"], nil, true, .add(1)),
        (PresentationSettings(badge: false), ["desktop", "stdout"], "bell", false, nil),
        (PresentationSettings(), ["desktop", "stdout"], "bell", false, .add(1)),
    ])
    func presentationStripsWhatIsNotAllowed(
        settings: PresentationSettings, backends: [String], sound: String?, suppressed: Bool,
        badge: ScheduledNotification.BadgeChange?
    ) {
        var notification = ScheduledNotification(id: "tea", title: "Tea", trigger: Trigger())
        notification.backends = ["desktop", "stdout"]
        notification.sound = "bell"
        notification.badge = .add(1)
        var delivery = Delivery(notification: notification, fireTime: Date(timeIntervalSince1970: 0))
        settings.strip(&delivery)
        #expect(delivery.notification.backends == backends)
        #expect(delivery.notification.sound == sound)
        #expect(delivery.isSoundSuppressed == suppressed)
        #expect(delivery.notification.badge == badge)
    }

    @Test func presentationDescribesWhatIsAllowed() {
        #expect(PresentationSettings().description == "alert, sound, badge allowed")
        #expect(
            PresentationSettings(sound: false, badge: false).description == "alert allowed; sound, badge not allowed")
        #expect(
            PresentationSettings(alert: false, sound: false, badge: false).description
                == "alert, sound, badge not allowed")
    }
}

/// chimed.conf's `[Quiet]` windows and `[Focus]` policy.
@Suite struct FocusConfigurationTests {
    static let berlin = try! ZoneDatabase.system.rules(named: "Europe/Berlin")

    @Test func quietWindowsAndThePolicyAreRead() {
        let configuration = DaemonConfiguration(
            parsing: """
                [Focus]
                Passive=drop
                Active=journal
                TimeSensitive=hold
                Release=each
                FollowDesktop=no

                [Quiet]
                OnCalendar=Mon..Fri 22:00
                OnCalendar=Sat,Sun 23:30
                LengthSec=8h 30min

                [Quiet]
                OnCalendar=*-*-* 13:00
                LengthSec=1h
                TimeZone=Asia/Kolkata
                """, path: "/etc/chime/chimed.conf", systemZone: Self.berlin)
        #expect(configuration.diagnostics.isEmpty)
        let focus = configuration.focus
        #expect(focus.policy.passive == .drop && focus.policy.active == .journal && focus.policy.timeSensitive == .hold)
        #expect(focus.policy.release == .each)
        #expect(!focus.followsDesktop)
        #expect(focus.hours.windows.map(\.text) == ["Mon..Fri 22:00", "Sat,Sun 23:30", "*-*-* 13:00"])
        #expect(focus.hours.windows.map(\.length) == [30_600_000_000, 30_600_000_000, 3_600_000_000])
        #expect(focus.hours.windows.map { $0.zone?.name } == [nil, nil, "Asia/Kolkata"])
        #expect(
            focus.description
                == "quiet hours: Mon..Fri 22:00 for 8h 30min, Sat,Sun 23:30 for 8h 30min, *-*-* 13:00 for 1h; while "
                + "quiet, passive: drop, active: journal, time-sensitive: hold, critical: pass; release: each; the "
                + "desktop's do-not-disturb is not followed")
        // Without the sections: no quiet hours, passive and active held, time-sensitive passed, a summary.
        #expect(DaemonConfiguration(parsing: "", path: "chimed.conf").focus == FocusSettings())
    }

    @Test(arguments: [
        (
            "[Quiet]\nOnCalendar=22:00\n",
            "chimed.conf:1:1: [Quiet] needs LengthSec=, how long each window lasts; "
                + "ignoring this [Quiet]."
        ),
        (
            "[Quiet]\nLengthSec=8h\n",
            "chimed.conf:1:1: [Quiet] needs OnCalendar=, when each window begins; ignoring this [Quiet]."
        ),
        (
            "[Quiet]\nOnCalendar=22:00\nLengthSec=0\n",
            "chimed.conf:3:11: Invalid LengthSec= '0': expected a time span "
                + "above zero such as 8h or 30min; ignoring this [Quiet]."
        ),
        (
            "[Quiet]\nOnCalendar=22:77\nLengthSec=8h\n",
            "chimed.conf:2:12: Invalid OnCalendar= '22:77': The minute 77 is out of range. Ignoring it."
        ),
        (
            "[Quiet]\nOnCalendar=22:00\nLengthSec=8h\nTimeZone=Mars/Olympus\n",
            "chimed.conf:4:10: Unknown time zone 'Mars/Olympus' in TimeZone=; ignoring this [Quiet]."
        ),
        (
            "[Focus]\nActive=mute\n",
            "chimed.conf:2:8: Invalid Active= 'mute': expected hold, journal, drop or pass; ignoring."
        ),
        ("[Focus]\nRelease=all\n", "chimed.conf:2:9: Invalid Release= 'all': expected summary or each; ignoring."),
    ])
    func aBrokenValueIsReportedWhereItIsAndIgnored(text: String, diagnostic: String) {
        let configuration = DaemonConfiguration(parsing: text, path: "chimed.conf", systemZone: Self.berlin)
        #expect(configuration.diagnostics.map(\.description) == ["\(diagnostic)"])
        #expect(configuration.focus == FocusSettings())
    }
}

/// chimed.conf's `[Sound]`: read, and a bad value reported on its line with the default kept.
struct SoundSettingsTests {
    @Test func theSectionIsReadAndBadValuesKeepTheDefault() {
        let read = DaemonConfiguration(
            parsing: "[Sound]\nTheme=ocean\nVolume=65%\nRingLimitSec=3min\n", path: "/etc/chime/chimed.conf")
        #expect(read.diagnostics.isEmpty, "\(read.diagnostics)")
        #expect(read.sound.theme == "ocean" && read.sound.volume == 65 && read.sound.ringLimit == .seconds(180))
        let bad = DaemonConfiguration(
            parsing: "[Sound]\nTheme=../etc\nVolume=loud\nRingLimitSec=200ms\n", path: "/etc/chime/chimed.conf")
        #expect(bad.sound == SoundSettings())
        #expect(bad.diagnostics.map(\.location.line) == [2, 3, 4], "\(bad.diagnostics)")
    }
}
