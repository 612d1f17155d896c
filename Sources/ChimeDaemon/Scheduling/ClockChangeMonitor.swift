import CChimeShims
import ChimePlatform
import Dispatch

/// Reports each time the wall clock is set: an NTP step, `date -s`, `timedatectl set-time`, a resume from suspend.
///
/// It watches a timerfd on CLOCK_REALTIME armed with `TFD_TIMER_CANCEL_ON_SET` that never expires: the kernel
/// cancels it, making it readable, whenever the clock is set discontinuously, even to the time it already had.
/// Slewing (gradual NTP corrections) is no change. No polling: between changes nothing runs. Several changes in
/// quick succession may be reported by one call.
public final class ClockChangeMonitor: Sendable {
    private let watch: DescriptorWatch
    private let handler: @Sendable () -> Void

    /// Creates the timerfd; `handler` will run on `queue` for every change once `start()` is called, including a
    /// change made between `init` and `start()`. Start the monitor before reading the clock to build a schedule, so
    /// that a change after that read is reported.
    /// - Throws: `SystemCallError` from `timerfd_create` or `timerfd_settime`.
    public init(queue: DispatchQueue, handler: @escaping @Sendable () -> Void) throws(SystemCallError) {
        let descriptor = try SystemCallError.check(chime_clock_change_fd_create(), call: "timerfd_create")
        watch = DescriptorWatch(descriptor: descriptor, queue: queue)
        self.handler = handler
    }

    /// Starts calling the handler; only the first call has an effect.
    public func start() {
        watch.start { [weak self] in self?.descriptorReadable() }
    }

    /// Stops calling the handler (a call already running completes) and closes the timerfd.
    public func stop() {
        watch.stop()
    }

    private func descriptorReadable() {
        // Anything but "nothing to read" counts as a change: an unneeded rebuild costs little, a missed one a
        // wrong schedule.
        guard chime_clock_change_fd_read(watch.descriptor) != 0 else { return }
        // Re-arm before calling the handler, so that a change while it reads the clock is reported again. The
        // result does not matter: 1 means another change, which this call covers; a failure could only come from
        // arguments that `init` already had accepted.
        let rearmed = chime_clock_change_fd_arm(watch.descriptor)
        assert(rearmed >= 0, "timerfd_settime failed with errno \(-rearmed)")
        handler()
    }
}
