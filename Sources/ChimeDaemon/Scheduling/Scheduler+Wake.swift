import ChimeCore
import Foundation

extension Scheduler {
    /// Arms the alarm for the earliest pending occurrence with `WakeSystem=yes`, or disarms it when there is none.
    func rearmAlarm() {
        guard let alarm else { return }
        guard let earliest = wakeDue.values.min() else {
            if alarm.deadline != nil { alarm.cancel() }
            return
        }
        if alarm.deadline?.epochMicroseconds != earliest {
            asleepWhenArmed = timeAsleep()
            alarm.arm(at: Date(epochMicroseconds: earliest))
        }
    }

    /// The alarm expired: the wall-clock timer expired with it, and whichever runs first delivers what is due. If
    /// the system slept since the alarm was armed, it is what woke it, and the journal says so.
    func alarmFired() {
        let asleep = timeAsleep()
        let slept = asleep - asleepWhenArmed
        asleepWhenArmed = asleep
        if slept >= 1_000_000 {
            let now = clock.now().epochMicroseconds
            let waking = wakeDue.filter { $0.value <= now }.keys.sorted().map { entries[$0].notification.id }
            let ids = waking.isEmpty ? "its notifications" : waking.joined(separator: ", ")
            log.record(
                DaemonEvent(
                    .wokeSystem,
                    "Woke the system for \(ids) (WakeSystem=yes), after "
                        + "\(Timespan(microseconds: UInt64((slept + 500_000) / 1_000_000 * 1_000_000))) asleep.",
                    fields: [("CHIME_IDS", waking.joined(separator: " ")), ("CHIME_SLEPT_USEC", String(slept))]))
        }
        timerFired()
    }
}
