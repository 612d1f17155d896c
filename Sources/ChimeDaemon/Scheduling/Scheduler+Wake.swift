import ChimeCore
import Foundation

extension Scheduler {
    /// Arms the alarm for the earliest pending occurrence with `WakeSystem=yes` or user's wake-up, or disarms it when
    /// there is none.
    func rearmAlarm() {
        wakeAlarm?.rearm(notificationsDue: wakeDue.values.min().map { Date(epochMicroseconds: $0) })
    }

    /// The alarm expired: the wall-clock timer expired with it, and whichever runs first delivers what is due. If
    /// the system slept since the alarm was armed, it is what woke it, and the journal says so.
    func alarmFired() {
        onQueue()
        let now = clock.now()
        guard let (users, slept) = wakeAlarm?.expired(now: now) else { return }
        if slept >= .seconds(1) {
            let waking =
                wakeDue.filter { $0.value <= now.epochMicroseconds }.keys.sorted().map { entries[$0].notification.id }
                + users.map { "the instance of user \($0)" }
            let ids = waking.isEmpty ? "its notifications" : waking.joined(separator: ", ")
            log.record(
                DaemonEvent(
                    .wokeSystem,
                    "Woke the system for \(ids) (WakeSystem=yes), after "
                        + "\(Timespan(slept.roundedToSeconds)!) asleep.",
                    fields: [
                        ("CHIME_IDS", waking.joined(separator: " ")),
                        ("CHIME_SLEPT_USEC", String(slept.wholeMicroseconds)),
                    ]))
        }
        timerFired()
    }

    /// The wake-up the instance of user `uid` asks for (`WakeService`), replacing the one it asked for before;
    /// `nil` withdraws it. The alarm wakes the system for it; that instance delivers its own notifications.
    public func setUserWake(_ uid: UInt32, at instant: Date?) {
        onQueue()
        wakeAlarm?.setUserWake(uid, at: instant)
        rearmAlarm()
    }

    /// The users' wake-ups still to come, by user id.
    public var userWakeTimes: [UInt32: Date] { wakeAlarm?.userWakes ?? [:] }
}
