import ChimeSystemd
import Foundation

/// Follows logind's `PrepareForSleep(b)` on the system bus: `true` as the machine is about to suspend or
/// hibernate, `false` once it has resumed. Signals from any sender but the owner of `org.freedesktop.login1` are
/// not matched (the bus resolves the name), so no other program can make chimed believe the machine slept.
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
        try await bus.addMatch(Self.rule) { reader in
            guard let sleeping = try? reader.readBoolean() else { return }
            changed(sleeping)
        }
    }
}
