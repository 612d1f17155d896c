/// Up to 64 bytes of ASCII text put together on the stack and then appended to an array in one copy.
///
/// Timestamp listings format hundreds of thousands of short texts; appending them to an array byte by byte pays a
/// uniqueness and capacity check for every byte.
struct ASCIIScratch {
    static let capacity = 64

    private var storage: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private(set) var count = 0

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        precondition(count < Self.capacity, "ASCIIScratch overflow")
        let index = count
        withUnsafeMutableBytes(of: &storage) { $0[index] = byte }
        count += 1
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { for byte in $0 { append(byte) } }
    }

    /// Appends bytes that fit (at most `capacity - count`).
    @inline(__always)
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= Self.capacity - count, "ASCIIScratch overflow")
        let start = count
        withUnsafeMutableBytes(of: &storage) { buffer in
            for (offset, byte) in bytes.enumerated() { buffer[start + offset] = byte }
        }
        count += bytes.count
    }

    /// Appends `value` (0...99) as two digits.
    @inline(__always)
    mutating func appendTwoDigits(_ value: Int) {
        append(UInt8(truncatingIfNeeded: 48 + value / 10))
        append(UInt8(truncatingIfNeeded: 48 + value % 10))
    }

    /// Appends `value` in decimal, zero-padded to at least `width` digits, with a minus sign if negative.
    mutating func appendDigits(_ value: Int, width: Int = 1) {
        if value < 0 { append(UInt8(ascii: "-")) }
        appendDigits(UInt64(value.magnitude), width: width)
    }

    /// Appends `value` in decimal, zero-padded to at least `width` digits.
    mutating func appendDigits(_ value: UInt64, width: Int = 1) {
        var digits = 1
        var power: UInt64 = 10
        while digits < 20 && value >= power {
            digits += 1
            power = digits < 20 ? power * 10 : power
        }
        for _ in digits..<max(width, digits) { append(UInt8(ascii: "0")) }
        precondition(count + digits <= Self.capacity, "ASCIIScratch overflow")
        let end = count + digits
        var rest = value
        withUnsafeMutableBytes(of: &storage) { buffer in
            var index = end - 1
            repeat {
                buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                index -= 1
            } while rest > 0
        }
        count = end
    }

    /// Appends the text to `bytes`.
    @inline(__always)
    func write(to bytes: inout [UInt8]) {
        withUnsafeBytes(of: storage) { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// The text as a `String`.
    var string: String {
        withUnsafeBytes(of: storage) { String(decoding: $0[..<count], as: UTF8.self) }
    }
}
