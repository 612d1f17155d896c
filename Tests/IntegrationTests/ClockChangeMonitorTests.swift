import ChimeDaemon
import Dispatch
import Glibc
import Testing

/// `ClockChangeMonitor` with the real clock: setting CLOCK_REALTIME to the time it reads is a "clock was set" event
/// for the kernel, yet leaves the clock where it was (behind by the nanoseconds between the two calls).
@Suite struct ClockChangeMonitorTests {
    /// Sets the wall clock to its own current time; cancels the test when that is not permitted (CAP_SYS_TIME).
    func setClockToItself() throws {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        if clock_settime(CLOCK_REALTIME, &now) != 0 {
            let reason = String(cString: strerror(errno))
            try Test.cancel("Skipped: setting CLOCK_REALTIME needs root with CAP_SYS_TIME (\(reason))")
        }
    }

    @Test func settingTheClockIsReportedEachTime() throws {
        let counter = CallCounter()
        let monitor = try ClockChangeMonitor(queue: DispatchQueue(label: "clock-test")) { counter.record() }
        monitor.start()
        defer { monitor.stop() }
        try setClockToItself()
        #expect(counter.waitForCall(timeout: .seconds(1)))
        // Re-armed: the next change is reported too.
        try setClockToItself()
        #expect(counter.waitForCall(timeout: .seconds(1)))
        #expect(counter.count == 2)
    }

    @Test func changeBeforeStartIsReportedOnStart() throws {
        let counter = CallCounter()
        let monitor = try ClockChangeMonitor(queue: DispatchQueue(label: "clock-test")) { counter.record() }
        defer { monitor.stop() }
        try setClockToItself()
        #expect(counter.count == 0)
        monitor.start()
        #expect(counter.waitForCall(timeout: .seconds(1)))
    }

    /// libdispatch aborts the process when a source that never ran is released without care.
    @Test func monitorNeverStartedGoesAwayCleanly() throws {
        let counter = CallCounter()
        let monitor = try ClockChangeMonitor(queue: DispatchQueue(label: "clock-test")) { counter.record() }
        monitor.stop()
        monitor.start()
        monitor.stop()
        _ = try ClockChangeMonitor(queue: DispatchQueue(label: "clock-test")) { counter.record() }
        #expect(counter.count == 0)
    }
}
