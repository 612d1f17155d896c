import CChimeShims
import ChimeCore
import ChimeSystemd
import Foundation

/// Gives the scheduler what `WakeSystem=yes` needs, where chimed has it: the alarm timer (CAP_WAKE_ALARM), the
/// measure of time asleep that tells a wake-up, and logind's delay inhibitors for the deliveries.
enum SystemWaking {
    /// Sets up `scheduler`; returns why this chimed cannot wake the system, or `nil` when it can.
    static func install(
        into scheduler: Scheduler, queue: DispatchQueue, environment: [String: String], log: any EventLog
    ) -> String? {
        let alarm: AlarmTimer
        do {
            alarm = try AlarmTimer(queue: queue)
        } catch {
            return refusal(error)
        }
        scheduler.timeAsleep = { max(0, chime_time_asleep()) }
        scheduler.alarm = alarm
        if let address = BusConnection.systemBusAddress(environment: environment) {
            let inhibitor = SleepInhibitor(address: address, log: log)
            scheduler.holdSleep = { why in inhibitor.hold(why) }
        }
        return nil
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
