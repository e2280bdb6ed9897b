import EGWWire

/// The EMV 3-D Secure browser messages the sandbox exchanges, as base64url JSON
/// (EMV 3DS 2.2 `CReq` / `CRes`, the fields a browser-based challenge carries).
enum ThreeDSMessages {
    static let version = "2.2.0"

    /// `{"threeDSServerTransID": sessionId, "acsTransID", "challengeWindowSize": "05", "messageType": "CReq", "messageVersion"}`.
    static func creq(for session: CardSession) -> String {
        let object = JSONObjectBuilder([
            "threeDSServerTransID": .string(session.id), "acsTransID": .string(session.acsTransID),
            "challengeWindowSize": .string("05"), "messageType": .string("CReq"),
            "messageVersion": .string(version),
        ])
        return Base64URL.encode(object.value.jsonBytes)
    }

    /// `{"threeDSServerTransID", "acsTransID", "messageType": "CRes", "messageVersion", "transStatus"}`.
    static func cres(for session: CardSession, transStatus: String) -> String {
        let object = JSONObjectBuilder([
            "threeDSServerTransID": .string(session.id), "acsTransID": .string(session.acsTransID),
            "messageType": .string("CRes"), "messageVersion": .string(version), "transStatus": .string(transStatus),
        ])
        return Base64URL.encode(object.value.jsonBytes)
    }

    /// EMV's `threeDSMethodData`, as the 3DS Server gives it to the requestor: base64url JSON
    /// `{"threeDSServerTransID", "threeDSMethodNotificationURL"}`.
    static func methodData(for session: CardSession, _ checkoutBase: String) -> String {
        let object = JSONObjectBuilder([
            "threeDSServerTransID": .string(session.id),
            "threeDSMethodNotificationURL": .string("\(checkoutBase)/checkout/3ds/method-notification/\(session.id)"),
        ])
        return Base64URL.encode(object.value.jsonBytes)
    }

    /// The `threeDSServerTransID` of a `threeDSMethodData` field, and the notification URL when it names one.
    static func decodeMethodData(_ field: String) -> (transID: String, notificationURL: String?)? {
        guard field.utf8.count <= 4096, let bytes = Base64URL.decode(field),
            let object = try? StrictJSONParser.parse(bytes), case .object = object,
            let transID = object[member: "threeDSServerTransID"]?.stringValue
        else { return nil }
        return (transID, object[member: "threeDSMethodNotificationURL"]?.stringValue)
    }

    /// What the ACS posts back when its method ends: base64url `{"threeDSServerTransID"}` (EMV).
    static func methodCompletion(for session: CardSession) -> String {
        Base64URL.encode(JSONObjectBuilder(["threeDSServerTransID": .string(session.id)]).value.jsonBytes)
    }

    /// A decoded CReq or CRes: the members the sandbox checks.
    struct Message: Sendable, Equatable {
        var messageType: String
        var threeDSServerTransID: String
        var acsTransID: String
        var transStatus: String?
    }

    /// Decodes a `creq`/`cres` field; `nil` when it is not base64url JSON with the expected members.
    static func decode(_ field: String, expecting type: String) -> Message? {
        guard field.utf8.count <= 4096, let bytes = Base64URL.decode(field),
            let object = try? StrictJSONParser.parse(bytes), case .object = object,
            object[member: "messageType"]?.stringValue == type,
            let server = object[member: "threeDSServerTransID"]?.stringValue,
            let acs = object[member: "acsTransID"]?.stringValue
        else { return nil }
        return Message(
            messageType: type, threeDSServerTransID: server, acsTransID: acs,
            transStatus: object[member: "transStatus"]?.stringValue)
    }
}
