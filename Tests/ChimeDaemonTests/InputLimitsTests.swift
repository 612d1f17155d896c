import ChimeCore
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// Hostile and oversized input in the configuration directories and from generators, loaded as a rebuild loads it:
/// each bound exceeded and each odd file is one problem naming the file, and the rest of the schedule loads.
@Suite struct InputLimitsTests {
    static let good = "[Notification]\nTitle=Good\n[Trigger]\nOnCalendar=daily\n"

    /// A configuration directory with `good.notification` in it.
    struct Config {
        let directory: TemporaryDirectory

        init() throws {
            directory = try TemporaryDirectory(prefix: "chime-limits")
            try directory.write("good.notification", InputLimitsTests.good)
        }

        var path: String { directory.path }

        /// Writes `bytes` to `name`, which need not be UTF-8.
        @discardableResult
        func write(_ name: String, bytes: [UInt8]) throws -> String {
            let path = try directory.write(name, "")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        @discardableResult
        func write(_ name: String, _ text: String, permissions: Int = 0o644) throws -> String {
            try directory.write(name, text, permissions: permissions)
        }

        /// A file of `size` bytes of NUL, made sparse so that the test writes nothing.
        @discardableResult
        func sparse(_ name: String, size: Int) throws -> String {
            let path = try directory.write(name, "")
            #expect(truncate(path, off_t(size)) == 0)
            return path
        }

        @discardableResult
        func link(_ name: String, to target: String) throws -> String {
            let path = self.path + "/" + name
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
            return path
        }

        @discardableResult
        func fifo(_ name: String) throws -> String {
            let path = self.path + "/" + name
            #expect(mkfifo(path, 0o644) == 0)
            return path
        }
    }

    func load(
        _ config: Config, maximumNotifications: Int = InputLimits.defaultMaximumNotifications,
        outputLimit: Int = 4 << 20
    ) throws -> LoadedSchedule {
        // Time is not what these tests bound: a generator printing megabytes to a sanitized build on a busy machine
        // has taken longer than the default 10 s.
        let sources: [any ScheduleSource] = [
            NotificationDirectorySource(directories: [config.path]),
            GeneratorSource(directories: [config.path], timeout: .seconds(120), outputLimit: outputLimit),
        ]
        return try ScheduleLoader(sources: sources, maximumNotifications: maximumNotifications).load(systemZone: .utc)
    }

    func ids(_ schedule: LoadedSchedule) -> [String] { schedule.notifications.map(\.notification.id) }
    func problems(_ schedule: LoadedSchedule) -> [String] { schedule.problems.map(\.description) }

    // MARK: Bounds

