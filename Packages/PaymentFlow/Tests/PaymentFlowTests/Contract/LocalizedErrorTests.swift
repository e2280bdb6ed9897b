import BuyerText
import CardValidation
import Foundation
import Testing

@testable import PaymentFlow

/// The `localizedDescription` of the SDK's errors follows BuyerText's table for the language (issue 22):
/// English as the contract has always written it, Latvian from the same table PaymentUI shows. The
/// expected sentences are written out here by hand, not read from the tables.
@Suite struct LocalizedErrorTests {
    static let english = BuyerText(language: "en")
    static let latvian = BuyerText(language: "lv")

    @Test func englishIsSummaryReasonAndAdvice() {
        let error = FlowError(.networkError, "could not connect to api.example", source: "POST card-sessions")
            .nsError(in: Self.english)
        #expect(
            error.localizedDescription
                == "The network request failed: could not connect to api.example. "
                + "Check connectivity and the configured base URLs, then retry.")
        #expect(error.localizedFailureReason == "could not connect to api.example")
        #expect(error.localizedRecoverySuggestion == "Check connectivity and the configured base URLs, then retry.")
    }

    @Test func latvianHasTheTablesWordsAndKeepsTheEnglishReasonApart() {
        let error = FlowError(.networkError, "could not connect to api.example").nsError(in: Self.latvian)
        #expect(
            error.localizedDescription
                == "Tīkla pieprasījums neizdevās. Pārbaudiet savienojumu un konfigurētos bāzes URL, tad mēģiniet vēlreiz."
        )
        #expect(error.localizedFailureReason == "could not connect to api.example")
        #expect(
            error.localizedRecoverySuggestion
                == "Pārbaudiet savienojumu un konfigurētos bāzes URL, tad mēģiniet vēlreiz.")
        #expect(error.code == 4 && error.domain == "com.egw.egwpay")
    }

    /// Issue 32: the same error in Estonian, Lithuanian and Russian, written out by hand.
    @Test(arguments: [
        (
            "et",
            "Võrgupäring ebaõnnestus. Kontrollige võrguühendust ja seadistatud baas-URL-e ning proovige uuesti."
        ),
        (
            "lt",
            "Tinklo užklausa nepavyko. Patikrinkite ryšį ir sukonfigūruotus bazinius URL, tada bandykite dar kartą."
        ),
        (
            "ru",
            "Сетевой запрос не выполнен. Проверьте подключение к сети и настроенные базовые URL, затем повторите попытку."
        ),
    ])
    func theNetworkErrorInEveryBalticLanguage(language: String, expected: String) {
        let error = FlowError(.networkError, "could not connect to api.example").nsError(
            in: BuyerText(language: language))
        #expect(error.localizedDescription == expected)
        #expect(error.localizedFailureReason == "could not connect to api.example")
    }

    @Test func aCardProblemIsToldInLatvianToo() {
        var failure = FlowError(
            .cardValidationFailed, "The card number is incomplete: a card number has 12 to 19 digits.")
        failure.cardIssue = CardValidationIssue(field: .cardNumber, reason: .tooShort, state: .incomplete)
        let error = failure.nsError(in: Self.latvian)
        #expect(
            error.localizedDescription
                == "Kartes dati nav derīgi: Kartes numurs nav pilnīgs: kartes numurā ir no 12 līdz 19 cipariem. "
                + "Palūdziet pircējam izlabot kartes datus.")
    }

    @Test func aPaymentInDoubtAdvisesAskingTheBackendInEitherLanguage() {
        let failure = FlowError(.statusLookupFailed, "GET status timed out").markedInDoubt
        #expect(
            failure.nsError(in: Self.english).localizedRecoverySuggestion
                == "The payment may have gone through: ask your backend for its status; do not ask the buyer to pay again."
        )
        #expect(
            failure.nsError(in: Self.latvian).localizedRecoverySuggestion
                == "Maksājums, iespējams, ir izdevies: noskaidrojiet tā statusu savā serverī; nelūdziet pircējam maksāt vēlreiz."
        )
        #expect(FlowError.inDoubtAdvice(in: Self.latvian).hasPrefix("Maksājums, iespējams"))
    }

    @Test(arguments: PaymentError.Code.allCases)
    func everyCodeSpeaksBothLanguages(_ code: PaymentError.Code) {
        let reason = "reason \(code.rawValue)"
        let english = FlowError(code, reason).nsError(in: Self.english).localizedDescription
        let latvian = FlowError(code, reason).nsError(in: Self.latvian).localizedDescription
        #expect(english.contains(": \(reason). "), "English keeps the reason")
        #expect(!latvian.contains(reason), "a Latvian sentence has no English reason in it")
        #expect(english != latvian)
        for text in [english, latvian] {
            #expect(!text.contains("sdk.error"), "no key shows through: \(text)")
            #expect(text.hasSuffix("."))
        }
    }

    @Test func anUnderlyingSDKErrorIsInTheSameLanguage() throws {
        let cause = FlowError(.networkError, "reset by peer")
        let error = cause.wrapped(as: .encryptionKeyUnavailable, "the key could not be fetched")
            .nsError(in: Self.latvian)
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.localizedDescription.hasPrefix("Tīkla pieprasījums neizdevās."))
        #expect(error.localizedDescription.hasPrefix("Kartes datu šifrēšanas atslēga nav pieejama."))
    }

    /// The process's own locale picks the table: these tests run with the locale `swift test` is given, and
    /// an app's error is the same as the one made in that language explicitly.
    @Test func theAppsErrorFollowsTheProcesssLocale() {
        let failure = FlowError(.authenticationFailed, "ARes status N")
        #expect(failure.nsError.localizedDescription == failure.nsError(in: .current).localizedDescription)
        #expect(
            BuyerText.current.language
                == BuyerText.language(environment: ProcessInfo.processInfo.environment))
    }
}
