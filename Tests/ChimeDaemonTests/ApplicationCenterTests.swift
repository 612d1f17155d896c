import ChimeCore
import ChimeDaemonTestSupport
import ChimeSystemd
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// The application interface's logic without a bus: what an `Add`, a removal, a badge and the settings do to the
/// stored requests, the schedule and the answer, with a scheduler on a manual clock and the requests in a temporary
/// state directory. ApplicationInterfaceTests (DesktopTests) call the real chimed over a real bus.
@Suite struct ApplicationCenterTests {
    static let app = "org.example.Reminders"

    /// The rebuild's side, as the center sees it: a load can be made to run, and each rebuild asked for is recorded
    /// and installed at once.
    final class Rebuilds: RequestRebuilding, @unchecked Sendable {
        var isLoading = false
        var configuration = DaemonConfiguration()
        var wakeSystemRefusal: String?
        var defaultBackends = ["journal"]
        var reasons: [String] = []

        func rebuild(reason: String, then completion: @escaping () -> Void) {
            reasons.append(reason)
            completion()
        }
    }

    /// `schedule.json`'s side: written at once; which kind of change it was told of is recorded.
    final class Snapshots: RequestReporting, @unchecked Sendable {
        let told = Locked<[String]>([])

        func requestsChanged(then written: @escaping @Sendable () -> Void) {
            told.withLock { $0.append("changed") }
            written()
        }

        func requestPlaced(due: Date, then placed: @escaping @Sendable () -> Void) {
            told.withLock { $0.append("placed") }
            placed()
        }
    }

    struct Fixture {
        let directory: TemporaryDirectory
        let queue = DispatchQueue(label: "test.scheduler")
        let harness = SchedulerHarness(start: "2026-10-20 00:00 UTC")
        let requests: ApplicationRequests
        let rebuilds = Rebuilds()
        let snapshots = Snapshots()
        let center: ApplicationCenter

        init() throws {
            directory = try TemporaryDirectory()
            requests = ApplicationRequests(stateDirectory: directory.path)
            harness.scheduler.install(SchedulerTests.schedule([("file", "[Trigger]\nAt=2026-10-20 06:00\n")]))
            let log = RecordingEventLog()
            center = ApplicationCenter(
                queue: queue, requests: requests, scheduler: harness.scheduler, rebuilder: rebuilds,
                reporter: snapshots,
                badges: ApplicationBadges(requests: requests, environment: [:], log: log, queue: queue),
                registry: BackendRegistry(
                    factories: BackendFactories(),
                    context: BackendContext(
                        log: log, clock: harness.clock, responder: RecordingResponder(), environment: [:])),
                clock: harness.clock, environment: ["TZ": "UTC"])
        }

        func add(
            _ id: String, content: BusRequestEntries.Entries = [("Title", .string("Exam"))],
            trigger: BusRequestEntries.Entries
        ) async -> Result<Date?, ApplicationCenter.Refusal> {
            await withCheckedContinuation { done in
                center.add(appID: ApplicationCenterTests.app, id: id, content: content, trigger: trigger) {
                    done.resume(returning: $0)
                }
            }
        }

        func pending() async -> [ApplicationCenter.Pending] {
            await withCheckedContinuation { done in
                center.pending(appID: ApplicationCenterTests.app) { done.resume(returning: $0) }
            }
        }

        func remove(_ ids: [String]?) async {
            await withCheckedContinuation { done in
                center.removePending(appID: ApplicationCenterTests.app, ids: ids) { done.resume() }
            }
        }

        /// The ids of the application's requests on disk.
        var stored: [String] { requests.ids(appID: ApplicationCenterTests.app).sorted() }

        /// What the scheduler holds, as `id@fire time`, read on its queue.
        var scheduled: [String] {
            queue.sync {
                harness.scheduler.pending(idPrefix: "").map { "\($0.id)@\(Timestamp.iso8601($0.next))" }.sorted()
            }
        }
    }

    /// A time in the zone the schedule was installed in (`SchedulerTests.schedule`'s), which requests are read in.
    static func berlin(_ local: String) -> Date {
        TestDate.timestamp(local + " Europe/Berlin")
    }

    /// As `scheduled` lists it.
    static func scheduled(_ id: String, _ local: String) -> String {
        "\(app):\(id)@\(Timestamp.iso8601(TestDate.timestamp(local + " Europe/Berlin")))"
    }

    @Test func anAddIsStoredPlacedAndAnsweredWithItsNextFire() async throws {
        let fixture = try Fixture()
        let answer = await fixture.add("exam", trigger: [("At", .string("2026-10-20 05:00"))])
        #expect(answer == .success(Self.berlin("2026-10-20 05:00")))
        #expect(fixture.stored == ["exam"])
        #expect(fixture.scheduled.contains(Self.scheduled("exam", "2026-10-20 05:00")))
        #expect(fixture.snapshots.told.withLock { $0 } == ["placed"])
        #expect(fixture.rebuilds.reasons.isEmpty)
        let pending = await fixture.pending()
        #expect(pending.map(\.id) == ["exam"])
        #expect(pending.first?.next == Self.berlin("2026-10-20 05:00"))
        #expect(pending.first?.content.first { $0.key == "Title" }?.value == .string("Exam"))
        #expect(pending.first?.trigger.first { $0.key == "At" } != nil)
        // Added again: replaced, and the snapshot is written before the answer (a listed entry may change).
        let again = await fixture.add("exam", trigger: [("At", .string("2026-10-20 07:00"))])
        #expect(again == .success(Self.berlin("2026-10-20 07:00")))
        #expect(fixture.snapshots.told.withLock { $0 } == ["placed", "changed"])
        #expect(fixture.scheduled.filter { $0.hasPrefix(Self.app) } == [Self.scheduled("exam", "2026-10-20 07:00")])
    }

