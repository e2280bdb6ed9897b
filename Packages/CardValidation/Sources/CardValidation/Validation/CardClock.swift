import Foundation

/// The source of "today" for the expiry check: a time and the time zone whose
/// calendar month counts.
///
/// A card is valid through the last day of its expiry month in ``timeZone``
/// (the buyer's own time zone by default, as the card's printed date reads on
/// the buyer's calendar). Tests inject a fixed time:
///
/// ```swift
/// // 2026-11-29T12:00:00Z
/// let card = CardInput(clock: .fixed(Date(timeIntervalSince1970: 1_795_953_600)))
/// ```
public struct CardClock: Sendable {
    /// The time zone whose calendar decides which month it is.
    public var timeZone: TimeZone
    /// Returns the current time; called once per expiry check.
    public var now: @Sendable () -> Date

    /// A clock reading `now` and judging months in `timeZone`.
    public init(timeZone: TimeZone = .current, now: @escaping @Sendable () -> Date = { Date() }) {
        self.timeZone = timeZone
        self.now = now
    }

    /// The system clock in the process's current time zone.
    public static var system: CardClock { CardClock() }

    /// A clock that always reads `date`, judging months in `timeZone`
    /// (UTC by default).
    public static func fixed(_ date: Date, timeZone: TimeZone = .gmt) -> CardClock {
        CardClock(timeZone: timeZone, now: { date })
    }
}

/// A calendar month, e.g. November 2026.
struct YearMonth: Hashable, Comparable, Sendable {
    var year: Int
    var month: Int

    static func < (lhs: YearMonth, rhs: YearMonth) -> Bool {
        (lhs.year, lhs.month) < (rhs.year, rhs.month)
    }
}

/// The instants a calendar month spans in one time zone, so that "which month
/// is it" is two comparisons until the month ends (Foundation's calendar
/// arithmetic costs microseconds; a keystroke-rate validator should not pay it
/// every time).
struct MonthWindow: Sendable {
    var start: Date
    var end: Date
    var month: YearMonth

    func contains(_ date: Date) -> Bool { start <= date && date < end }

    /// The month containing `date` in `timeZone`.
    init(containing date: Date, timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month], from: date)
        month = YearMonth(year: parts.year ?? 1970, month: parts.month ?? 1)
        let first = calendar.date(from: parts)
        let next = first.flatMap { calendar.date(byAdding: .month, value: 1, to: $0) }
        if let first, let next, first <= date, date < next {
            start = first
            end = next
        } else {
            // Not expected; an empty window just means "recompute next time".
            start = date
            end = date
        }
    }
}
