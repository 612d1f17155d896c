// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "chime",
    products: [
        .executable(name: "chimed", targets: ["chimed"]),
        .executable(name: "chimectl", targets: ["chimectl"]),
        .executable(name: "chime-calendar", targets: ["chime-calendar"]),
        .executable(name: "chime-sound", targets: ["chime-sound"]),
        .library(name: "ChimeCore", targets: ["ChimeCore"]),
        // For the fuzz targets: the system's zone database (ZoneDatabase.system) they read times with.
        .library(name: "ChimePlatform", targets: ["ChimePlatform"]),
        // For the fuzz targets in fuzzing/, a package of their own: the state store's reading of its files.
        .library(name: "ChimeDaemon", targets: ["ChimeDaemon"]),
        // For the fuzz targets too: the zones and instants they share with the tests (CalendarSamples).
        .library(name: "ChimeTestSupport", targets: ["ChimeTestSupport"]),
        // For applications: their notifications scheduled through chimed, in UNUserNotificationCenter's shape.
        .library(name: "ChimeKit", targets: ["ChimeKit"]),
    ],
    targets: [
        // Pure logic: model, unit-file syntax, calendar engine, time zones, timestamps. Foundation, and libical's
        // recurrence engine (pure computation: chime gives it wall-clock times and does the zones itself).
        .target(name: "ChimeCore", dependencies: ["CICal"]),
        // libical (RFC 5545 recurrence rules and iCalendar) from Debian's libical-dev.
        .systemLibrary(
            name: "CICal",
            pkgConfig: "libical",
            providers: [.apt(["libical-dev"])]
        ),
        // What chime asks of the system itself, the one place its code calls libc for files and errors: system calls
        // retried on EINTR with their errno, atomic writes, the file-kind probe, the tzdata on disk and the local zone.
        .target(name: "ChimePlatform", dependencies: ["ChimeCore"]),
        // libsystemd (sd-daemon, sd-journal, sd-bus) from Debian's libsystemd-dev.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // Swift wrappers around libsystemd; the only place that calls it.
        .target(name: "ChimeSystemd", dependencies: ["CSystemd", "ChimeCore", "ChimePlatform"]),
        // C helpers for kernel interfaces that Glibc does not export (timerfd).
        .target(name: "CChimeShims"),
        // Configuration discovery, loading and the daemon's machinery.
        .target(name: "ChimeDaemon", dependencies: ["ChimeCore", "ChimePlatform", "ChimeSystemd", "CChimeShims"]),
        // chimectl's commands, as a library so that tests can run them in-process.
        .target(name: "ChimeControl", dependencies: ["ChimeCore", "ChimeDaemon", "ChimePlatform", "ChimeSystemd"]),
        // The webhook backend: FoundationNetworking brings libcurl and some thirty shared libraries, so only chimed
        // links it, not ChimeDaemon (and so not chimectl, whose start-up time counts).
        .target(name: "ChimeWebhook", dependencies: ["ChimeCore", "ChimeDaemon"]),
        // The client of the application interface (org.chime.Notifications1), on the project's sd-bus wrapper.
        .target(name: "ChimeKit", dependencies: ["ChimeCore", "ChimePlatform", "ChimeSystemd"]),
        // iCalendar events (libical's parser) and their alarms as notifications, for the generator chime-calendar.
        .target(name: "ChimeCalendar", dependencies: ["ChimeCore", "ChimePlatform", "CICal"]),
        // dconf's client library (GNOME's settings database) from Debian's libdconf-dev.
        .systemLibrary(
            name: "CDconf",
            pkgConfig: "dconf",
            providers: [.apt(["libdconf-dev"])]
        ),
        // GIO's reading of desktop entries (the Desktop Entry specification) from Debian's libglib2.0-dev.
        .systemLibrary(
            name: "CGio",
            pkgConfig: "gio-unix-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),
        // What the desktop keeps, read in-process through GLib's libraries: GNOME's settings (its do-not-disturb,
        // with dconf) and applications' desktop entries (their names, with GIO). GLib comes with them, so only
        // chimed links this, as the webhook backend.
        .target(name: "ChimeGLib", dependencies: ["CDconf", "CGio", "ChimeCore", "ChimeDaemon"]),
        // GStreamer (its playbin, and GLib's key-file reader for sound themes) from Debian's libgstreamer1.0-dev.
        .systemLibrary(
            name: "CGStreamer",
            pkgConfig: "gstreamer-1.0",
            providers: [.apt(["libgstreamer1.0-dev"])]
        ),
        // Sound through the person's audio server: the XDG sound theme's files, played and rung with GStreamer.
        .target(name: "ChimeSound", dependencies: ["CGStreamer", "ChimeCore", "ChimeDaemon"]),
        .executableTarget(name: "chimed", dependencies: ["ChimeDaemon", "ChimeWebhook", "ChimeGLib"]),
        // chimed's sound helper: GStreamer and the decoders in a process of their own.
        .executableTarget(name: "chime-sound", dependencies: ["ChimeSound"]),
        .executableTarget(name: "chime-calendar", dependencies: ["ChimeCalendar"]),
        .executableTarget(name: "chimectl", dependencies: ["ChimeControl"]),
        // Not installed: runs the systemd wrappers in a process of their own for ChimeSystemdTests.
        .executableTarget(name: "chime-systemd-probe", dependencies: ["ChimeCore", "ChimeDaemon", "ChimeSystemd"]),
        // Not installed: micro-benchmarks for bench/daemon: nextfire (ChimeDaemon reads its zones) and the
        // application interface's client (ChimeSystemd).
        .executableTarget(
            name: "chime-bench", dependencies: ["ChimeCore", "ChimeDaemon", "ChimePlatform", "ChimeSystemd"]),
        // Fixtures and helpers imported only by tests: processes, private buses and journals, zones, dates.
        .target(name: "ChimeTestSupport", dependencies: ["ChimeCore", "ChimePlatform"]),
        // Test doubles of the daemon's own seams (clock, stores, backends, dispatcher), imported only by tests.
        .target(
            name: "ChimeDaemonTestSupport",
            dependencies: ["ChimeCore", "ChimeDaemon", "ChimeSystemd", "ChimeTestSupport"]),
        .testTarget(
            name: "ChimeCoreTests",
            // ChimePlatform for PosixFileKindProbe: the notification search is tested on a real file system.
            dependencies: ["ChimeCore", "ChimePlatform", "ChimeTestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "ChimeDaemonTests",
            dependencies: ["ChimeDaemon", "ChimeCore", "ChimePlatform", "ChimeDaemonTestSupport", "ChimeTestSupport"]
        ),
        .testTarget(
            // Sound themes on disk, and sound heard: played to a private PulseAudio and recorded from its monitor.
            name: "ChimeSoundTests",
            dependencies: ["ChimeSound", "ChimeCore", "ChimeDaemon", "ChimeTestSupport"]
        ),
        .testTarget(
            name: "ChimeCalendarTests",
            dependencies: ["ChimeCalendar", "ChimeCore", "ChimePlatform", "ChimeTestSupport"]
        ),
        .testTarget(
            name: "ChimeWebhookTests",
            dependencies: ["ChimeWebhook", "ChimeDaemon", "ChimeCore", "ChimeTestSupport"]
        ),
        .testTarget(
            name: "ChimeControlTests",
            // ChimeDaemon: DocumentationTests compare chimed(8) with chimed's options and journal MESSAGE_IDs.
            dependencies: ["ChimeControl", "ChimeCore", "ChimePlatform", "ChimeDaemon", "ChimeTestSupport"],
            resources: [.copy("Snapshots")]
        ),
        .testTarget(
            name: "ChimeSystemdTests",
            dependencies: ["ChimeSystemd", "ChimeCore", "ChimePlatform", "ChimeDaemon", "ChimeTestSupport"]
        ),
        .testTarget(
            // The desktop backend and the launcher badge against a private dbus-daemon and a recording server.
            name: "DesktopTests",
            dependencies: [
                "ChimeCore", "ChimePlatform", "ChimeDaemon", "ChimeSystemd", "ChimeKit", "ChimeDaemonTestSupport",
                "ChimeTestSupport",
            ]
        ),
        .testTarget(
            // Attacks on chimed's inputs as any program of the person's session could make them: forged signals,
            // hostile callers of the application interface, inputs that cost others their notifications.
            name: "HostileTests",
            dependencies: [
                "ChimeCore", "ChimeDaemon", "ChimeSystemd", "ChimeKit", "ChimeDaemonTestSupport", "ChimeTestSupport",
            ]
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["ChimeCore", "ChimePlatform", "ChimeDaemon", "ChimeDaemonTestSupport", "ChimeTestSupport"]
        ),
    ]
)
