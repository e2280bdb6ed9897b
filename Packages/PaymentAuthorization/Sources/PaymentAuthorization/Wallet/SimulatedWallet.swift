import CardValidation
import Foundation
import Synchronization

/// A card in the simulated wallet: the card itself and whether it is credit or debit.
///
/// Shown only as ``displayName`` (`Visa •••• 1111`); `description` is the same, so the number and the
/// security code never reach a log, a sheet or a transcript.
public struct WalletCard: Sendable, CustomStringConvertible {
    /// Credit or debit (`PKPaymentMethodType`).
    public enum Funding: String, Sendable, Equatable {
        /// A credit card.
        case credit
        /// A debit card.
        case debit
    }

    /// The card. `CardInput`'s own description is masked too.
    public let card: CardInput
    /// Credit or debit.
    public let funding: Funding

    /// A wallet card.
    public init(_ card: CardInput, funding: Funding = .credit) {
        self.card = card
        self.funding = funding
    }

    /// The card's network.
    public var network: CardBrand { card.brand }

    /// `Visa •••• 1111`: the brand's name and the last four digits.
    public var displayName: String { "\(card.brand.displayName) \(CardNumber.masked(card.cardNumber))" }

    /// The same as ``displayName``.
    public var description: String { displayName }
}

/// The stand-in for the device's Apple Pay wallet: whether the device can pay at all, its cards and its
/// contacts. Thread-safe; a sheet reads it once, when it is presented.
public final class SimulatedWallet: Sendable {
    private struct State {
        var isDeviceSupported: Bool
        var cards: [WalletCard]
        var contacts: [Contact]
    }

    private let state: Mutex<State>

    /// The wallet the `canMakePayments` class methods read by default: supported, empty.
    public static let `default` = SimulatedWallet()

    /// A wallet; `isDeviceSupported` false simulates a device without Apple Pay.
    public init(isDeviceSupported: Bool = true, cards: [WalletCard] = [], contacts: [Contact] = []) {
        state = Mutex(State(isDeviceSupported: isDeviceSupported, cards: cards, contacts: contacts))
    }

    /// Whether the device supports paying at all.
    public var isDeviceSupported: Bool {
        get { state.withLock { $0.isDeviceSupported } }
        set { state.withLock { $0.isDeviceSupported = newValue } }
    }

    /// The cards, in the order added.
    public var cards: [WalletCard] { state.withLock { $0.cards } }

    /// The contacts, in the order added.
    public var contacts: [Contact] { state.withLock { $0.contacts } }

    /// Adds a card.
    public func add(_ card: WalletCard) { state.withLock { $0.cards.append(card) } }

    /// Adds a contact.
    public func add(_ contact: Contact) { state.withLock { $0.contacts.append(contact) } }

    /// Removes every card and contact.
    public func clear() {
        state.withLock {
            $0.cards.removeAll()
            $0.contacts.removeAll()
        }
    }

    /// Whether `card` can pay a merchant with these networks and capabilities: its network is listed, and
    /// its funding is accepted (with neither `.credit` nor `.debit` in `capabilities`, both are).
    public static func accepts(
        _ card: WalletCard, networks: [CardBrand], capabilities: MerchantCapabilities?
    ) -> Bool {
        guard networks.contains(card.network), card.network != .unknown else { return false }
        guard let capabilities else { return true }
        if capabilities.isDisjoint(with: [.threeDSecure, .emv]) { return false }
        let funding = capabilities.intersection([.credit, .debit])
        if funding.isEmpty { return true }
        return funding.contains(card.funding == .credit ? .credit : .debit)
    }
}
