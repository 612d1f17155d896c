import ChimeTestSupport
import Foundation
import Testing

/// Inputs that cost others their notifications: a calendar invitation with 27,000 alarms, a generator that prints
/// past its limit, one whose child escapes its process group; each runs through the real chime-calendar and chimed.
@Suite(.serialized)
struct HostileInputTests {
    /// An invitation whose one event has `count` display alarms, each a minute earlier.
    static func invitation(alarms count: Int) -> String {
        var text =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//hostile//EN\r\nBEGIN:VEVENT\r\nUID:flood@example.org\r\n"
            + "DTSTAMP:20261201T000000Z\r\nDTSTART:20991201T090000Z\r\nSUMMARY:Flood\r\n"
        for index in 0..<count {
            text += "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER:-PT\(index + 1)M\r\nEND:VALARM\r\n"
        }
        return text + "END:VEVENT\r\nEND:VCALENDAR\r\n"
    }

    static let dentist =
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//person//EN\r\nBEGIN:VEVENT\r\nUID:dentist@example.org\r\n"
        + "DTSTAMP:20261201T000000Z\r\nDTSTART:20991202T090000Z\r\nSUMMARY:Dentist\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\n"
        + "DESCRIPTION:Dentist\r\nTRIGGER:-PT30M\r\nEND:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"

    /// 27,000 alarms in one invitation made 4.47 MB of output, past chimed's limit for a generator, and the
    /// person's other alarms were dropped with it: the event gives its first 32, the others all theirs, and chimed
    /// schedules them.
    @Test func anInvitationWithThousandsOfAlarmsCostsNobodyElseTheirs() throws {
        let directory = try TemporaryDirectory(prefix: "hostile-calendar")
        defer { directory.remove() }
        try directory.write("calendars/personal/flood.ics", Self.invitation(alarms: 27_000))
        try directory.write("calendars/personal/dentist.ics", Self.dentist)
        let calendar = BinaryLocator.path(of: "chime-calendar")
        let run = try ProcessRunner.run(calendar, [directory.path + "/calendars/personal"])
        #expect(run.status == 0)
        let ids = run.standardOutput.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["Title"] as? String
        }
        #expect(ids.filter { $0 == "Flood" }.count == 32)
        #expect(ids.filter { $0 == "Dentist" }.count == 1)
        #expect(
            run.standardError.contains(
                "flood.ics: event flood@example.org has 27000 alarms and repetitions; keeping the first 32"),
            "\(run.standardError)")

        // Through chimed: the generator's output is taken, the dentist's alarm is scheduled.
        try directory.write(
            "config/generators.d/calendar", "#!/bin/sh\nexec \(calendar) \(directory.path)/calendars/personal\n",
            permissions: 0o755)
        try directory.write("config/chimed.conf", "[Daemon]\nDeliver=stdout\n")
        let check = try Self.check(directory)
        #expect(check.standardOutput.contains("33 notification(s)"), "\(check.standardOutput)\(check.standardError)")
    }

    /// A generator printing without end is killed at its limit; the notifications of the whole lines it printed
    /// within the limit are scheduled, and chimed says what it did.
    @Test func aGeneratorPastItsLimitKeepsWhatFitted() throws {
        let directory = try TemporaryDirectory(prefix: "hostile-generator")
        defer { directory.remove() }
        try directory.write("config/chimed.conf", "[Daemon]\nDeliver=stdout\nGeneratorMaxOutput=4K\n")
        try directory.write(
            "config/generators.d/flood",
            "#!/bin/sh\ni=1000\nwhile :; do i=$((i+1)); echo \"{\\\"Id\\\":\\\"n$i\\\",\\\"Title\\\":\\\"T\\\","
                + "\\\"At\\\":\\\"2099-01-01\\\"}\"; done\n", permissions: 0o755)
        let check = try Self.check(directory)
        // 4,096 bytes hold 91 lines of 45 bytes.
        #expect(check.standardOutput.contains("91 notification(s)"), "\(check.standardOutput)")
        #expect(
            check.standardError.contains(
                "flood: Generator printed more than 4 KiB (GeneratorMaxOutput=); keeping the 4,095 bytes of whole "
                    + "lines within it and ignoring the rest."), "\(check.standardError)")
    }

    /// A generator whose child leaves its process group (setsid) holding its output: the rebuild does not wait
    /// for the time-out, and the child does not outlive the generator.
    @Test func aGeneratorsEscapedChildGoesWithIt() throws {
        let directory = try TemporaryDirectory(prefix: "hostile-escape")
        defer { directory.remove() }
        try directory.write("config/chimed.conf", "[Daemon]\nDeliver=stdout\nGeneratorTimeoutSec=60s\n")
        try directory.write(
            "config/generators.d/escape",
            "#!/bin/sh\nsetsid sh -c 'echo $$ > \(directory.path)/escaped; exec sleep 1000' &\nsleep 0.2\n"
                + "echo '{\"Id\":\"kept\",\"Title\":\"Kept\",\"At\":\"2099-01-01\"}'\n", permissions: 0o755)
        let started = Date()
        let check = try Self.check(directory)
        #expect(Date().timeIntervalSince(started) < 30, "waited for the time-out")
        #expect(check.standardOutput.contains("1 notification(s)"), "\(check.standardOutput)\(check.standardError)")
        let escaped = try #require(
            pid_t(try String(contentsOfFile: directory.path + "/escaped", encoding: .utf8).dropLast()))
        #expect(waitFor({ Self.hasEnded(escaped) }, timeout: 5), "\(escaped) outlived the generator")
    }

    /// `chimed --check` on DIRECTORY/config.
    static func check(_ directory: TemporaryDirectory) throws -> ProcessRunner.Output {
        try ProcessRunner.run(
            BinaryLocator.path(of: "chimed"),
            [
                "--check", "--config-dir=\(directory.path)/config", "--state-dir=\(directory.path)/state",
                "--runtime-dir=\(directory.path)/run",
            ], environment: ["TZ": "UTC"])
    }

    /// Whether `pid` is gone, or a zombie its new parent has not reaped yet.
    static func hasEnded(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(after: end)...].split(separator: " ").first == "Z"
    }
}
