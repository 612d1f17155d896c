extension String {
    /// Whether `self` sorts before `other` by their UTF-8 bytes, the order systemd sorts unit and drop-in names in,
    /// whatever the locale.
    ///
    /// `<` on strings compares Unicode scalars after normalisation, not bytes; and the generic
    /// `utf8.lexicographicallyPrecedes` costs a call per byte, which the sort of a large search pays for every
    /// comparison. Native strings are compared eight bytes at a time.
    public func precedesInByteOrder(_ other: String) -> Bool {
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs -> Bool in
                let common = Swift.min(mine.count, theirs.count)
                var offset = 0
                let left = UnsafeRawBufferPointer(mine)
                let right = UnsafeRawBufferPointer(theirs)
                // Read big-endian, eight bytes compare as numbers in the order their first differing byte gives.
                while offset + 8 <= common {
                    let a = UInt64(bigEndian: left.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                    let b = UInt64(bigEndian: right.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                    if a != b { return a < b }
                    offset += 8
                }
                while offset < common {
                    if left[offset] != right[offset] { return left[offset] < right[offset] }
                    offset += 1
                }
                return mine.count < theirs.count
            }
        }
        if let compared, let result = compared { return result }
        return utf8.lexicographicallyPrecedes(other.utf8)
    }
}
