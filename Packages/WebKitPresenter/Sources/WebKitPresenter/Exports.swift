// GLibMainQueue's `GObjectReference` is how an app hands its window or box to a presenter
// (`.window(over:)`, `.container(_:)`): importing WebKitPresenter brings it.
@_exported public import GLibMainQueue
