/// Deterministic pseudo-random numbers (SplitMix64) for reproducible fuzzing.
///
/// The same seed gives the same sequence on every platform and toolchain: the helpers below derive their values
/// from `next()` by plain arithmetic instead of the standard library's `random(in:using:)`, whose algorithm may
/// change.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (`bound` > 0). The slight modulo bias does not matter for fuzzing.
    public mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// A number in `range`.
    public mutating func number(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// True with probability `probability` (0...1).
    public mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) * 0x1p-53 < probability
    }

    /// One of `items`, which must not be empty.
    public mutating func pick<Element>(_ items: [Element]) -> Element {
        items[below(items.count)]
    }
}
