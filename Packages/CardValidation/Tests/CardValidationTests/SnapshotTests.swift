import CardValidation
import Foundation
import Testing

@Suite("CardInput snapshots")
struct SnapshotTests {
    /// Cards with one bad field each (and a valid one), at 2026-11-29 UTC.
    static let cards: [CardInput] = [
        validCard(),
        validCard(name: " "),
        validCard(number: "4242 4242 4242 4241"),
        validCard(number: "4242x"),
        validCard(month: "13"),
        validCard(month: "10", year: "26"),  // October 2026: expired
        validCard(year: "3"),
        validCard(code: "73"),
        validCard(name: "", number: "", month: "", year: "", code: ""),
    ]

    @Test("a snapshot judges exactly as its card", arguments: cards)
    func sameRulesSameAnswers(card: CardInput) {
        let snapshot = card.snapshot()
        #expect(snapshot.firstIssue == card.firstIssue)
        #expect(snapshot.isValid == card.isValid)
        for field in CardField.allCases {
            #expect(snapshot.validationIssue(for: field) == card.validationIssue(for: field))
            #expect(snapshot.fieldState(for: field) == card.fieldState(for: field))
            let fromSnapshot = snapshot.validationError(for: field)
            let fromCard = card.validationError(for: field)
            #expect(fromSnapshot?.code == fromCard?.code)
            #expect(fromSnapshot?.localizedDescription == fromCard?.localizedDescription)
            #expect(
                fromSnapshot?.userInfo[CardValidationIssue.reasonUserInfoKey] as? String
                    == fromCard?.userInfo[CardValidationIssue.reasonUserInfoKey] as? String)
        }
    }

    @Test func aSnapshotKeepsWhatWasRead() {
        let card = validCard()
        let snapshot = card.snapshot()
        card.cardNumber = "4242 4242 4242 4241"
        card.securityCode = ""
        #expect(snapshot.cardNumber == "4242 4242 4242 4242")
        #expect(snapshot.securityCode == "737")
        #expect(snapshot.isValid)
        #expect(!card.isValid)
        #expect(snapshot.brand == .visa)
    }

    /// Equal when the five fields are equal (what a payment machine compares); the clock is not part of
    /// the value.
    @Test func snapshotsAreEqualWhenTheirFieldsAre() {
        let snapshot = validCard().snapshot()
        #expect(snapshot == validCard().snapshot())
        #expect(snapshot == validCard(at: Instant.jan01_2027_midnight).snapshot(), "another clock, the same card")
        let others = [
            validCard(name: "Jane Doe "), validCard(number: "4242424242424242"), validCard(month: "11"),
            validCard(year: "31"), validCard(code: "738"),
        ]
        for other in others {
            #expect(snapshot != other.snapshot(), "\(other)")
        }
        let card = validCard()
        let before = card.snapshot()
        card.securityCode = "738"
        #expect(before != card.snapshot(), "a snapshot taken after an edit differs")
    }

    @Test func theFirstIssueFollowsFormOrder() {
        let snapshot = validCard(name: "", number: "1", code: "").snapshot()
        #expect(snapshot.firstIssue?.field == .cardholderName)
        #expect(snapshot.firstIssue?.reason == .missing)
    }

    @Test func theExpiryIsJudgedByTheCardsClock() {
        let clock = MovableClock(Instant.nov30_2026_lastSecond)
        let snapshot = CardInput(
            cardholderName: "A", cardNumber: "4242424242424242", expiryMonth: "11", expiryYear: "26",
            securityCode: "737", clock: clock.clock
        ).snapshot()
        #expect(snapshot.isValid)
        clock.set(Instant.dec01_2026_midnight)
        #expect(snapshot.firstIssue?.reason == .expired)
    }

    @Test func noCardDataInItsViews() {
        let snapshot = validCard(name: "Jane Doe", number: "4000 0566 5566 5556", code: "7391").snapshot()
        var dumped = ""
        dump(snapshot, to: &dumped)
        for shown in [snapshot.description, snapshot.debugDescription, String(reflecting: snapshot), dumped] {
            #expect(shown.contains("•••• 5556"))
            for window in ["40005", "05665", "56655", "7391", "Jane"] {
                #expect(!shown.contains(window), "\(shown)")
            }
        }
        #expect(snapshot.description.hasPrefix("CardInput.Snapshot(brand: visa, cardNumber: •••• 5556,"))
    }
}
