import Testing

@testable import ChimeWebhook

@Suite struct WebhookRetryPolicyTests {
    static let policy = WebhookRetryPolicy(retries: 8, delay: .seconds(1), maxDelay: .seconds(10))

    @Test(arguments: [
        (1, Duration.seconds(1)), (2, .seconds(2)), (3, .seconds(4)), (4, .seconds(8)), (5, .seconds(10)),
        (6, .seconds(10)), (1000, .seconds(10)),
    ])
    func ceilingDoublesUpToTheCap(retry: Int, ceiling: Duration) {
        #expect(Self.policy.ceiling(beforeRetry: retry) == ceiling)
    }

    @Test(arguments: [
        // Equal jitter: half the ceiling, plus the fraction of the other half.
        (1, 0.0, Duration.milliseconds(500)), (1, 0.5, .milliseconds(750)), (1, 0.875, .nanoseconds(937_500_000)),
        (3, 0.25, .milliseconds(2500)), (5, 0.0, .seconds(5)), (5, 0.75, .milliseconds(8750)),
        // A fraction outside 0..<1 from a broken source cannot push the wait past the ceiling.
        (2, 7.0, .seconds(2)), (2, -1.0, .seconds(1)),
    ])
    func waitIsHalfTheCeilingPlusJitter(retry: Int, fraction: Double, wait: Duration) {
        #expect(Self.policy.wait(beforeRetry: retry, fraction: fraction) == wait)
    }

    @Test func retryAfterStretchesTheWaitUpToTheCap() {
        #expect(Self.policy.wait(beforeRetry: 1, fraction: 0, retryAfter: .seconds(3)) == .seconds(3))
        // Shorter than the backoff: the backoff stands.
        #expect(Self.policy.wait(beforeRetry: 4, fraction: 0, retryAfter: .seconds(1)) == .seconds(4))
        #expect(Self.policy.wait(beforeRetry: 1, fraction: 0, retryAfter: .seconds(3600)) == .seconds(10))
    }

    @Test func aCapBelowTheFirstDelayCapsEveryWait() {
        let policy = WebhookRetryPolicy(retries: 2, delay: .seconds(5), maxDelay: .seconds(2))
        #expect(policy.ceiling(beforeRetry: 1) == .seconds(2))
        #expect(policy.wait(beforeRetry: 2, fraction: 0.5) == .milliseconds(1500))
    }

    @Test func longestTotalWaitAllowsEveryWaitAtTheCap() {
        #expect(Self.policy.longestTotalWait == .seconds(80))
        #expect(WebhookRetryPolicy(retries: 0, delay: .seconds(1), maxDelay: .seconds(60)).longestTotalWait == .zero)
    }
}
