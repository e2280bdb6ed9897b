internal import CWebKitShim
import Foundation
@_spi(Presenters) import PaymentFlow
import Synchronization

/// One page's link to its TLS relay (PaymentFlow's `PageTLSRelay`): WebKit's network process speaks
/// GnuTLS and cannot be given the kit's pins or a CA-file-only store, so the page's session sends
/// every `https:` and `wss:` connection through a loopback relay the presenter owns. The relay opens
/// the upstream through libcurl with the kit's transport trust (TLS 1.2 or later, the CA file alone,
/// the pins, the kit's proxy) before it reads a byte of the page's request; WebKit then accepts the
/// relay's ephemeral certificate for that host only, because ``admit(_:)`` allowed it just before.
///
/// Threading: the main actor, which is the GTK thread (made, attached and closed there); the relay's
/// calls (``admit(_:)``, ``refused(_:)``) come from its connection threads and wait for the GTK
/// thread, at most 10 s.
@MainActor
final class PageRelayLink {
    /// A refusal that fails the page (a trust failure: pin, chain, TLS version), on the GTK thread.
    var onTrustFailure: ((_ host: String, _ port: Int, _ reason: String) -> Void)?
    /// A host the relay vouched for, the first time (its certificate is allowed), on the GTK thread.
    var onAdmitted: ((_ host: String) -> Void)?
    private var relay: PageTLSRelay?
    private var session: UnsafeMutableRawPointer?
    private var certificate: UnsafeMutableRawPointer?
    private var allowedHosts: Set<String> = []
    private var refusals: [String: PageTLSRelay.Refusal] = [:]
    private var closed = false
    nonisolated private static let patience: DispatchTimeInterval = .seconds(10)

    /// A relay for `trust`, or nil when it cannot start (the page then must not load).
    static func start(trust: PageTrust) -> PageRelayLink? {
        let link = PageRelayLink()
        guard
            let relay = PageTLSRelay(
                transportSecurity: trust.transportSecurity,
                admit: { [weak link] host in link?.admit(host) ?? false },
                refused: { [weak link] refusal in link?.refused(refusal) }),
            let certificate = egwwk_certificate_new_from_pem(relay.certificatePEM)
        else { return nil }
        link.relay = relay
        link.certificate = certificate
        return link
    }

    /// Routes `session`'s HTTPS through the relay, and `http:` as `proxy` says (no host exempt).
    func attach(to session: UnsafeMutableRawPointer?, proxy: PageProxy) {
        guard let session, let relay else { return }
        self.session = session
        egwwk_session_use_relay(session, "http://127.0.0.1:\(relay.port)", proxy.httpProxy ?? proxy.defaultProxy)
    }

    /// What the relay last refused for `host` (the reason a load of it failed), if anything.
    func refusal(forHost host: String) -> String? {
        refusals[Self.key(host)]?.reason
    }

    /// Stops the relay (every relayed connection ends) and forgets the session. GTK thread.
    func close() {
        closed = true
        relay?.stop()
        session = nil
        onTrustFailure = nil
        onAdmitted = nil
        if let certificate { egwwk_object_unref(certificate) }
        certificate = nil
    }

    nonisolated private static func key(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// The relay vouched for `host`: WebKit may accept the relay's certificate for it.
    nonisolated private func admit(_ host: String) -> Bool {
        let answered = DispatchSemaphore(value: 0)
        let allowed = RelayFlag()
        onGTKThread { [self] in
            guard !closed, let session, let certificate else {
                answered.signal()
                return
            }
            refusals[Self.key(host)] = nil  // an earlier refusal no longer names this host's state
            if allowedHosts.contains(host) {
                allowed.value.store(true, ordering: .releasing)
                answered.signal()
                return
            }
            let call = GTKCallback<Void>.retained { [self] in
                if allowedHosts.insert(host).inserted, !closed { onAdmitted?(host) }
                allowed.value.store(!closed, ordering: .releasing)
                answered.signal()
            }
            egwwk_session_allow_certificate_confirmed(
                session, certificate, host, { data in GTKCallback<Void>.call(data, with: ()) }, call)
        }
        return answered.wait(timeout: .now() + Self.patience) == .success && allowed.value.load(ordering: .acquiring)
    }

    /// The relay refused a connection: recorded (and the page failed, for a trust failure) before
    /// the relay answers WebKit, so the page's failure names the real reason.
    nonisolated private func refused(_ refusal: PageTLSRelay.Refusal) {
        let recorded = DispatchSemaphore(value: 0)
        onGTKThread { [self] in
            defer { recorded.signal() }
            guard !closed else { return }
            refusals[Self.key(refusal.host)] = refusal
            if refusal.isTrustFailure { onTrustFailure?(refusal.host, refusal.port, refusal.reason) }
        }
        _ = recorded.wait(timeout: .now() + Self.patience)
    }
}

private final class RelayFlag: Sendable {
    let value = Atomic(false)
}
