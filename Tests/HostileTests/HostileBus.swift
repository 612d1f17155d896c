import ChimeTestSupport
import Foundation
import Testing

/// A private bus with the real chimed on it, and the means of a hostile client on the same bus: signals sent with
/// `busctl emit`, broadcast or to one connection (`--destination`), as any program of the person's session can.
struct HostileBus {
    let directory: TemporaryDirectory
    let bus: PrivateSessionBus
    /// GNOME's settings database of the test's own, when asked for (`settings`).
    let dconf: PrivateDconf?

    /// Why the attacks cannot be made here, if they cannot.
    static var unmetRequirement: String? {
        if PrivateSessionBus.daemonPath == nil { return "needs dbus-daemon" }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/busctl") { return "needs busctl (systemd)" }
        return DBusFixture.unavailableReason
    }

    /// `limits`: the bus daemon's `<limit>`s by name; `settings`: the bus starts a dconf service of its own, whose
    /// database chimed reads.
    init(prefix: String, limits: [String: Int] = [:], settings: Bool = false) throws {
        directory = try TemporaryDirectory(prefix: prefix)
        dconf = settings ? try PrivateDconf(directory: directory, limits: limits) : nil
        bus = try dconf?.bus ?? PrivateSessionBus(directory: directory, limits: limits)
    }

    func stop() {
        bus.stop()
        dconf?.stop()
        directory.remove()
    }

    /// chimed on DIRECTORY/config with the bus as its session bus (`systemBus`: as its system bus too), once it
    /// said READY=1.
    func startChimed(
        systemBus: Bool = false, arguments: [String] = []
    ) throws -> (process: RunningProcess, notify: NotifySocket) {
        let notify = try NotifySocket(directory: directory.path)
        try FileManager.default.createDirectory(atPath: directory.path + "/config", withIntermediateDirectories: true)
        var environment = ["NOTIFY_SOCKET": notify.path, "TZ": "UTC", "DBUS_SESSION_BUS_ADDRESS": bus.address]
        if systemBus { environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address }
        environment.merge(dconf?.environment ?? [:]) { $1 }
        let process = try RunningProcess(
            BinaryLocator.path(of: "chimed"),
            [
                "--config-dir=\(directory.path)/config", "--runtime-dir=\(directory.path)/run",
                "--state-dir=\(directory.path)/state",
            ] + arguments, environment: environment)
        let ready = notify.receive(until: { $0.contains("READY=1") }, timeout: 20).last?.contains("READY=1") == true
        if !ready { process.wait(timeout: 0) }
        try #require(ready, "chimed did not start: \(process.standardError)")
        return (process, notify)
    }

    /// Runs busctl on the bus; its standard output.
    @discardableResult
    func busctl(_ arguments: [String]) throws -> String {
        let run = try ProcessRunner.run("/usr/bin/busctl", ["--address=\(bus.address)"] + arguments)
        #expect(run.status == 0, "busctl \(arguments): \(run.standardError)")
        return run.standardOutput
    }

    /// The unique names of the connections that process `pid` has on the bus.
    func connections(of pid: Int32) throws -> [String] {
        try busctl(["list", "--unique", "--no-legend", "--no-pager"]).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count > 1 && fields[1] == "\(pid)" ? String(fields[0]) : nil
        }
    }

    /// Sends a signal from a client of the bus: to every connection of `pid` (unicast) when given, else broadcast.
    func forge(
        to pid: Int32? = nil, path: String, interface: String, member: String, signature: String, _ values: [String]
    ) throws {
        guard let pid else {
            try busctl(["emit", path, interface, member, signature] + values)
            return
        }
        let names = try connections(of: pid)
        try #require(!names.isEmpty, "no connection of \(pid) on the bus")
        for name in names {
            try busctl(["emit", "--destination=\(name)", path, interface, member, signature] + values)
        }
    }
}
