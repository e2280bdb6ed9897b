/// Brand lookup derived once from ``CardBrand/iinRanges``.
///
/// For every prefix length `L` from 1 to the longest range (4 digits) and every
/// `L`-digit prefix, the table stores the brand that prefix decides, so that
/// detection is a scan of at most four digits and one array load. The table is
/// computed from the ranges, never typed by hand, so the ranges stay the one
/// source of truth.
@usableFromInline
enum IINTable {
    /// The brand decided by each prefix, as `CardBrand.rawValue`, laid out
    /// length by length: prefixes of length `L` start at `base(L)`.
    @usableFromInline
    static let lookup: [UInt8] = build(CardBrand.iinRanges)

    /// What every brand's numbers look like, indexed by `CardBrand.rawValue`,
    /// read once from its rows of the table (see ``layout(of:in:)``).
    static let layouts: [BrandLayout] = CardBrand.allCases.map { layout(of: $0, in: CardBrand.iinRanges) }

    /// A brand's longest number, code length and display groups.
    struct BrandLayout: Sendable, Equatable {
        var maximumNumberLength: Int
        var securityCodeLength: Int
        var numberGrouping: [Int]
    }

    /// The layout of a number no row recognises: the longest any card can be,
    /// a code that may still be Amex's four digits, the common grouping.
    static let unrecognized = BrandLayout(
        maximumNumberLength: CardNumber.maximumLength, securityCodeLength: 4, numberGrouping: [4, 4, 4, 4, 3])

    /// `brand`'s layout from its rows: the longest of their lengths, the
    /// longest code, the first row's grouping (the tests check a brand's rows
    /// agree); ``unrecognized`` for a brand with no row.
    static func layout(of brand: CardBrand, in ranges: [IINRange]) -> BrandLayout {
        let rows = ranges.filter { $0.brand == brand }
        guard let first = rows.first else { return unrecognized }
        return BrandLayout(
            maximumNumberLength: rows.flatMap(\.panLengths).max() ?? CardNumber.maximumLength,
            securityCodeLength: rows.map(\.securityCodeLength).max() ?? first.securityCodeLength,
            numberGrouping: first.numberGrouping)
    }

    /// The most digits any range compares (4 for the built-in table).
    @usableFromInline
    static let maxDigits: Int = CardBrand.iinRanges.map(\.digits).max() ?? 1

    /// Index of the first prefix of length `length`: 0, 10, 110, 1110, ...
    @inlinable
    static func base(_ length: Int) -> Int {
        var base = 0
        var power = 1
        for _ in 1..<max(length, 1) {
            power &*= 10
            base &+= power
        }
        return base
    }

    /// Detection over UTF-8 bytes: the brand's raw value, or -1 when a
    /// non-ASCII byte appears among the leading digits (the caller then uses
    /// ``detect(scalars:)``, which knows Unicode spaces and dashes).
    @usableFromInline
    static func detectRaw(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let wanted = maxDigits
        var value = 0
        var count = 0
        var index = 0
        while index < bytes.count, count < wanted {
            let byte = bytes[index]
            index &+= 1
            let digit = byte &- UInt8(ascii: "0")
            if digit < 10 {
                value = value &* 10 &+ Int(digit)
                count &+= 1
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "\t") {
                continue
            } else if byte >= 0x80 {
                return -1
            } else {
                return CardBrand.unknown.rawValue
            }
        }
        guard count > 0 else { return CardBrand.unknown.rawValue }
        let slot = base(count) &+ value
        return slot < lookup.count ? Int(lookup[slot]) : CardBrand.unknown.rawValue
    }

    /// Detection over UTF-8 bytes read in place (a sensitive buffer's), as ``CardBrand/detect(_:)``.
    static func detect(utf8 bytes: UnsafeBufferPointer<UInt8>) -> CardBrand {
        let raw = detectRaw(utf8: bytes)
        if raw >= 0, let brand = CardBrand(rawValue: raw) { return brand }
        return detect(scalars: UTF8Scalars(bytes: bytes))
    }

    /// Detection over Unicode scalars (the general path).
    @usableFromInline
    static func detect(scalars: some Sequence<Unicode.Scalar>) -> CardBrand {
        let wanted = maxDigits
        var value = 0
        var count = 0
        for scalar in scalars {
            if count == wanted { break }
            if let digit = CardNumberScanner.asciiDigit(scalar) {
                value = value &* 10 &+ digit
                count &+= 1
            } else if !CardNumberScanner.isSeparator(scalar) {
                return .unknown
            }
        }
        return brand(prefix: value, length: count)
    }

    /// The brand decided by the `length`-digit prefix `prefix`.
    @usableFromInline
    static func brand(prefix: Int, length: Int) -> CardBrand {
        guard length > 0 else { return .unknown }
        let index = base(min(length, maxDigits)) &+ prefix
        guard index >= 0, index < lookup.count else { return .unknown }
        return CardBrand(rawValue: Int(lookup[index])) ?? .unknown
    }

    /// Builds the lookup from the ranges. For a prefix `p` of length `L`:
    /// - the ranges no longer than `L` that contain `p`'s head compete, the one
    ///   with the most digits wins (the most specific range);
    /// - every longer range that some completion of `p` can still reach adds
    ///   its brand as a possibility;
    /// - exactly one possible brand decides; none or several give `.unknown`.
    static func build(_ ranges: [IINRange]) -> [UInt8] {
        let longest = ranges.map(\.digits).max() ?? 1
        var table: [UInt8] = []
        table.reserveCapacity(base(longest + 1))
        var power = 1
        for length in 1...longest {
            power *= 10
            for prefix in 0..<power {
                table.append(UInt8(decide(prefix: prefix, length: length, ranges: ranges).rawValue))
            }
        }
        return table
    }

    static func decide(prefix: Int, length: Int, ranges: [IINRange]) -> CardBrand {
        var bestDigits = 0
        var best: Set<CardBrand> = []
        var possible: Set<CardBrand> = []
        for range in ranges {
            if range.digits <= length {
                let head = prefix / pow10(length - range.digits)
                guard range.low <= head, head <= range.high else { continue }
                if range.digits > bestDigits {
                    bestDigits = range.digits
                    best = [range.brand]
                } else if range.digits == bestDigits {
                    best.insert(range.brand)
                }
            } else {
                let scale = pow10(range.digits - length)
                if range.low / scale <= prefix, prefix <= range.high / scale {
                    possible.insert(range.brand)
                }
            }
        }
        possible.formUnion(best)
        return possible.count == 1 ? possible.first ?? .unknown : .unknown
    }

    static func pow10(_ exponent: Int) -> Int {
        var result = 1
        for _ in 0..<max(exponent, 0) { result *= 10 }
        return result
    }
}
