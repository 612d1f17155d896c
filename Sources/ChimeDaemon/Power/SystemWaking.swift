import CChimeShims
import ChimeCore
import ChimePlatform
import ChimeSystemd
import Foundation

/// Finds what `WakeSystem=yes` needs, where chimed has it (`SystemWake`): the alarm timer (CAP_WAKE_ALARM), or for
/// a user's instance the system instance's (`RemoteAlarm`), the measure of time asleep that tells a wake-up, and
/// logind's delay inhibitors for the deliveries.
enum SystemWaking {
    /// What this chimed can wake the system with: the alarm timer, or, for a user's instance without the
    /// capability, the system instance's (`RemoteAlarm`); logind's inhibitors where there is a system bus.
    static func make(
        instance: InstanceKind, queue: DispatchQueue, environment: [String: String], log: any EventLog
    ) -> SystemWake {
        let systemBus = BusConnection.systemBusAddress(environment: environment)
        let alarm: WakeAlarm
        do {
            alarm = WakeAlarm(
                timer: try AlarmTimer(queue: queue), timeAsleep: { .microseconds(max(0, chime_time_asleep())) })
        } catch {
            guard instance == .user, let systemBus else { return SystemWake(refusal: refusal(error)) }
            alarm = WakeAlarm(timer: RemoteAlarm(address: systemBus, log: log))
        }
        return SystemWake(alarm: alarm, sleepHold: systemBus.map { SleepInhibitor(address: $0, log: log) })
    }

    /// Why this process could not wake the system, or `nil` when it could (`chimed --check`).
    static func probe() -> String? {
        let descriptor = chime_alarm_fd_create()
        guard descriptor < 0 else {
            close(descriptor)
            return nil
        }
        return refusal(SystemCallError(call: "timerfd_create(CLOCK_REALTIME_ALARM)", errno: Errno(-descriptor)))
    }

    /// What `WakeSystem=yes` is refused with when the alarm timer cannot be made.
    static func refusal(_ error: SystemCallError) -> String {
        switch error.errno {
        case .operationNotPermitted:
            return "chimed lacks the capability CAP_WAKE_ALARM (\(error)). Grant it with "
                + "AmbientCapabilities=CAP_WAKE_ALARM and CapabilityBoundingSet=CAP_WAKE_ALARM, as chimed.service does."
        case .invalidArgument:
            return "this kernel has no alarm timers (\(error))."
        default:
            return "\(error)."
        }
    }
}
