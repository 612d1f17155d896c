import ChimeCore
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// What `make run` promises of the example configuration in `config/`.
@Suite struct ExampleConfigurationTests {
    static let config = BinaryLocator.packageRoot.appendingPathComponent("config").path

    /// A delivery within a minute at any hour, on any machine: the heartbeat fires every minute, goes to the
    /// backends `make run` gives (`--deliver`, stdout where no journald listens), not to its own, and the example's
    /// quiet hours (22:00 to 07:00) let it through.
    @Test func theHeartbeatComesWithinAMinuteAtAnyHourToTheBackendsMakeRunGives() throws {
        let configuration = DaemonConfiguration.load(directories: [Self.config])
        #expect(configuration.diagnostics.isEmpty, "\(configuration.diagnostics)")
        let path = Self.config + "/heartbeat.notification"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let result = NotificationLoader(systemZone: .utc, zones: .system).load(
            UnitFile(parsing: text, path: path), id: "heartbeat", path: path)
        let heartbeat = try #require(result.notification, "\(result.diagnostics)")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(heartbeat.backends.isEmpty)
        #expect(!configuration.focus.hours.windows.isEmpty)
        #expect(configuration.focus.policy.handling(of: heartbeat.interruptionLevel) == .pass)
        let now = Date()
        let next = try #require(
            heartbeat.trigger.occurrences(
                after: now, history: DeliveryHistory(firstSeen: now), systemZone: .utc, limit: 1
            ).first)
        #expect(next.timeIntervalSince(now) <= 60)
    }
}
