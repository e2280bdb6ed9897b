import CardValidation

// The Objective-C names (`EGW` prefix), as for the rest of the SDK: Linux has no Objective-C runtime;
// these aliases let code written against either name read the same.

/// ``PaymentAuthorizationController``.
public typealias EGWPaymentAuthorizationController = PaymentAuthorizationController
/// ``PaymentAuthorizationControllerDelegate``.
public typealias EGWPaymentAuthorizationControllerDelegate = PaymentAuthorizationControllerDelegate
/// ``PaymentAuthorizationRequest``.
public typealias EGWPaymentAuthorizationRequest = PaymentAuthorizationRequest
/// ``PaymentAuthorizationRequestError``.
public typealias EGWPaymentAuthorizationRequestError = PaymentAuthorizationRequestError
/// ``PaymentAuthorizationStatus``.
public typealias EGWPaymentAuthorizationStatus = PaymentAuthorizationStatus
/// ``PaymentAuthorizationResult``.
public typealias EGWPaymentAuthorizationResult = PaymentAuthorizationResult
/// ``PaymentRequestUpdate``.
public typealias EGWPaymentRequestUpdate = PaymentRequestUpdate
/// ``PaymentRequestError``.
public typealias EGWPaymentRequestError = PaymentRequestError
/// ``PaymentSummaryItem``.
public typealias EGWPaymentSummaryItem = PaymentSummaryItem
/// ``ShippingMethod``.
public typealias EGWShippingMethod = ShippingMethod
/// ``MerchantCapabilities``.
public typealias EGWMerchantCapabilities = MerchantCapabilities
/// ``ContactField``.
public typealias EGWContactField = ContactField
/// ``ShippingType``.
public typealias EGWShippingType = ShippingType
/// ``Contact``.
public typealias EGWContact = Contact
/// ``Payment``.
public typealias EGWPayment = Payment
/// ``PaymentToken``.
public typealias EGWPaymentToken = PaymentToken
/// ``PaymentMethod``.
public typealias EGWPaymentMethod = PaymentMethod
/// ``SimulatedWallet``.
public typealias EGWSimulatedWallet = SimulatedWallet
/// ``WalletCard``.
public typealias EGWWalletCard = WalletCard
/// ``WalletSheetPresenter``.
public typealias EGWWalletSheetPresenter = WalletSheetPresenter
/// ``WalletSheetBuyer``.
public typealias EGWWalletSheetBuyer = WalletSheetBuyer
/// ``WalletSheet``.
public typealias EGWWalletSheet = WalletSheet
/// ``ScriptedWalletSheet``.
public typealias EGWScriptedWalletSheet = ScriptedWalletSheet
/// ``SheetBuyerAction``.
public typealias EGWSheetBuyerAction = SheetBuyerAction
/// ``SheetBuyerReply``.
public typealias EGWSheetBuyerReply = SheetBuyerReply
/// ``SheetRefusal``.
public typealias EGWSheetRefusal = SheetRefusal
/// ``SheetError``.
public typealias EGWSheetError = SheetError
/// ``SheetField``.
public typealias EGWSheetField = SheetField
/// ``SheetClock``.
public typealias EGWSheetClock = SheetClock
/// ``SheetReport``.
public typealias EGWSheetReport = SheetReport
/// ``SheetFinishReason``.
public typealias EGWSheetFinishReason = SheetFinishReason
/// ``WalletPaymentContext``.
public typealias EGWWalletPaymentContext = WalletPaymentContext
/// ``WalletPaymentMerchant``.
public typealias EGWWalletPaymentMerchant = WalletPaymentMerchant
/// ``SimulatedMerchant``.
public typealias EGWSimulatedMerchant = SimulatedMerchant
/// ``WalletPaymentAmount``.
public typealias EGWWalletPaymentAmount = WalletPaymentAmount
/// ``WalletPaymentResult``.
public typealias EGWWalletPaymentResult = WalletPaymentResult
/// ``WalletCardError``.
public typealias EGWWalletCardError = WalletCardError
/// ``CurrencyExponent``.
public typealias EGWCurrencyExponent = CurrencyExponent
/// ``SeedPaymentAuthorizationControllerDelegate``.
public typealias EGWSeedPaymentAuthorizationControllerDelegate = SeedPaymentAuthorizationControllerDelegate
/// ``MainActorPaymentAuthorizationControllerDelegate``.
public typealias EGWMainActorPaymentAuthorizationControllerDelegate = MainActorPaymentAuthorizationControllerDelegate
/// ``AuthorizedWalletPayment``.
public typealias EGWAuthorizedWalletPayment = AuthorizedWalletPayment
/// ``WalletPaymentError``.
public typealias EGWWalletPaymentError = WalletPaymentError
/// ``WalletContextReport``.
public typealias EGWWalletContextReport = WalletContextReport

extension CardBrand {
    /// Apple's spelling (`PKPaymentNetwork.masterCard`) of ``CardBrand/mastercard``, so a ported
    /// `supportedNetworks: [.visa, .masterCard]` compiles. (`.mastercard` is CardValidation's own case
    /// and stays as it is.)
    public static var masterCard: CardBrand { .mastercard }
}
