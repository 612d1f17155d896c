/// Splits a command-line-like value into words, with the quoting rules of systemd.syntax(7) that `ExecStart=` uses
/// (systemd.service(5), "COMMAND LINES").
///
/// - Words are separated by unquoted spaces, tabs, newlines and carriage returns.
/// - `"…"` and `'…'` quote, both alike, anywhere in a word: `a"b c"d` is the one word `ab cd`, and `""` is an
///   empty word. The quotes are removed.
/// - Backslash escapes work inside and outside quotes: `\a \b \f \n \r \t \v \\ \" \' \s` (space), `\xHH`,
///   `\NNN` (three octal digits), `\uHHHH`, `\UHHHHHHHH`, and a backslash before whitespace keeps the whitespace in
///   the word. `\xHH` and `\NNN` give bytes, which must form valid UTF-8 within their word.
///
/// Stricter than systemd where systemd would go on with a surprising result: an unknown escape (systemd 252 warns
/// and keeps it verbatim), a character that is not a Unicode scalar (systemd writes the bytes of a surrogate), and
/// bytes that are not UTF-8 are errors. There is no `$VARIABLE` or `%` specifier expansion and no `;` separator.
public enum WordSplitter {
    /// Splits `text` into words; `location` is where `text` starts in its file, and errors are reported relative
    /// to it (at the exact column when `location` has one).
    public static func split(_ text: String, at location: UnitFileLocation) throws(UnitFileDiagnostic) -> [String] {
        do {
            return try split(Array(text.unicodeScalars))
        } catch {
            throw UnitFileDiagnostic(.error, at: location.advanced(by: error.offset), error.message)
        }
    }

    /// Why splitting failed, and where, as an offset in Unicode scalars into the text.
    struct Failure: Error {
        var offset: Int
        var message: String
    }

    static func split(_ text: [Unicode.Scalar]) throws(Failure) -> [String] {
        var words: [String] = []
        var index = 0
        while true {
            while index < text.count, text[index].isSeparator { index += 1 }
            guard index < text.count else { return words }
            let wordStart = index
            var bytes: [UInt8] = []
            var quote: (scalar: Unicode.Scalar, offset: Int)?
            while index < text.count {
                let scalar = text[index]
                if scalar == "\\" {
                    index = try unescape(text, at: index, into: &bytes)
                } else if let open = quote, scalar == open.scalar {
                    quote = nil
                    index += 1
                } else if quote == nil, scalar == "\"" || scalar == "'" {
                    quote = (scalar, index)
                    index += 1
                } else if quote == nil, scalar.isSeparator {
                    break
                } else {
                    bytes += scalar.utf8
                    index += 1
                }
            }
            if let open = quote {
                throw Failure(offset: open.offset, message: "Unterminated quote.")
            }
            guard let word = String(validating: bytes, as: UTF8.self) else {
                throw Failure(offset: wordStart, message: "Escaped bytes do not form valid UTF-8.")
            }
            words.append(word)
        }
    }

    /// Appends what the escape sequence at `start` (a backslash) stands for and returns the index after it.
    private static func unescape(
        _ text: [Unicode.Scalar], at start: Int, into bytes: inout [UInt8]
    ) throws(Failure) -> Int {
        guard start + 1 < text.count else {
            throw Failure(offset: start, message: "Backslash at the end of the value escapes nothing.")
        }
        let letter = text[start + 1]
        if let simple = simpleEscapes[letter] {
            bytes.append(simple)
            return start + 2
        }
        if letter.isSeparator {
            bytes += letter.utf8
            return start + 2
        }
        let (digitsStart, count, radix): (Int, Int, Int) =
            switch letter {
            case "x": (start + 2, 2, 16)
            case "u": (start + 2, 4, 16)
            case "U": (start + 2, 8, 16)
            case "0"..."7": (start + 1, 3, 8)
            default:
                throw Failure(offset: start, message: "Unknown escape sequence '\\\(Character(letter))'.")
            }
        let end = min(digitsStart + count, text.count)
        let sequence = "\\" + String(String.UnicodeScalarView(text[(start + 1)..<end]))
        var value: UInt32 = 0
        for scalar in text[digitsStart..<end] {
            guard let digit = scalar.asciiDigitValue, digit < radix else {
                throw Failure(offset: start, message: "Invalid escape sequence '\(sequence)'.")
            }
            value = value * UInt32(radix) + UInt32(digit)
        }
        guard end - digitsStart == count else {
            throw Failure(offset: start, message: "Invalid escape sequence '\(sequence)'.")
        }
        // Like systemd, refuse NUL: it cannot be passed in an argument.
        guard value != 0 else {
            throw Failure(offset: start, message: "Escape sequence '\(sequence)' would produce a NUL character.")
        }
        switch letter {
        case "u", "U":
            guard let scalar = Unicode.Scalar(value) else {
                throw Failure(offset: start, message: "Escape sequence '\(sequence)' is not a Unicode scalar.")
            }
            bytes += scalar.utf8
        default:
            guard value <= 0xFF else {
                throw Failure(offset: start, message: "Escape sequence '\(sequence)' is out of range.")
            }
            bytes.append(UInt8(value))
        }
        return end
    }

    private static let simpleEscapes: [Unicode.Scalar: UInt8] = [
        "a": 0x07, "b": 0x08, "f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B,
        "\\": 0x5C, "\"": 0x22, "'": 0x27, "s": 0x20,
    ]
}

extension Unicode.Scalar {
    /// The separators of `ExecStart=` words: systemd's `WHITESPACE`.
    fileprivate var isSeparator: Bool {
        self == " " || self == "\t" || self == "\n" || self == "\r"
    }

    /// The value of an ASCII hexadecimal digit. (`UInt32(_:radix:)` would also take a sign, and
    /// `Character.hexDigitValue` full-width digits.)
    fileprivate var asciiDigitValue: Int? {
        switch value {
        case 0x30...0x39: Int(value) - 0x30
        case 0x41...0x46: Int(value) - 0x41 + 10
        case 0x61...0x66: Int(value) - 0x61 + 10
        default: nil
        }
    }
}
