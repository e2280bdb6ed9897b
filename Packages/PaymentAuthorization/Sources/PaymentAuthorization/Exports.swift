// One import for an app: PaymentFlow (PaymentKit, CardInput, CardBrand, PaymentOutcome) comes with it.
@_exported import PaymentFlow
