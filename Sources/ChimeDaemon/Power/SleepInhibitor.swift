import ChimeCore
import ChimeSystemd
import Foundation

/// Keeps the machine from going back to sleep while deliveries that woke it are in flight: a delay inhibitor of
/// systemd-logind (`Inhibit("sleep", "chime", why, "delay")` on the system bus), which logind honours by waiting,
/// up to its `InhibitDelayMaxSec=`, before a suspend until every such inhibitor's descriptor is closed.
final class SleepInhibitor: SleepHolding, Sendable {
    private let bus: OnDemandBusConnection
    private let log: any EventLog

    init(address: String, log: any EventLog) {
        bus = OnDemandBusConnection(address: address, label: "chime.inhibit")
        self.log = log
    }

    /// Takes an inhibitor and returns what releases it. The request goes out at once and is answered later: a
    /// release that comes first closes the descriptor as soon as it arrives. A failure (no logind, or a polkit
    /// that refuses) is logged and holds nothing.
    func hold(_ why: String) -> @Sendable () -> Void {
        let held = Locked<(descriptor: Int32?, released: Bool)>((nil, false))
        let log = self.log
        let bus = self.bus
        Task {
            do {
                let descriptor = try await bus.connection().call(
                    destination: "org.freedesktop.login1", path: "/org/freedesktop/login1",
                    interface: "org.freedesktop.login1.Manager", member: "Inhibit",
                    arguments: { writer in
                        for argument in ["sleep", "chime", why, "delay"] { try writer.append(argument) }
                    },
                    reply: { reader in try reader.readFileDescriptor() })
                let keep = held.withLock { held in
                    if held.released { return false }
                    held.descriptor = descriptor
                    return true
                }
                if !keep { close(descriptor) }
            } catch {
                log.record(
                    DaemonEvent(
                        .systemError, "Cannot keep the system awake while delivering (\(error)), ignoring",
                        priority: .warning))
            }
        }
        return {
            let descriptor = held.withLock { held -> Int32? in
                held.released = true
                defer { held.descriptor = nil }
                return held.descriptor
            }
            if let descriptor { close(descriptor) }
        }
    }
}
