// An app imports one module: the outcome type and the headless card model
// (CardInput, CardBrand, CardField and the editors) come with PaymentFlow.
@_exported import CardValidation
@_exported import StatusMapping
