internal import CWebKitShim
import Foundation
import Glibc
import PaymentFlow

/// What a page may not do outside its window (egw_webkit_acts.c refuses it; this names it for the SDK):
/// a download is cancelled before a file is written, a JavaScript dialog is answered without being
/// shown (alert dismissed, confirm `false`, prompt `null`, beforeunload "leave"). Pop-ups are the
/// navigation's business (WebPage opens them in the same view) and reported there.
enum PageActs {
    /// The report of the shim's act `act`; `nil` for a download without a URL. `uri` is the download's
    /// URL; `length` a dialog message's characters.
    static func refusal(act: egwwk_act, uri: String, length: Int) -> PageRefusal? {
        switch act {
        case .download: URL(string: uri).map { .download($0) }
        case .alert: .dialog(.alert, messageLength: max(0, length))
        case .confirm: .dialog(.confirm, messageLength: max(0, length))
        case .prompt: .dialog(.prompt, messageLength: max(0, length))
        case .beforeUnload: .dialog(.beforeUnload, messageLength: max(0, length))
        }
    }
}

/// The document PageSnapshotter renders: the served HTML behind a Content-Security-Policy that lets
/// nothing load (no image, style sheet, font, script, frame, media or object from any URL; inline
/// styles and `data:` images and fonts still render). The policy comes first in the document, after
/// a leading doctype only (so the rendering mode stays the page's), before any of the page's own
/// markup can start a load; a page's own policy can only narrow it further.
enum SealedSnapshot {
    static let policy =
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; form-action 'none'; base-uri 'none'"

    static func document(_ html: String) -> String {
        let meta = "<meta http-equiv=\"Content-Security-Policy\" content=\"\(policy)\">"
        let body = html.drop { $0 == "\u{FEFF}" }
        let leading = body.prefix { $0.isWhitespace }
        let rest = body.dropFirst(leading.count)
        guard rest.prefix(9).lowercased() == "<!doctype", let end = rest.firstIndex(of: ">") else {
            return meta + body
        }
        let doctype = rest[...end]
        return leading + doctype + meta + rest[rest.index(after: end)...]
    }
}

/// A TCP port on 127.0.0.1 that is bound and never listened on, held until ``close()``: every connection
/// to it is refused by the kernel at once, and no other program can take the port meanwhile. The
/// snapshotter's session uses it as its proxy, so a load the policy missed connects nowhere.
final class RefusingPort {
    private var socket: Int32
    /// The port; `nil` when none could be bound (the policy alone then keeps the loads out).
    let port: UInt16?

    init() {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound =
            fd >= 0
            && withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
                }
            }
        socket = fd
        port = bound ? UInt16(bigEndian: address.sin_port) : nil
    }

    func close() {
        if socket >= 0 { _ = Glibc.close(socket) }
        socket = -1
    }

    deinit { close() }
}