    @Test func aBadRequestIsRefusedSayingWhyAndChangesNothing() async throws {
        let fixture = try Fixture()
        let answer = await fixture.add("exam", trigger: [("OnCalendar", .string("Mon 25:00"))])
        guard case .failure(.invalidArgument(let message)) = answer else {
            Issue.record("not refused as an invalid argument: \(answer)")
            return
        }
        #expect(message.contains("OnCalendar"))
        #expect(fixture.stored.isEmpty)
        #expect(!fixture.scheduled.contains { $0.hasPrefix(Self.app) })
    }

    @Test func aRequestWithNothingAheadReplacesTheEarlierOneByNothing() async throws {
        let fixture = try Fixture()
        _ = await fixture.add("exam", trigger: [("At", .string("2026-10-20 05:00"))])
        let answer = await fixture.add("exam", trigger: [("At", .string("2026-10-19 05:00"))])
        #expect(answer == .success(nil))
        #expect(fixture.stored.isEmpty)
        #expect(!fixture.scheduled.contains { $0.hasPrefix(Self.app) })
    }

    @Test func pastItsQuotaAnApplicationIsRefusedAndKeepsWhatItHad() async throws {
        let fixture = try Fixture()
        fixture.rebuilds.configuration.maximumRequestsPerApp = 1
        _ = await fixture.add("exam", trigger: [("At", .string("2026-10-20 05:00"))])
        let answer = await fixture.add("tea", trigger: [("At", .string("2026-10-20 06:00"))])
        guard case .failure(.limitExceeded(let message)) = answer else {
            Issue.record("not refused as over the limit: \(answer)")
            return
        }
        #expect(message.contains("MaxRequestsPerApp=1"))
        #expect(fixture.stored == ["exam"])
        // Replacing a request it has is not more of them.
        #expect(await fixture.add("exam", trigger: [("At", .string("2026-10-20 08:00"))]).isSuccess)
    }

    /// While a rebuild loads, it may have read the requests before this one: the answer waits for the next rebuild,
    /// which reads it, instead of placing it in a schedule about to be replaced.
    @Test func whileARebuildLoadsTheRequestIsReadByTheNextOne() async throws {
        let fixture = try Fixture()
        fixture.queue.sync { fixture.rebuilds.isLoading = true }
        let answer = await fixture.add("exam", trigger: [("At", .string("2026-10-20 05:00"))])
        // Read in the zone as it is now (TZ=UTC), not the installed schedule's, which the load may be replacing.
        #expect(answer == .success(TestDate.timestamp("2026-10-20 05:00 UTC")))
        #expect(fixture.rebuilds.reasons == ["request of \(Self.app)"])
        #expect(fixture.stored == ["exam"])
        #expect(!fixture.scheduled.contains { $0.hasPrefix(Self.app) })
        fixture.queue.sync { fixture.rebuilds.isLoading = false }
        await fixture.remove(nil)
        #expect(fixture.stored.isEmpty)
    }

    @Test func removedRequestsLeaveTheScheduleAndTheDisk() async throws {
        let fixture = try Fixture()
        _ = await fixture.add("exam", trigger: [("At", .string("2026-10-20 05:00"))])
        _ = await fixture.add("tea", trigger: [("OnCalendar", .string("*-*-* 16:00"))])
        await fixture.remove(["exam", "unknown"])
        #expect(fixture.stored == ["tea"])
        #expect(fixture.scheduled.filter { $0.hasPrefix(Self.app) } == [Self.scheduled("tea", "2026-10-20 16:00")])
        await fixture.remove(nil)
        #expect(fixture.stored.isEmpty)
        #expect(await fixture.pending().isEmpty)
    }

    @Test func theBadgeIsTheApplicationsOwnAndKept() async throws {
        let fixture = try Fixture()
        let set = await withCheckedContinuation { done in
            fixture.center.setBadge(appID: Self.app, count: 3) { done.resume(returning: $0) }
        }
        #expect((try? set.get()) != nil)
        let count = await withCheckedContinuation { done in
            fixture.center.badge(appID: Self.app) { done.resume(returning: $0) }
        }
        #expect(count == 3)
        let other = await withCheckedContinuation { done in
            fixture.center.badge(appID: "org.example.Other") { done.resume(returning: $0) }
        }
        #expect(other == 0)
    }

    @Test func theSettingsSayWhatMayBePresentedAndWhereItGoes() async throws {
        let fixture = try Fixture()
        fixture.rebuilds.configuration.presentation.sound = false
        let settings = await withCheckedContinuation { done in
            fixture.center.settings(appID: Self.app) { done.resume(returning: $0) }
        }
        #expect(settings.first { $0.key == "sound" }?.value == .boolean(false))
        #expect(settings.first { $0.key == "alert" }?.value == .boolean(true))
        #expect(settings.first { $0.key == "backends" }?.value == .strings(["journal"]))
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
