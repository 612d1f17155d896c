import ChimeCore
import ChimeDaemonTestSupport
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// The dispatcher's fan-out: fallback for a backend that cannot reach its peer, and each backend's own timeout.
@Suite struct DispatcherTests {
    /// Unreachable for the first `failures` deliveries, as a desktop backend without a server is; new only once.
    final class UnreachableBackend: DeliveryBackend, @unchecked Sendable {
        let name = "desktop"
        let fallback: String? = "spy"
        private let calls = Locked(0)
        private let failures: Int

        init(failures: Int) {
            self.failures = failures
        }

        func deliver(_ delivery: Delivery, deliveredAt: Date) async throws {
            let call = calls.withLock {
                $0 += 1
                return $0
            }
            if call <= failures {
                throw BackendUnavailable(reason: "no notification server", isNew: call == 1)
            }
        }
    }

    /// Takes far longer than its own timeout.
    struct SlowBackend: DeliveryBackend {
        let name = "slow"
        let timeout: Duration? = .milliseconds(50)

        func deliver(_ delivery: Delivery, deliveredAt: Date) async throws {
            try await Task.sleep(for: .seconds(30))
        }
    }

    /// Waits for the deliveries in flight without holding a thread of the concurrency pool, which they run on. The
    /// limit is generous: tests of other suites that block the pool's threads (sleeping while a real chimed works) can
    /// hold the deliveries up for as long.
    static func drain(_ dispatcher: Dispatcher, within limit: Duration) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: dispatcher.drain(within: limit)) }
        }
    }

    static func delivery(_ id: String, to backends: [String]) -> Delivery {
        var notification = ScheduledNotification(id: id, title: id, trigger: Trigger())
        notification.backends = backends
        return Delivery(notification: notification, fireTime: Date(timeIntervalSince1970: 1_800_000_000))
    }

    @Test func anUnreachableBackendIsReportedOnceAndItsDeliveriesGoToTheFallback() async {
        let log = RecordingEventLog()
        let spy = RecordingBackend(name: "spy")
        let dispatcher = Dispatcher(
            backends: [UnreachableBackend(failures: 3), spy], defaultBackends: ["journal"], clock: SystemWallClock(),
            log: log)
        for id in ["a", "b", "c", "d"] {
            dispatcher.dispatch(Self.delivery(id, to: ["desktop"])) {}
            #expect(await Self.drain(dispatcher, within: .seconds(120)))
        }
        #expect(spy.deliveries.map(\.delivery.notification.id) == ["a", "b", "c"])
        let failures = log.events(.deliveryFailed)
        #expect(failures.count == 1)
        #expect(
            failures.first?.message
                == "a: delivery to desktop failed: no notification server; delivering to spy instead until it is back")
        // Each fallback delivery is recorded as the fallback's; the fourth reached the backend itself.
        #expect(
            log.events(.delivered).map(\.message) == [
                "a: a (delivered to spy)", "b: b (delivered to spy)", "c: c (delivered to spy)",
                "d: d (delivered to desktop)",
            ])
    }

    @Test func eachBackendHasItsOwnTimeout() async {
        let log = RecordingEventLog()
        let dispatcher = Dispatcher(
            backends: [SlowBackend()], defaultBackends: ["slow"], timeout: .seconds(600), clock: SystemWallClock(),
            log: log)
        let started = ContinuousClock.now
        dispatcher.dispatch(Self.delivery("tea", to: [])) {}
        #expect(await Self.drain(dispatcher, within: .seconds(120)))
        #expect(ContinuousClock.now - started < .seconds(30), "the backend's own 50 ms, not the dispatcher's 600 s")
        #expect(
            log.events(.deliveryFailed).map(\.message) == ["tea: delivery to slow failed: timed out after 0.05 seconds"]
        )
    }

    /// Holds every delivery until `open()`, counting how many it holds at once.
    final class GatedBackend: DeliveryBackend, @unchecked Sendable {
        let name = "gated"
        private let state = Locked((holding: 0, most: 0, done: 0, open: false))
        private let waiters = Locked<[CheckedContinuation<Void, Never>]>([])

        var most: Int { state.withLock { $0.most } }
        var done: Int { state.withLock { $0.done } }

        func deliver(_ delivery: Delivery, deliveredAt: Date) async throws {
            let isOpen = state.withLock { state in
                state.holding += 1
                state.most = max(state.most, state.holding)
                return state.open
            }
            if !isOpen {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { $0.open }
                    if resumeNow { continuation.resume() } else { waiters.withLock { $0.append(continuation) } }
                }
            }
            state.withLock { state in
                state.holding -= 1
                state.done += 1
            }
        }

        func open() {
            state.withLock { $0.open = true }
            for waiter in waiters.withLock({ waiters in
                defer { waiters = [] }; return waiters
            }) { waiter.resume() }
        }
    }

    /// A backend that holds its deliveries holds at most the bound of them; the rest wait their turn and all come,
    /// and another backend's deliveries are not held up meanwhile.
    @Test func theDeliveriesInFlightToOneBackendAreBounded() async {
        let gated = GatedBackend()
        let spy = RecordingBackend(name: "spy")
        let dispatcher = Dispatcher(
            backends: [gated, spy], defaultBackends: ["gated"], clock: SystemWallClock(), log: RecordingEventLog(),
            inFlightPerBackend: 3)
        for index in 0..<10 { dispatcher.dispatch(Self.delivery("n\(index)", to: ["gated", "spy"])) {} }
        #expect(waitFor({ spy.deliveries.count == 10 }, timeout: 60))
        #expect(waitFor({ dispatcher.slots.count("gated") == (3, 7) }, timeout: 60))
        #expect(gated.most == 3 && gated.done == 0)
        gated.open()
        #expect(await Self.drain(dispatcher, within: .seconds(120)))
        #expect(gated.done == 10 && gated.most == 3)
        // A slot is given back just after its delivery has left the dispatcher's count of those in flight.
        #expect(waitFor({ dispatcher.slots.count("gated") == (0, 0) }, timeout: 60))
    }

    @Test func reconfiguringReplacesTheBackendsAndTheDefault() async {
        let log = RecordingEventLog()
        let first = RecordingBackend(name: "first")
        let second = RecordingBackend(name: "second")
        let dispatcher = Dispatcher(backends: [first], defaultBackends: ["first"], clock: SystemWallClock(), log: log)
        dispatcher.dispatch(Self.delivery("a", to: [])) {}
        #expect(await Self.drain(dispatcher, within: .seconds(120)))
        dispatcher.reconfigure(backends: [second], defaultBackends: ["second"])
        dispatcher.dispatch(Self.delivery("b", to: [])) {}
        dispatcher.dispatch(Self.delivery("c", to: ["first"])) {}
        #expect(await Self.drain(dispatcher, within: .seconds(120)))
        #expect(first.deliveries.map(\.delivery.notification.id) == ["a"])
        #expect(second.deliveries.map(\.delivery.notification.id) == ["b"])
        #expect(log.events(.deliveryFailed).map(\.message) == ["c: delivery to first failed: no backend named 'first'"])
    }

    /// A delivery again after a restart skips the backends that had finished it; while one backend is still at work,
    /// each other that is done is reported by name, and the last one only by `finished`.
    @Test func backendsThatFinishedAreLeftOutAndEachDoneBeforeTheOthersIsReported() async {
        let log = RecordingEventLog()
        let done = RecordingBackend(name: "done")
        let fast = RecordingBackend(name: "fast")
        let gated = GatedBackend()
        let dispatcher = Dispatcher(
            backends: [done, fast, gated], defaultBackends: [], clock: SystemWallClock(), log: log)
        var delivery = Self.delivery("tea", to: ["done", "fast", "gated"])
        delivery.finishedBackends = ["done"]
        let reported = Locked<[String]>([])
        let finished = Locked(false)
        dispatcher.dispatch(delivery, backendFinished: { name in reported.withLock { $0.append(name) } }) {
            finished.withLock { $0 = true }
        }
        #expect(waitFor({ reported.withLock { $0 } == ["fast"] }, timeout: 60))
        #expect(!finished.withLock { $0 })
        gated.open()
        #expect(await Self.drain(dispatcher, within: .seconds(120)))
        #expect(waitFor({ finished.withLock { $0 } }, timeout: 60))
        #expect(reported.withLock { $0 } == ["fast"])
        #expect(done.deliveries.isEmpty)
        #expect(fast.deliveries.map(\.delivery.notification.id) == ["tea"])
        #expect(gated.done == 1)
    }
}
