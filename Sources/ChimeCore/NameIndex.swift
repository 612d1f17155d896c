/// The positions of a large number of names, found by name: a load's ids, a million from a generator, checked for
/// repeats and looked up among the notifications of the load before.
///
/// A `Set` or `Dictionary` of the strings hashed and probed on one thread, most of a rebuild's time that reused its
/// notifications. Here the hashes are computed on all cores, and positions are probed by hash in a table of
/// 32-bit integers, names compared only where two hashes are equal. The names are not kept: `name(i)` gives the
/// `i`th again whenever one is to be compared. Positions can also be indexed by hashes made elsewhere (the lines of a
/// generator's output, by `GeneratorOutput.lineHash`).
public struct NameIndex: Sendable {
    private let hashes: [Int]
    /// Positions by hash, at most half full, so that a probe ends after a slot or two. A slot holds 0 where free,
    /// else the position + 1 in its low `positionBits` and the top bits of the position's hash above them: a probe
    /// reads `hashes` (a cache miss of its own, for a million names) only where those are equal.
    private let table: [UInt32]
    private let positionBits: Int
    /// Whether some name equals one before it; only the first of equal names can be found.
    public let hasRepeats: Bool

    /// Indexes `name(0)`, …, `name(count - 1)`. `name` is called from several threads at once.
    public init(count: Int, _ name: (Int) -> String) {
        precondition(count < Int(Int32.max), "more names than positions of 32 bits can tell apart")
        let hashes = [Int](unsafeUninitializedCapacity: count) { buffer, initialized in
            nonisolated(unsafe) let buffer = buffer
            withoutActuallyEscaping(name) { name in
                nonisolated(unsafe) let name = name
                let batch = 16_384
                ParallelWork.perform(iterations: (count + batch - 1) / batch) { part in
                    for index in part * batch..<min(count, (part + 1) * batch) {
                        (buffer.baseAddress! + index).initialize(to: name(index).hashValue)
                    }
                }
            }
            initialized = count
        }
        self.init(hashes: hashes) { name($0) == name($1) }
    }

    /// Indexes positions by hashes already made: `isSame(earlier, later)` tells whether two positions of equal
    /// hashes hold the same (only the first of those can be found).
    public init(hashes: [Int], isSame: (Int, Int) -> Bool) {
        precondition(hashes.count < Int(Int32.max), "more names than positions of 32 bits can tell apart")
        var capacity = 1
        while capacity < 2 * hashes.count { capacity <<= 1 }
        let mask = capacity - 1
        let positionBits = Int.bitWidth - hashes.count.leadingZeroBitCount
        var table = [UInt32](repeating: 0, count: capacity)
        var hasRepeats = false
        table.withUnsafeMutableBufferPointer { table in
            for index in hashes.indices {
                let hash = hashes[index]
                let tag = Self.tag(of: hash, positionBits: positionBits)
                var slot = hash & mask
                var isRepeat = false
                while table[slot] != 0 {
                    if table[slot] >> positionBits == tag {
                        let earlier = Self.position(in: table[slot], positionBits: positionBits)
                        if hashes[earlier] == hash && isSame(earlier, index) {
                            isRepeat = true
                            break
                        }
                    }
                    slot = (slot + 1) & mask
                }
                if isRepeat {
                    hasRepeats = true
                } else {
                    table[slot] = tag << positionBits | UInt32(index + 1)
                }
            }
        }
        self.hashes = hashes
        self.table = table
        self.positionBits = positionBits
        self.hasRepeats = hasRepeats
    }

    /// The top bits of `hash` that fit above the positions in a slot: at least one, as positions are below 2³¹.
    private static func tag(of hash: Int, positionBits: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: UInt(bitPattern: hash) >> (Int.bitWidth - 32 + positionBits))
    }

    private static func position(in slot: UInt32, positionBits: Int) -> Int {
        Int(slot & (UInt32.max >> (32 - positionBits))) - 1
    }

    /// The position of `wanted` (the first, if it repeats), or `nil`; `name` is the one the index was made with.
    public func position(of wanted: String, _ name: (Int) -> String) -> Int? {
        position(ofHash: wanted.hashValue) { name($0) == wanted }
    }

    /// The first position with `hash` whose item `matches`, or `nil`.
    public func position(ofHash hash: Int, where matches: (Int) -> Bool) -> Int? {
        guard !hashes.isEmpty else { return nil }
        let mask = table.count - 1
        let tag = Self.tag(of: hash, positionBits: positionBits)
        var slot = hash & mask
        while table[slot] != 0 {
            if table[slot] >> positionBits == tag {
                let index = Self.position(in: table[slot], positionBits: positionBits)
                if hashes[index] == hash && matches(index) { return index }
            }
            slot = (slot + 1) & mask
        }
        return nil
    }
}
