// GLibMainQueue's `GObjectReference` is how the entries hand out their widgets (`widgetReference`):
// importing CardFields brings it.
@_exported public import GLibMainQueue
