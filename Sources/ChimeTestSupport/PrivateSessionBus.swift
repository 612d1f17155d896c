import Foundation

/// A `dbus-daemon --session` of the test's own (its own configuration and socket in `directory`), stopped by
/// `stop()` or when released.
public final class PrivateSessionBus: Sendable {
    /// The bus address to put into `DBUS_SESSION_BUS_ADDRESS`.
    public let address: String
    public let socketPath: String
    private let daemon: RunningProcess

    /// Where `dbus-daemon` is, or `nil` when it is not installed (Debian: dbus-daemon).
    public static var daemonPath: String? {
        ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts the daemon and waits (up to `timeout`) for it to print its address. With `serviceDirectory`, it
    /// starts the services described there on their first call (bus activation), with `environment` added to its
    /// own (the services' standard output and error are the daemon's: `output`). `limits` are the daemon's
    /// `<limit>`s by name (`max_message_size`).
    public init(
        directory: TemporaryDirectory, serviceDirectory: String? = nil, environment: [String: String] = [:],
        limits: [String: Int] = [:], timeout: Duration = .seconds(10)
    ) throws {
        guard let path = Self.daemonPath else { throw FixtureError("dbus-daemon is not installed") }
        socketPath = directory.path + "/bus"
        let configuration = try directory.write(
            "session-bus.conf",
            """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socketPath)</listen>
              <auth>EXTERNAL</auth>
            \(serviceDirectory.map { "  <servicedir>\($0)</servicedir>" } ?? "")
            \(limits.sorted { $0.key < $1.key }.map { "  <limit name=\"\($0.key)\">\($0.value)</limit>" }.joined(separator: "\n"))
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """)
        daemon = try RunningProcess(
            path, ["--config-file=\(configuration)", "--nofork", "--print-address"], environment: environment)
        guard let line = daemon.waitForOutput(timeout: timeout, where: { $0.contains("\n") }) else {
            daemon.signal(SIGKILL)
            throw FixtureError("dbus-daemon printed no address: \(daemon.standardError)")
        }
        address = String(line.prefix { $0 != "\n" })
    }

    /// What the daemon and the services it started wrote to standard output so far.
    public var output: String { daemon.standardOutput }

    /// Stops the daemon and waits for it to exit.
    ///
    /// With SIGKILL: a process the test starts may inherit a signal mask that blocks SIGTERM, and nothing of the
    /// bus needs to outlive the test.
    public func stop() {
        guard daemon.isRunning else { return }
        daemon.signal(SIGKILL)
        daemon.wait(timeout: 10)
    }

    deinit { stop() }
}

/// A peer on a private bus from Tests/Fixtures/dbus-fixture.py, run with /usr/bin/python3 (which has python3-dbus and
/// gi); it records what it sees as JSON lines.
public final class DBusFixture: Sendable {
    public let recordPath: String
    private let process: RunningProcess

    public static let scriptPath = BinaryLocator.packageRoot.appendingPathComponent("Tests/Fixtures/dbus-fixture.py")
        .path

    /// Why the fixture cannot run here, or `nil` when it can.
    public static var unavailableReason: String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            return "/usr/bin/python3 is not installed"
        }
        let probe = try? ProcessRunner.run(
            "/usr/bin/python3", ["-c", "import dbus, dbus.mainloop.glib; from gi.repository import GLib"])
        return probe?.status == 0 ? nil : "/usr/bin/python3 lacks dbus or gi (Debian: python3-dbus, python3-gi)"
    }

    /// Starts `mode` (`notification-server` or `record-signals`) on `bus` with `arguments`, and waits until it is
    /// ready (owns its name, or has its match installed).
    public init(
        _ mode: String, bus: PrivateSessionBus, directory: TemporaryDirectory, arguments: [String] = [],
        timeout: Duration = .seconds(20)
    ) throws {
        recordPath = directory.path + "/\(mode)-\(UUID().uuidString).jsonl"
        try Data().write(to: URL(fileURLWithPath: recordPath))
        process = try RunningProcess(
            "/usr/bin/python3",
            [Self.scriptPath, mode, "--address=\(bus.address)", "--record=\(recordPath)"] + arguments)
        guard process.waitForOutput(timeout: timeout, where: { $0.contains("ready\n") }) != nil else {
            process.signal(SIGKILL)
            throw FixtureError("\(mode) did not start: \(process.standardError)")
        }
    }

    /// The records so far, each a JSON object.
    public var records: [[String: Any]] {
        let text = (try? String(contentsOfFile: recordPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
    }

    /// Waits up to `timeout` until `condition` holds for the records; returns them either way.
    @discardableResult
    public func waitForRecords(
        timeout: Duration = .seconds(10), until condition: ([[String: Any]]) -> Bool
    ) -> [[String: Any]] {
        let deadline = ContinuousClock.now + timeout
        var current = records
        while !condition(current) && ContinuousClock.now < deadline {
            usleep(10_000)
            current = records
        }
        return current
    }

    public var standardError: String { process.standardError }

    /// Ends the fixture (SIGKILL, as `PrivateSessionBus.stop()`) and waits for it.
    public func stop() {
        guard process.isRunning else { return }
        process.signal(SIGKILL)
        process.wait(timeout: 10)
    }

    deinit { stop() }
}

/// A fixture that could not be set up.
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