    @Test func aFileAboveTheSizeLimitIsRefusedUnreadAndTheRestLoads() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let big = try config.write(
            "big.notification", Self.good + "Body=" + String(repeating: "x", count: 2_000_000 - 59) + "\n")
        // 50 MB without a line break: refused by its size alone, never read.
        let huge = try config.sparse("huge.notification", size: 50 << 20)
        let limit = try config.write(
            "limit.notification",
            Self.good + "#" + String(repeating: "x", count: InputLimits.maximumFileSize - 55) + "\n")
        let schedule = try load(config)
        #expect(
            problems(schedule) == [
                "\(big): File is 2,000,000 bytes, more than the 1 MiB a configuration file may have.",
                "\(huge): File is 52,428,800 bytes, more than the 1 MiB a configuration file may have.",
            ])
        #expect(try FileManager.default.attributesOfItem(atPath: limit)[.size] as? Int == InputLimits.maximumFileSize)
        #expect(ids(schedule) == ["good", "limit"])
    }

    @Test func aDropInAboveTheSizeLimitSkipsItsNotification() throws {
        let config = try Config()
        defer { config.directory.remove() }
        try config.write("other.notification", Self.good)
        let big = try config.sparse("other.notification.d/big.conf", size: 2_000_000)
        let schedule = try load(config)
        #expect(
            problems(schedule) == [
                "\(big): File is 2,000,000 bytes, more than the 1 MiB a configuration file may have."
            ])
        #expect(ids(schedule) == ["good"])
    }

    @Test func tooManyDropInsSkipTheirNotification() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let main = try config.write("other.notification", Self.good)
        for index in 0...InputLimits.maximumDropIns {
            try config.write("other.notification.d/\(index).conf", "[Notification]\nBody=\(index)\n")
        }
        try config.write("good.notification.d/body.conf", "[Notification]\nBody=fine\n")
        let schedule = try load(config)
        #expect(
            problems(schedule) == [
                "\(main): Notification has 257 drop-ins, more than the 256 a notification may have."
            ])
        #expect(ids(schedule) == ["good"])
        #expect(schedule.notifications.first?.notification.body == "fine")
    }

    @Test func aValueAboveTheLengthLimitSkipsItsNotification() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let long = try config.write(
            "long.notification", Self.good + "[Notification]\nBody=" + String(repeating: "é", count: 35_000) + "\n")
        try config.generator(
            "list",
            #"printf '{"Id":"wordy","Title":"%s","At":"2030-01-01"}\n' "$(head -c 70000 /dev/zero | tr '\0' x)""#)
        let generator = config.path + "/generators.d/list"
        let schedule = try load(config)
        #expect(
            problems(schedule) == [
                "\(long):6:6: Body= is 70,000 bytes long, more than the 64 KiB a value may have.",
                "\(generator):1:24: Title= is 70,000 bytes long, more than the 64 KiB a value may have.",
            ])
        #expect(ids(schedule) == ["good"])
    }

    @Test func tooManyRepeatsOfAKeySkipTheirNotification() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let instants = (0...InputLimits.maximumRepeats).map { "At=2030-01-01 00:00:\($0 % 60)\n" }.joined()
        let many = try config.write("many.notification", "[Notification]\nTitle=Many\n[Trigger]\n" + instants)
        // A drop-in's assignments count with the main file's.
        let actions = (0..<1000).map { "Action=a\($0):A\n" }.joined()
        let split = try config.write("split.notification", Self.good + "[Notification]\n" + actions)
        let dropIn = try config.write("split.notification.d/more.conf", "[Notification]\n" + actions)
        // Exactly the limit loads.
        try config.write(
            "enough.notification",
            Self.good + "[Notification]\n" + actions + (0..<24).map { "Action=b\($0):B\n" }.joined())
        let schedule = try load(config)
        #expect(
            problems(schedule) == [
                "\(many):1028:1: More than 1,024 At= assignments, the most one notification may have.",
                "\(dropIn):26:1: More than 1,024 Action= assignments, the most one notification may have.",
            ])
        _ = split
        #expect(ids(schedule) == ["enough", "good"])
    }

    @Test func notificationsBeyondTheScheduleLimitAreDroppedWithOneError() throws {
        let config = try Config()
        defer { config.directory.remove() }
        try config.write("another.notification", Self.good)
        let third = try config.write("third.notification", Self.good)
        try config.generator(
            "list",
            #"echo '{"Id":"g1","Title":"G","At":"2030-01-01"}'; echo '{"Id":"g2","Title":"G","At":"2030-01-01"}'"#)
        let all = try load(config)
        #expect(ids(all) == ["another", "good", "third", "g1", "g2"])
        let schedule = try load(config, maximumNotifications: 2)
        #expect(
            problems(schedule) == [
                "\(third): Notification 'third' is beyond the 2 the schedule may hold (MaxNotifications=); "
                    + "ignoring it and the 2 after it."
            ])
        #expect(ids(schedule) == ["another", "good"])
        let generator = config.path + "/generators.d/list"
        let cut = try load(config, maximumNotifications: 4)
        #expect(
            problems(cut) == [
                "\(generator):2: Notification 'g2' is beyond the 4 the schedule may hold (MaxNotifications=); "
                    + "ignoring it."
            ])
    }

    @Test func aGeneratorLineAboveTheLengthLimitIsSkippedAndTheOtherLinesLoad() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let path = try config.generator(
            "list",
            #"echo '{"Id":"before","Title":"B","At":"2030-01-01"}'; head -c 2097152 /dev/zero | tr '\0' x; echo; "#
                + #"echo '{"Id":"after","Title":"A","At":"2030-01-01"}'"#)
        let schedule = try load(config, outputLimit: 64 << 20)
        #expect(
            problems(schedule) == [
                "\(path):2: Line is 2,097,152 bytes long, more than the 1 MiB a generator's line may have."
            ])
        #expect(ids(schedule) == ["good", "before", "after"])
    }

    // MARK: Bytes that are not text

    @Test func invalidUTF8InAFileOrADropInSkipsItsNotification() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let file = try config.write(
            "latin1.notification", bytes: Array("[Notification]\nTitle=Caf".utf8) + [0xE9] + Array("\n".utf8))
        try config.write("other.notification", Self.good)
        let dropIn = try config.write(
            "other.notification.d/body.conf", bytes: Array("[Notification]\nBody=\u{1}".utf8) + [0xFF, 0xFE, 0x0A])
        let schedule = try load(config)
        #expect(
            problems(schedule) == [
                "\(file):2:10: Line is not valid UTF-8.",
                "\(dropIn):2:7: Line is not valid UTF-8.",
            ])
        #expect(ids(schedule) == ["good"])
    }

    @Test func nulBytesEndALineAsInSystemd() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let file = try config.write(
            "nul.notification",
            bytes: Array("[Trigger]\nOnCalendar=daily\n[Notification]\nTitle=ab".utf8) + [0] + Array("cd\n".utf8))
        let schedule = try load(config)
        #expect(problems(schedule) == ["\(file):5:1: Missing '='."])
        #expect(ids(schedule) == ["good"])
    }

    @Test func invalidUTF8AndNULFromAGeneratorSkipTheirLines() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let path = try config.generator(
            "list",
            #"printf '{"Id":"latin1","Title":"Caf\351","At":"2030-01-01"}\n'; "#
                + #"printf '{"Id":"nul","Title":"a\000b","At":"2030-01-01"}\n'; "#
                + #"printf '{"Id":"escaped","Title":"a\\u0000b","At":"2030-01-01"}\n'; "#
                + #"echo '{"Id":"fine","Title":"F","At":"2030-01-01"}'"#)
        let schedule = try load(config)
        #expect(
            problems(schedule) == [
                "\(path):1: Invalid UTF-8.",
                "\(path):2:23: Invalid JSON: U+0000 inside a string; write it as an escape such as \\n.",
                "\(path):3:26: \"Title\" cannot hold a line break or NUL: the values of a notification are single lines.",
            ])
        #expect(ids(schedule) == ["good", "fine"])
    }

    // MARK: Odd files

    @Test func symlinkLoopsAreReportedAndTheRestLoads() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let own = try config.link("self.notification", to: "self.notification")
        let ping = try config.link("ping.notification", to: "pong.notification")
        let pong = try config.link("pong.notification", to: "ping.notification")
        // A drop-in directory that is a loop, and a loop inside one.
        try config.link("good.notification.d", to: "good.notification.d")
        try config.write("other.notification", Self.good)
        let loopedDropIn = try config.link("other.notification.d/loop.conf", to: "loop.conf")
        try config.link("other.notification.d/up.conf", to: ".")
        // In generators.d: a generator that is a loop, and a directory link to itself.
        let generator = try config.link("generators.d/loop", to: "loop")
        try config.link("generators.d/here", to: ".")
        try config.generator("list", #"echo '{"Id":"listed","Title":"L","At":"2030-01-01"}'"#)
        let schedule = try load(config)
        let reason = "Too many levels of symbolic links"
        #expect(
            problems(schedule) == [
                "\(config.path)/good.notification.d: Not a directory, ignoring.",
                "\(config.path)/other.notification.d/up.conf: Not a regular file, ignoring.",
                "\(loopedDropIn): Failed to read file: \(reason).",
                "\(ping): File cannot be checked (\(reason)); refusing to load it.",
                "\(pong): File cannot be checked (\(reason)); refusing to load it.",
                "\(own): File cannot be checked (\(reason)); refusing to load it.",
                "\(generator): Generator cannot be checked (\(reason)); refusing to run it.",
            ])
        #expect(ids(schedule) == ["good", "listed"])
    }

    @Test func generatorsDirectoryThatIsALoopIsReported() throws {
        let config = try Config()
        defer { config.directory.remove() }
        try config.link("generators.d", to: "generators.d")
        let schedule = try load(config)
        #expect(problems(schedule) == ["\(config.path)/generators.d: Not a directory, ignoring."])
        #expect(ids(schedule) == ["good"])
    }

    @Test func fifosDevicesAndDirectoriesAreNotReadAsFiles() throws {
        let config = try Config()
        defer { config.directory.remove() }
        // Opening a FIFO for reading blocks until a writer comes: the load must not try.
        let fifo = try config.fifo("fifo.notification")
        let zero = try config.link("zero.notification", to: "/dev/zero")
        try FileManager.default.createDirectory(
            atPath: config.path + "/dir.notification", withIntermediateDirectories: true)
        try config.write("other.notification", Self.good)
        try config.write("other.notification.d/body.conf", "[Notification]\nBody=b\n")
        let fifoDropIn = try config.fifo("other.notification.d/fifo.conf")
        try config.write("generators.d/.keep", "")
        try config.fifo("generators.d/fifo")
        let schedule = try load(config)
        #expect(
            problems(schedule) == [
                "\(config.path)/dir.notification: Not a regular file, ignoring.",
                "\(fifo): Not a regular file, ignoring.",
                "\(zero): Not a regular file, ignoring.",
                "\(fifoDropIn): Not a regular file, ignoring.",
            ])
        #expect(ids(schedule) == ["good", "other"])
        #expect(schedule.notifications.last?.notification.body == "b")
    }

    // MARK: chimed.conf

    @Test func chimedConfWithInvalidUTF8KeepsItsOtherLines() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let path = try config.write(
            "chimed.conf",
            bytes: Array("[Daemon]\nDeliver=caf".utf8) + [0xE9] + Array("\nGeneratorTimeoutSec=3s\n".utf8))
        let configuration = DaemonConfiguration.load(directories: [config.path])
        #expect(configuration.diagnostics.map(\.description) == ["\(path):2:12: Line is not valid UTF-8."])
        #expect(configuration.generatorTimeout == .seconds(3))
        #expect(configuration.defaultBackends == nil)
    }

    @Test func chimedConfThatIsAFIFOADeviceALoopOrTooLargeIsReported() throws {
        for (setUp, expected) in [
            ({ (c: Config) in try c.fifo("chimed.conf") }, "Cannot read the file: Not a regular file."),
            (
                { (c: Config) in try c.link("chimed.conf", to: "/dev/zero") },
                "Cannot read the file: Not a regular file."
            ),
            (
                { (c: Config) in try c.link("chimed.conf", to: "chimed.conf") },
                "File cannot be checked (Too many levels of symbolic links); refusing to read it."
            ),
            (
                { (c: Config) in try c.sparse("chimed.conf", size: 3 << 20) },
                "File is 3,145,728 bytes, more than the 1 MiB a configuration file may have."
            ),
        ] as [((Config) throws -> String, String)] {
            let config = try Config()
            defer { config.directory.remove() }
            let path = try setUp(config)
            try config.write("chimed.conf.d/timeout.conf", "[Daemon]\nGeneratorTimeoutSec=3s\n")
            let configuration = DaemonConfiguration.load(directories: [config.path])
            #expect(configuration.diagnostics.map(\.description) == ["\(path): \(expected)"])
            #expect(configuration.generatorTimeout == .seconds(3))
        }
    }

    @Test func chimedConfMaskedByDevNullIsNoError() throws {
        let config = try Config()
        defer { config.directory.remove() }
        try config.link("chimed.conf", to: "/dev/null")
        let configuration = DaemonConfiguration.load(directories: [config.path])
        #expect(configuration.diagnostics.isEmpty)
        #expect(configuration.paths.isEmpty)
    }

    @Test func chimedConfTakesAtMostTheDropInLimit() throws {
        let config = try Config()
        defer { config.directory.remove() }
        for index in 0...InputLimits.maximumDropIns {
            try config.write(
                "chimed.conf.d/\(String(index + 1000)).conf", "[Daemon]\nGeneratorTimeoutSec=\(index + 1)s\n")
        }
        let configuration = DaemonConfiguration.load(directories: [config.path])
        #expect(
            configuration.diagnostics.map(\.description) == [
                "\(config.path)/chimed.conf.d/1256.conf: chimed.conf has 257 drop-ins, more than the 256 it may "
                    + "have; ignoring this one."
            ])
        #expect(configuration.generatorTimeout == .seconds(256))
    }

    @Test func maxNotificationsIsReadFromChimedConf() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let path = try config.write("chimed.conf", "[Daemon]\nMaxNotifications=5000\n")
        #expect(DaemonConfiguration.load(directories: [config.path]).maximumNotifications == 5000)
        try config.write("chimed.conf", "[Daemon]\nMaxNotifications=lots\n")
        let refused = DaemonConfiguration.load(directories: [config.path])
        #expect(refused.maximumNotifications == InputLimits.defaultMaximumNotifications)
        #expect(
            refused.diagnostics.map(\.description) == [
                "\(path):2:18: Invalid MaxNotifications= 'lots': expected a whole number from 1 to 100,000,000; "
                    + "ignoring."
            ])
        try config.write("chimed.conf", "[Daemon]\nMaxNotifications=100000001\n")
        let tooMany = DaemonConfiguration.load(directories: [config.path])
        #expect(tooMany.maximumNotifications == InputLimits.defaultMaximumNotifications)
        #expect(tooMany.diagnostics.count == 1)
    }
}

extension InputLimitsTests.Config {
    @discardableResult
    func generator(_ name: String, _ body: String) throws -> String {
        try write("generators.d/\(name)", "#!/bin/sh\n" + body + "\n", permissions: 0o755)
    }
}
