import ChimeTestSupport
import Dispatch
import Foundation
import Testing

@testable import ChimeDaemon

/// The bounds on applications' requests, counted from the state directory: per application (count and bytes) and
/// for all of them, a replacement counting only what it adds, requests that left without a call counted again.
struct ApplicationRequestQuotaTests {
    let directory: TemporaryDirectory
    let requests: ApplicationRequests
    let queue = DispatchQueue(label: "quota")
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        directory = try TemporaryDirectory(prefix: "chime-quota")
        requests = ApplicationRequests(stateDirectory: directory.path)
    }

    func store(_ id: String, bytes: Int, app: String, quota: ApplicationRequestQuota) throws {
        try requests.store(String(repeating: "x", count: bytes), appID: app, id: id)
        quota.stored(id, bytes: bytes, appID: app)
    }

    @Test func oneApplicationsBytesAreBounded() throws {
        defer { directory.remove() }
        let quota = ApplicationRequestQuota(requests: requests, queue: queue)
        let limits = ApplicationRequestQuota.Limits(bytesPerApp: 1000)
        try queue.sync {
            #expect(quota.refusal(adding: "a", bytes: 600, to: "org.example.A", limits: limits, now: now) == nil)
            try store("a", bytes: 600, app: "org.example.A", quota: quota)
            #expect(
                quota.refusal(adding: "b", bytes: 401, to: "org.example.A", limits: limits, now: now)
                    == "org.example.A's requests would take 1,001 bytes as notification files, more than the 1,000 "
                    + "bytes chimed keeps for one application (so that GetPending's answer fits in a message); "
                    + "remove some first.")
            #expect(quota.refusal(adding: "b", bytes: 400, to: "org.example.A", limits: limits, now: now) == nil)
            // Replacing a: only what it adds counts.
            #expect(quota.refusal(adding: "a", bytes: 1000, to: "org.example.A", limits: limits, now: now) == nil)
            // Another application has its own.
            #expect(quota.refusal(adding: "a", bytes: 1000, to: "org.example.B", limits: limits, now: now) == nil)
        }
    }

    @Test func aRequestThatLeftWithoutACallIsCountedAgainBeforeARefusal() throws {
        defer { directory.remove() }
        let quota = ApplicationRequestQuota(requests: requests, queue: queue)
        let limits = ApplicationRequestQuota.Limits(requestsPerApp: 2, requests: 3)
        try queue.sync {
            try store("a", bytes: 10, app: "org.example.A", quota: quota)
            try store("b", bytes: 10, app: "org.example.A", quota: quota)
            try store("c", bytes: 10, app: "org.example.B", quota: quota)
            #expect(quota.refusal(adding: "c", bytes: 10, to: "org.example.A", limits: limits, now: now) != nil)
            // The request fired for the last time: its file went, and the application's count is read again.
            requests.remove(appID: "org.example.A", ids: ["b"])
            #expect(quota.refusal(adding: "c", bytes: 10, to: "org.example.A", limits: limits, now: now) == nil)
            try store("c", bytes: 10, app: "org.example.A", quota: quota)
            // All of them: B's went too, but all applications are counted again only every 10 s.
            requests.remove(appID: "org.example.B", ids: ["c"])
            #expect(
                quota.refusal(adding: "d", bytes: 10, to: "org.example.C", limits: limits, now: now)
                    == "Applications have 3 requests pending, the most chimed takes from all of them (MaxRequests=3 "
                    + "in chimed.conf).")
            #expect(
                quota.refusal(adding: "d", bytes: 10, to: "org.example.C", limits: limits, now: now + 10) == nil)
        }
    }
}
