// `GLibMainQueue` moved to its own package, the bridge WebKitPresenter shares; importing
// PaymentSheetWindow still brings it, so an app calling `GLibMainQueue.install()` compiles unchanged.
@_exported import GLibMainQueue
