import EGWWire
import ReplCore

extension Shell {
    /// `buyer hosted|challenge|close|show|clear`: what the buyer does on the next pages.
    func runBuyer(_ command: BuyerCommand) {
        switch command {
        case .hosted(let choice):
            queueBuyer(.hosted(choice))
        case .challenge(let code):
            queueBuyer(.challenge(code: code))
        case .close:
            queueBuyer(.close)
        case .show:
            showBuyer()
        case .clear:
            buyer.clear()
            note("Buyer actions cleared.")
        }
    }

    func queueBuyer(_ step: BuyerStep) {
        buyer.queue(step)
        note("Buyer will: \(step) (\(buyer.queued.count) queued).")
    }

    func showBuyer() {
        if options.json {
            console.out(JSONValue.array(buyer.queued.map { .string($0.description) }).jsonText)
            return
        }
        if buyer.queued.isEmpty {
            let fallback = source.isInteractive ? "the shell will ask you" : "pages will be closed"
            console.out("No buyer actions queued: \(fallback).")
            return
        }
        for (index, step) in buyer.queued.enumerated() {
            console.out("  \(index + 1). \(step)")
        }
    }
}
