/// A 64-bit FNV-1a hash: the same for the same bytes on every run and every machine, unlike Swift's `Hasher`,
/// which is seeded anew in each process. For values that must not change across restarts (calendar ids, a host's
/// fixed random delays); not for anything an adversary chooses the input of.
public struct StableHash: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func combine<Bytes: Sequence>(bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
    }

    public mutating func combine(_ text: String) {
        combine(bytes: text.utf8)
    }

    /// The eight bytes of `number`, least significant first.
    public mutating func combine(_ number: UInt64) {
        combine(bytes: (0..<8).lazy.map { UInt8(truncatingIfNeeded: number >> ($0 * 8)) })
    }

    /// `value` with its bits mixed (SplitMix64's finaliser): FNV-1a's low bits depend little on the last bytes,
    /// and a value reduced modulo a range needs every bit to.
    public var mixed: UInt64 {
        var bits = value
        bits = (bits ^ (bits >> 30)) &* 0xbf58_476d_1ce4_e5b9
        bits = (bits ^ (bits >> 27)) &* 0x94d0_49bb_1331_11eb
        return bits ^ (bits >> 31)
    }
}
