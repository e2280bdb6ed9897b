import Foundation
import Testing

@testable import WebKitPresenter

/// The bootstrap page that posts the issuer's `creq` runs script, so a value must never close its
/// attribute. Expected documents are written by hand from EGWWire's HTML escape policy.
@Suite struct AutoPostDocumentTests {
    /// `"` + U+0301 is one `Character` that is not `"`; a grapheme-based escaper wrote it raw and the
    /// value closed the attribute (an `onfocus` handler in the page that runs script).
    @Test func aQuoteBeforeACombiningMarkCannotCloseTheAttribute() throws {
        let url = try #require(URL(string: "https://acs.example/challenge?a=1&b=2"))
        let document = PageLifecycle.autoPostDocument(
            to: url, fields: [("creq", "x\"\u{301} autofocus onfocus=alert(1) y=\""), ("n'\u{301}", "a\u{2028}b\u{0}")])
        #expect(
            document == """
                <!DOCTYPE html>
                <html><head><meta charset="utf-8"><title></title></head><body>
                <form id="egw-start" method="post" action="https://acs.example/challenge?a=1&amp;b=2">\
                <input type="hidden" name="creq" value="x&quot;\u{301} autofocus onfocus=alert(1) y=&quot;">\
                <input type="hidden" name="n&#39;\u{301}" value="a&#x2028;b&#xFFFD;"></form>
                <script>document.getElementById("egw-start").submit();</script>
                </body></html>
                """)
    }
}
