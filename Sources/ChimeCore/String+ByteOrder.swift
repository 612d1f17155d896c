import Glibc

extension String {
    /// Whether `self` sorts before `other` by their UTF-8 bytes, the order systemd sorts unit and drop-in names in,
    /// whatever the locale.
    ///
    /// `<` on strings compares Unicode scalars after normalisation, not bytes; and the generic
    /// `utf8.lexicographicallyPrecedes` costs a call per byte, which the sort of a large search pays for every
    /// comparison. Native strings are compared with one `memcmp`.
    public func precedesInByteOrder(_ other: String) -> Bool {
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs -> Bool in
                let common = Swift.min(mine.count, theirs.count)
                if common > 0 {
                    let order = memcmp(mine.baseAddress!, theirs.baseAddress!, common)
                    if order != 0 { return order < 0 }
                }
                return mine.count < theirs.count
            }
        }
        if let compared, let result = compared { return result }
        return utf8.lexicographicallyPrecedes(other.utf8)
    }
}
