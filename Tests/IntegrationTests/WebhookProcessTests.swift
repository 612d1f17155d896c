import ChimeTestSupport
import Foundation
import Testing

/// The real `chimed` delivering to webhooks defined in chimed.conf, against local scripted HTTP servers: a webhook
/// stuck retrying or waiting for an answer delays no other delivery.
@Suite(.serialized, .disabled(if: WebhookTestServer.unavailableReason != nil, "needs /usr/bin/python3"))
struct WebhookProcessTests {
    let chimed = BinaryLocator.path(of: "chimed")

    /// A stdout line of chimed's: which notification, when it was due and when it was handed off.
    struct Line {
        var id: String
        var fireTime: Date
        var deliveredAt: Date

        init?(_ text: Substring) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                let id = object["id"] as? String, let fire = (object["fire_time"] as? String).flatMap(TestDate.iso),
                let delivered = (object["delivered_at"] as? String).flatMap(TestDate.iso)
            else { return nil }
            self.id = id
            fireTime = fire
            deliveredAt = delivered
        }

        var lateness: TimeInterval { deliveredAt.timeIntervalSince(fireTime) }
    }

    @Test func aWebhookStuckRetryingDelaysNoOtherDelivery() throws {
        // "failing" answers 503 for ever and is tried 7 times, at least 1.65 s of waits; "hanging" never answers
        // and is tried twice, 2 s each. Both are still at it when "later" falls due a second after "both".
        let failingServer = try WebhookTestServer(answers: [.status(503, body: "try later")])
        let hangingServer = try WebhookTestServer(answers: [.hang])
        let directory = try TemporaryDirectory(prefix: "chimed-webhook")
        defer { directory.remove() }
        try directory.write(
            "config/chimed.conf",
            """
            [Webhook]
            Name=failing
            URL=\(failingServer.url("/hook?token=s3cret"))
            Header=Authorization: Bearer s3cret
            Retries=6
            RetrySec=300ms
            RetryMaxSec=600ms

            [Webhook]
            Name=hanging
            URL=\(hangingServer.url())
            TimeoutSec=2s
            Retries=1
            RetrySec=100ms

            """)
        let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 3
        try directory.write(
            "config/both.notification",
            "[Notification]\nTitle=Both\nDeliver=stdout failing hanging\n[Trigger]\nAt=@\(due)\n")
        try directory.write(
            "config/later.notification", "[Notification]\nTitle=Later\nDeliver=stdout\n[Trigger]\nAt=@\(due + 1)\n")
        let notify = try NotifySocket(directory: directory.path)
        let process = try RunningProcess(
            chimed,
            [
                "--config-dir=\(directory.path)/config", "--runtime-dir=\(directory.path)/run",
                "--state-dir=\(directory.path)/state",
            ],
            environment: ["NOTIFY_SOCKET": notify.path])
        let ready = notify.receive(until: { $0.contains("READY=1") }, timeout: 20)
        try #require(ready.last?.contains("READY=1") == true, "chimed did not start: \(process.standardError)")

        // Both webhooks give up, each with its own reason; by then everything else has long been delivered.
        let failed =
            "both: delivery to failing failed: gave up after 7 attempts to http://127.0.0.1:"
            + "\(failingServer.port): HTTP 503 Service Unavailable: try later"
        let hung =
            "both: delivery to hanging failed: gave up after 2 attempts to http://127.0.0.1:"
            + "\(hangingServer.port): no response within 2s"
        // Meanwhile, note when each stdout line appears: the hand-off time in the line is taken before the
        // backend runs, this is when it had run.
        var seen: [String: Date] = [:]
        let deadline = Date().addingTimeInterval(Double(due) - Date().timeIntervalSince1970 + 30)
        while Date() < deadline && !(process.standardError.contains(failed) && process.standardError.contains(hung)) {
            for line in process.standardOutput.split(separator: "\n").compactMap(Line.init) where seen[line.id] == nil {
                seen[line.id] = Date()
            }
            usleep(10_000)
        }
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 30) == 0)
        #expect(process.standardError.contains(failed), "\(process.standardError)")
        #expect(process.standardError.contains(hung), "\(process.standardError)")
        #expect(!process.standardError.contains("s3cret"))
        // The start-up summary of the backends says where each webhook posts.
        #expect(
            process.standardError.contains(
                "failing: POST http://127.0.0.1:\(failingServer.port) (timeout 10s, 6 retries after 300ms doubling "
                    + "to 600ms, headers Authorization)"), "\(process.standardError)")

        let lines = process.standardOutput.split(separator: "\n").compactMap(Line.init)
        let both = try #require(lines.first { $0.id == "both" }, "\(process.standardOutput)")
        let later = try #require(lines.first { $0.id == "later" }, "\(process.standardOutput)")
        let bothSeen = try #require(seen["both"]).timeIntervalSince(both.fireTime)
        let laterSeen = try #require(seen["later"]).timeIntervalSince(later.fireTime)
        print(
            "while webhooks retry, stdout hand-off lateness: both \(Self.milliseconds(both.lateness)), later "
                + "\(Self.milliseconds(later.lateness)); line seen by the test (polling every 10 ms) after: both "
                + "\(Self.milliseconds(bothSeen)), later \(Self.milliseconds(laterSeen))")
        #expect(both.fireTime == Date(timeIntervalSince1970: Double(due)))
        #expect(later.fireTime == Date(timeIntervalSince1970: Double(due + 1)))
        #expect(both.lateness >= 0 && both.lateness < 1)
        #expect(later.lateness >= 0 && later.lateness < 1)
        #expect(bothSeen < 1.5 && laterSeen < 1.5)

        // The webhooks were indeed at it when "later" was handed off.
        let attempts = failingServer.requests
        #expect(attempts.count == 7)
        #expect((attempts.last?.receivedAt ?? .distantPast) > later.deliveredAt)
        let hanging = hangingServer.requests
        #expect(hanging.count == 2)
        #expect((hanging.first?.receivedAt ?? .distantFuture) < later.deliveredAt)
        print("failing webhook: 7 attempts over \(Self.milliseconds(Self.span(attempts))); hanging: 2 attempts")

        // Each attempt posted the delivery's JSON, named after the webhook, with the configured header.
        let request = try #require(attempts.first)
        #expect(request.path == "/hook?token=s3cret")
        #expect(request.header("Authorization") == "Bearer s3cret")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
        #expect(body["id"] as? String == "both")
        #expect(body["title"] as? String == "Both")
        #expect(body["backend"] as? String == "failing")
        #expect((body["fire_time"] as? String).flatMap(TestDate.iso) == both.fireTime)
        #expect(Set(attempts.map(\.body)).count == 1)
    }

    /// The webhook backend's target keeps FoundationNetworking (and libcurl with its thirty libraries) out of
    /// chimectl, whose start-up time counts.
    @Test(.disabled(if: !FileManager.default.isExecutableFile(atPath: "/usr/bin/ldd"), "needs /usr/bin/ldd"))
    func onlyChimedLinksFoundationNetworking() throws {
        let chimedLibraries = try ProcessRunner.run("/usr/bin/ldd", [chimed]).standardOutput
        let chimectlLibraries = try ProcessRunner.run("/usr/bin/ldd", [BinaryLocator.path(of: "chimectl")])
            .standardOutput
        #expect(chimedLibraries.contains("libcurl"))
        #expect(!chimectlLibraries.contains("libcurl"), "\(chimectlLibraries)")
        #expect(!chimectlLibraries.contains("FoundationNetworking"), "\(chimectlLibraries)")
    }

    static func milliseconds(_ interval: TimeInterval) -> String {
        String(format: "%.1f ms", interval * 1000)
    }

    static func span(_ requests: [WebhookTestServer.Request]) -> TimeInterval {
        guard let first = requests.first, let last = requests.last else { return 0 }
        return last.receivedAt.timeIntervalSince(first.receivedAt)
    }
}
