import CardValidation
import Foundation
import Synchronization

/// A published test card and the brand our IIN table (issue 2's ranges) must
/// give it. Every number below was also checked with an independent textbook
/// Luhn in Python (right to left, doubling every second digit).
struct PublishedCard: Sendable, CustomStringConvertible {
    let number: String
    let brand: CardBrand
    let source: String
    var description: String { "\(source) \(number)" }
}

/// Stripe: https://stripe.com/docs/testing ("Test card numbers", also the
/// 2016 archived edition for Diners/JCB). Braintree:
/// https://developer.paypal.com/braintree/docs/reference/general/testing
/// ("Valid card numbers"). Adyen: https://docs.adyen.com/development-resources/test-cards-and-credentials/test-card-numbers
/// (e-commerce list) and the Adyen POS test card V1/V2 PANs. Opayo (Sage Pay)
/// integration test cards. Mastercard Gateway "Test Card Numbers by Brand".
let publishedCards: [PublishedCard] = [
    // Stripe
    PublishedCard(number: "4242424242424242", brand: .visa, source: "Stripe Visa"),
    PublishedCard(number: "4000056655665556", brand: .visa, source: "Stripe Visa debit"),
    PublishedCard(number: "4012888888881881", brand: .visa, source: "Stripe Visa"),
    PublishedCard(number: "5555555555554444", brand: .mastercard, source: "Stripe Mastercard"),
    PublishedCard(number: "2223003122003222", brand: .mastercard, source: "Stripe Mastercard 2-series"),
    PublishedCard(number: "5200828282828210", brand: .mastercard, source: "Stripe Mastercard debit"),
    PublishedCard(number: "5105105105105100", brand: .mastercard, source: "Stripe Mastercard prepaid"),
    PublishedCard(number: "378282246310005", brand: .amex, source: "Stripe American Express"),
    PublishedCard(number: "371449635398431", brand: .amex, source: "Stripe American Express"),
    PublishedCard(number: "6011111111111117", brand: .discover, source: "Stripe Discover"),
    PublishedCard(number: "6011000990139424", brand: .discover, source: "Stripe Discover"),
    PublishedCard(number: "6011981111111113", brand: .discover, source: "Stripe Discover debit"),
    PublishedCard(number: "30569309025904", brand: .unknown, source: "Stripe Diners Club (other network)"),
    PublishedCard(number: "38520000023237", brand: .unknown, source: "Stripe Diners Club (other network)"),
    PublishedCard(number: "3530111333300000", brand: .unknown, source: "Stripe JCB (other network)"),
    PublishedCard(number: "3566002020360505", brand: .unknown, source: "Stripe JCB (other network)"),
    // Braintree
    PublishedCard(number: "4111111111111111", brand: .visa, source: "Braintree Visa"),
    PublishedCard(number: "36259600000004", brand: .unknown, source: "Braintree Diners Club (other network)"),
    PublishedCard(number: "6011000991300009", brand: .discover, source: "Braintree Discover"),
    PublishedCard(number: "6304000000000000", brand: .maestro, source: "Braintree Maestro"),
    // Adyen e-commerce
    PublishedCard(number: "5100081112223332", brand: .mastercard, source: "Adyen Mastercard"),
    PublishedCard(number: "5577000055770004", brand: .mastercard, source: "Adyen Mastercard"),
    PublishedCard(number: "5136333333333335", brand: .mastercard, source: "Adyen Mastercard"),
    PublishedCard(number: "5500000000000004", brand: .mastercard, source: "Adyen Mastercard debit"),
    PublishedCard(number: "4988438843884305", brand: .visa, source: "Adyen Visa"),
    PublishedCard(number: "4166676667666746", brand: .visa, source: "Adyen Visa"),
    PublishedCard(number: "4400000000000008", brand: .visa, source: "Adyen Visa debit"),
    PublishedCard(number: "370000000000002", brand: .amex, source: "Adyen American Express"),
    // Adyen POS test cards
    PublishedCard(number: "6799998900000099990", brand: .maestro, source: "Adyen POS Maestro (19 digits)"),
    PublishedCard(number: "2308880000000000", brand: .mastercard, source: "Adyen POS Mastercard BR"),
    PublishedCard(number: "4151500000000008", brand: .visa, source: "Adyen POS Visa"),
    // Opayo
    PublishedCard(number: "4929000000006", brand: .visa, source: "Opayo Visa (13 digits)"),
    PublishedCard(number: "6759000000005", brand: .maestro, source: "Opayo Maestro UK (13 digits)"),
    PublishedCard(number: "6705000000008", brand: .maestro, source: "Opayo Maestro DE (13 digits)"),
    PublishedCard(number: "374200000000004", brand: .amex, source: "Opayo American Express"),
    PublishedCard(number: "3569990000000009", brand: .unknown, source: "Opayo JCB (other network)"),
    // Mastercard Gateway
    PublishedCard(number: "2223000000000007", brand: .mastercard, source: "Mastercard Gateway 2-series"),
    PublishedCard(number: "5123450000000008", brand: .mastercard, source: "Mastercard Gateway"),
    PublishedCard(number: "371881634498004", brand: .amex, source: "Mastercard Gateway Amex"),
]

/// Unix times, each computed with GNU date (`date -u -d 2026-11-29T12:00:00Z +%s`).
enum Instant {
    static let nov29_2026 = Date(timeIntervalSince1970: 1_795_953_600)  // 2026-11-29T12:00:00Z
    static let nov30_2026_lastSecond = Date(timeIntervalSince1970: 1_796_083_199)  // 2026-11-30T23:59:59Z
    static let dec01_2026_midnight = Date(timeIntervalSince1970: 1_796_083_200)  // 2026-12-01T00:00:00Z
    static let dec31_2026_lastSecond = Date(timeIntervalSince1970: 1_798_761_599)  // 2026-12-31T23:59:59Z
    static let jan01_2027_midnight = Date(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01T00:00:00Z
    static let nov30_2026_2330 = Date(timeIntervalSince1970: 1_796_081_400)  // 2026-11-30T23:30:00Z
    static let jan15_2026 = Date(timeIntervalSince1970: 1_768_478_400)  // 2026-01-15T12:00:00Z
    static let jun15_2099 = Date(timeIntervalSince1970: 4_085_164_800)  // 2099-06-15T00:00:00Z
}

/// A clock a test can move.
final class MovableClock: Sendable {
    private let current: Mutex<Date>
    init(_ date: Date) { current = Mutex(date) }
    func set(_ date: Date) { current.withLock { $0 = date } }
    var clock: CardClock { CardClock(timeZone: .gmt, now: { [self] in current.withLock { $0 } }) }
}

/// A valid card at 2026-11-29 UTC, one field at a time replaceable.
func validCard(
    name: String = "Jane Doe", number: String = "4242 4242 4242 4242", month: String = "12", year: String = "30",
    code: String = "737", at date: Date = Instant.nov29_2026
) -> CardInput {
    CardInput(
        cardholderName: name, cardNumber: number, expiryMonth: month, expiryYear: year, securityCode: code,
        clock: .fixed(date))
}

/// A second, textbook Luhn (right to left, double every second digit,
/// subtract 9 above 9), written independently of the package's forward pass.
func referenceLuhn(_ digits: String) -> Bool {
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
    var sum = 0
    for (index, character) in digits.reversed().enumerated() {
        var value = Int(String(character))!
        if index % 2 == 1 {
            value *= 2
            if value > 9 { value -= 9 }
        }
        sum += value
    }
    return sum % 10 == 0
}
