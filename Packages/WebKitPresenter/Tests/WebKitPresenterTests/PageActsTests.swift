import CWebKitShim
import Foundation
import PaymentFlow
import Testing

@testable import WebKitPresenter

/// The names of what the shim refused, and the document PageSnapshotter renders (its network test is
/// in Tests/EndToEnd: WebKitPageWindowTests).
struct PageActsTests {
    @Test func eachDialogIsReportedWithItsLengthOnly() {
        let kinds: [(egwwk_act, PageDialog)] = [
            (.alert, .alert), (.confirm, .confirm), (.prompt, .prompt),
            (.beforeUnload, .beforeUnload),
        ]
        for (act, dialog) in kinds {
            #expect(
                PageActs.refusal(act: act, uri: "https://pay.example/x", length: 26)
                    == .dialog(dialog, messageLength: 26))
        }
    }

    @Test func aDownloadCarriesItsURLAndOneWithoutAURLNothing() {
        #expect(
            PageActs.refusal(act: .download, uri: "https://pay.example/a.pdf", length: 0)
                == .download(URL(string: "https://pay.example/a.pdf")!))
        #expect(PageActs.refusal(act: .download, uri: "", length: 0) == nil)
    }

    @Test func thePolicyComesBeforeAnyOfThePagesMarkup() {
        let sealed = SealedSnapshot.document("<html><head><link rel=stylesheet href=/a.css></head></html>")
        #expect(sealed.hasPrefix("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"))
        #expect(sealed.hasSuffix("<html><head><link rel=stylesheet href=/a.css></head></html>"))
    }

    @Test func aLeadingDoctypeStaysFirst() {
        let sealed = SealedSnapshot.document("\u{FEFF}\n<!DOCTYPE html><img src=//x/y.png>")
        #expect(sealed.hasPrefix("\n<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\""))
        #expect(sealed.hasSuffix("><img src=//x/y.png>"))
        #expect(!sealed.contains("\u{FEFF}"))
    }
}
