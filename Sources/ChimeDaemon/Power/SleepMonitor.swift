import ChimeSystemd
import Foundation

/// Follows logind's `PrepareForSleep(b)` on the system bus: `true` as the machine is about to suspend or
/// hibernate, `false` once it has resumed. A signal is believed only from the unique name that owns
/// `org.freedesktop.login1` (`BusNameOwner`): the match's sender does not hold back a signal sent to chimed's
/// connection directly, so no other program can make chimed believe the machine slept.
///
/// The wall-clock timer would find what fell due while the machine slept anyway; the signal makes the resume a
/// moment of its own, handled at once and logged with how long the machine slept.
final class SleepMonitor: @unchecked Sendable {
    static let rule =
        "type='signal',sender='org.freedesktop.login1',path='/org/freedesktop/login1',"
        + "interface='org.freedesktop.login1.Manager',member='PrepareForSleep'"

    private let address: String
    private let changed: @Sendable (_ sleeping: Bool) -> Void
    private var bus: BusConnection?
    private var logind: BusNameOwner?

    /// - Parameter changed: runs, on the bus's queue, with `true` before a suspend and `false` after the resume.
    init(address: String, changed: @escaping @Sendable (_ sleeping: Bool) -> Void) {
        self.address = address
        self.changed = changed
    }

    /// Connects and installs the match; returns once a signal sent after it would be seen.
    func start() async throws {
        let bus = try BusConnection(address: address, label: "chime.sleep")
        self.bus = bus
        let changed = self.changed
        let logind = try await BusNameOwner.follow("org.freedesktop.login1", on: bus)
        self.logind = logind
        try await bus.addMatch(Self.rule) { reader in
            guard logind.isOwner(reader.sender), let sleeping = try? reader.readBoolean() else { return }
            changed(sleeping)
        }
    }
}
