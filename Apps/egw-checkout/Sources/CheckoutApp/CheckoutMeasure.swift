internal import CCheckoutGtk
import Foundation
import PaymentFlow
import WebKitPresenter

/// `--measure`: what measure.sh times in the shop once its first frame is drawn, printed on stdout, then quit.
/// Start-up (`--exit-when-shown`) is timed from `main`; these from the moment the window is asked for.
@MainActor
enum CheckoutMeasure {
    /// The sandbox's challenged Mastercard (GATEWAY.md's test cards), as the wallet's second card.
    static let challengedCard = CardInput(
        cardholderName: "Jane Doe", cardNumber: "5555555555554444", expiryMonth: "12", expiryYear: "35",
        securityCode: "987")

    private static var presentedAt: ContinuousClock.Instant?
    private static var measuringChallenge = false
    private static var firstFrame: Action?

    static func start(_ measurement: CheckoutOptions.Measurement, shop: CheckoutWindow) {
        switch measurement {
        case .sheet:
            let asked = ContinuousClock.now
            shop.payWithWallet()
            whenSheetShows(shop, asked: asked)
        case .challenge:
            measuringChallenge = true
            shop.pay(challengedCard) { _ in GTKRuntime.quit() }
        case .payments(let count): pay(shop, remaining: count, done: 0, total: count)
        }
    }

    /// Waits (checking every 2 ms) for the sheet's window, then prints at its first frame.
    private static func whenSheetShows(_ shop: CheckoutWindow, asked: ContinuousClock.Instant) {
        guard let window = shop.sheet?.windowReference else {
            DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(2)) {
                MainActor.assumeIsolated { whenSheetShows(shop, asked: asked) }
            }
            return
        }
        let action = Action {
            print(
                String(
                    format: "egw-checkout: sheet first frame after %.0f ms", milliseconds(ContinuousClock.now - asked)))
            GTKRuntime.quit()
        }
        firstFrame = action
        window.withUnsafePointer {
            ckt_on_first_frame(
                $0.assumingMemoryBound(to: GtkWidget.self), Action.callback, Unmanaged.passUnretained(action).toOpaque()
            )
        }
    }

    /// The presenter's events (on GTK's thread): the challenge window's present and first paint.
    nonisolated static func pageEvent(_ event: WebKitPagePresenter.Event) {
        MainActor.assumeIsolated {
            switch event {
            case .presented: if presentedAt == nil { presentedAt = .now }
            case .painted:
                guard measuringChallenge, let presentedAt else { return }
                measuringChallenge = false
                print(
                    String(
                        format: "egw-checkout: challenge first frame after %.0f ms",
                        milliseconds(ContinuousClock.now - presentedAt)))
                GTKRuntime.quit()
            default: break
            }
        }
    }

    /// Pays `remaining` challenged payments one after another; prints WebKit's RSS after 10 and at the end.
    private static func pay(_ shop: CheckoutWindow, remaining: Int, done: Int, total: Int) {
        guard remaining > 0 else {
            print("egw-checkout: webkit RSS after \(total) payments \(webKitResidentKiB()) KiB")
            GTKRuntime.quit()
            return
        }
        shop.pay(challengedCard) { outcome in
            if outcome != .succeeded { print("egw-checkout: payment \(done + 1) ended \(outcome)") }
            // Let the closed page's web process go before reading RSS.
            DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(done + 1 == 10 ? 500 : 20)) {
                MainActor.assumeIsolated {
                    if done + 1 == 10 { print("egw-checkout: webkit RSS after 10 payments \(webKitResidentKiB()) KiB") }
                    pay(shop, remaining: remaining - 1, done: done + 1, total: total)
                }
            }
        }
    }

    /// The resident set of every process below this one (WebKit's web and network processes, and
    /// bubblewrap's around them), in KiB.
    static func webKitResidentKiB() -> Int {
        let root = getpid()
        var parents: [Int32: Int32] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = Int32(fields[1]) { parents[pid] = parent }
        }
        var below: Set<Int32> = []
        var changed = true
        while changed {
            changed = false
            for (pid, parent) in parents where !below.contains(pid) && (parent == root || below.contains(parent)) {
                below.insert(pid)
                changed = true
            }
        }
        return below.reduce(0) { total, pid in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return total + (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0)
        }
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
