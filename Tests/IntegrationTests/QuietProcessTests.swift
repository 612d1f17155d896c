import ChimeTestSupport
import Foundation
import Testing

/// `chimectl quiet` against a real `chimed` delivering to stdout: held while the switch is on, a critical one
/// passed, the hold kept across a restart, released once by `quiet off`; the switch running out by itself.
@Suite(.serialized) struct QuietProcessTests {
    typealias Instance = RuntimeRequestProcessTests.Instance
    let chimed = BinaryLocator.path(of: "chimed")
    let chimectl = BinaryLocator.path(of: "chimectl")

    func run(_ arguments: [String], _ instance: Instance) throws -> ProcessRunner.Output {
        try ProcessRunner.run(chimectl, arguments + instance.options, environment: ["TZ": "Europe/Berlin"])
    }

    func quiet(_ instance: Instance) throws -> [String: Any] {
        let output = try run(["quiet", "--json"], instance)
        #expect(output.status == 0, "\(output.standardError)")
        return (try? JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any]) ?? [:]
    }

    @Test func heldWhileSwitchedOnKeptAcrossARestartAndReleasedOnceBySwitchingOff() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.start(chimed)

        let on = try run(["quiet", "on"], instance)
        #expect(on.status == 0, "\(on.standardError)")
        #expect(on.standardOutput == "Quiet: yes (chimectl quiet on) until it is switched off\nHeld: 0\n")
        for (id, level) in [("tea", "active"), ("pager", "critical")] {
            let add = try run(
                ["add", "--id=\(id)", "--title=\(id)", "--in=1s", "--interruption-level=\(level)"], instance)
            #expect(add.status == 0, "\(add.standardError)")
        }
        #expect(instance.waitForDelivery(of: "pager", timeout: 10))
        #expect(waitFor({ (try? quiet(instance))?["held"] as? Int == 1 }, timeout: 10))
        #expect(instance.delivered == ["pager"])
        let firstRun = instance.process?.standardError ?? ""
        #expect(firstRun.contains("tea: tea (held while quiet: chimectl quiet on)"))
        #expect(firstRun.contains("pager: pager (critical, delivered while quiet)"))

        // Still quiet after a restart, still holding tea.
        instance.stop()
        try instance.start(chimed)
        let status = try quiet(instance)
        #expect(status["quiet"] as? Bool == true)
        #expect(status["held"] as? Int == 1)
        #expect(instance.delivered.isEmpty)

        let off = try run(["quiet", "off"], instance)
        #expect(off.status == 0, "\(off.standardError)")
        #expect(off.standardOutput == "Quiet: no\nHeld: 0\n")
        #expect(instance.waitForDelivery(of: "tea", timeout: 10))
        #expect(instance.process?.standardError.contains("tea: tea (released after quiet)") == true)
        // Once: nothing is held any more, and another restart delivers nothing again.
        instance.stop()
        try instance.start(chimed)
        #expect(try quiet(instance)["held"] as? Int == 0)
        usleep(300_000)
        #expect(instance.delivered.isEmpty)
        instance.stop()
    }

    @Test func theSwitchRunsOutByItself() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.start(chimed)
        defer { instance.stop() }
        let on = try run(["quiet", "on", "--for=2s"], instance)
        #expect(on.status == 0, "\(on.standardError)")
        #expect(on.standardOutput.hasPrefix("Quiet: yes (chimectl quiet on) until "))
        let add = try run(["add", "--id=tea", "--title=Tea", "--in=1s"], instance)
        #expect(add.status == 0, "\(add.standardError)")
        #expect(instance.waitForDelivery(of: "tea", timeout: 10))
        let log = instance.process?.standardError ?? ""
        #expect(log.contains("tea: Tea (held while quiet: chimectl quiet on)"))
        #expect(log.contains("Quiet ended; releasing 1 held delivery(ies)."))
    }

    @Test(arguments: [
        (["quiet", "on", "--for=soon"], "invalid --for 'soon'"),
        (["quiet", "off", "--for=1h"], "--for and --until go with 'quiet on'"),
        (["quiet", "on", "--until=2020-01-01"], "--until '2020-01-01' is already past"),
        (["quiet", "on", "--for=1h", "--until=tomorrow"], "give --for or --until, not both"),
        (["quiet", "loud"], "unknown quiet action 'loud'"),
    ])
    func aWrongRequestIsAUsageError(arguments: [String], message: String) throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let output = try run(arguments, instance)
        #expect(output.status == 64)
        #expect(output.standardError.contains(message), "\(output.standardError)")
        #expect(!FileManager.default.fileExists(atPath: instance.directory.path + "/state/quiet.json"))
    }

    @Test func withoutChimedTheStatusIsWorkedOutFromTheConfiguration() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.directory.write("etc/chimed.conf", "[Quiet]\nOnCalendar=*-*-* *:00/30:00\nLengthSec=30min\n")
        let output = try run(["quiet"], instance)
        #expect(output.status == 0, "\(output.standardError)")
        #expect(
            output.standardOutput.hasPrefix("Quiet: yes (quiet hours) until "),
            "\(output.standardOutput)")
        #expect(
            output.standardOutput.hasSuffix(
                "\nchimed is not running: this is what it would decide from chimed.conf and the switch.\n"))
    }
}
