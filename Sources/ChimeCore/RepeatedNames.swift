/// Whether any of a large number of names repeats one before it: what a load asks of every schedule, a million ids
/// from a generator.
///
/// Inserting each into a `Set` hashed and probed on one thread, most of a rebuild's time that reused its
/// notifications. Here the hashes are computed on all cores, and positions are probed by hash in a table of
/// 32-bit integers, names compared only where two hashes are equal.
public enum RepeatedNames {
    /// Whether `name(i)` for some `i` in `0..<count` equals `name(j)` for a `j` before it. `name` is called from
    /// several threads at once.
    public static func any(count: Int, _ name: (Int) -> String) -> Bool {
        guard count > 1 else { return false }
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
        // At most half full, so that a probe ends after a slot or two.
        var capacity = 1
        while capacity < 2 * count { capacity <<= 1 }
        let mask = capacity - 1
        var table = [Int32](repeating: -1, count: capacity)
        return table.withUnsafeMutableBufferPointer { table in
            for index in 0..<count {
                let hash = hashes[index]
                var slot = hash & mask
                while table[slot] >= 0 {
                    let earlier = Int(table[slot])
                    if hashes[earlier] == hash && name(earlier) == name(index) { return true }
                    slot = (slot + 1) & mask
                }
                table[slot] = Int32(index)
            }
            return false
        }
    }
}
