/// One App Store Server Notification V2 as Apple's `responseBodyV2DecodedPayload` gives it
/// (https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload),
/// with the transaction of its `data.signedTransactionInfo` decoded.
///
/// A reconciliation reads three types: `REFUND` (Apple refunded the purchase: its
/// transaction carries `revocationDate`), `REFUND_REVERSED` (the refund was undone) and
/// `CONSUMPTION_REQUEST` (the customer asked for a refund that Apple has not yet decided).
/// Every other type is read and counted, and changes nothing.
struct AppleNotification: Sendable, Hashable {
    let notificationType: String
    let subtype: String?
    let notificationUUID: String?
    let signedDate: Timestamp?
    let transaction: AppleTransaction?
    let place: ApplePlace

    static let read: Set<String> = ["REFUND", "REFUND_REVERSED", "CONSUMPTION_REQUEST"]
}

extension AppleNotification {
    /// Reads a decoded notification; its transaction may be a JWS string (as Apple sends
    /// it) or an object already decoded.
    static func read(_ object: AppleJSONObject, problems: inout AppleProblems) -> AppleNotification?
    {
        var o = object
        let type = o.string("notificationType", required: true, &problems)
        let subtype = o.string("subtype", required: false, &problems)
        let uuid = o.string("notificationUUID", required: false, &problems)
        let signed = o.milliseconds("signedDate", required: false, &problems)
        var transaction: AppleTransaction?
        if let data = o.node("data"), data.value != .null {
            guard
                let d = AppleJSONObject(data, place: o.place, context: o.context, locate: o.locate)
            else {
                o.fail("data", "data: expected an object, found \(data.value.kindName)", &problems)
                return nil
            }
            var dataObject = d
            if let info = dataObject.node("signedTransactionInfo"), info.value != .null {
                let at = o.locate(info.location)
                let place = ApplePlace(path: o.place.path, line: at.line, column: at.column)
                switch info.value {
                case .string(let jws):
                    transaction = AppleTransactionReader.transaction(
                        jws: jws, place: place, problems: &problems)
                case .object:
                    if let t = AppleJSONObject(
                        info, place: place, context: o.context, locate: o.locate)
                    {
                        transaction = AppleTransaction.read(t, problems: &problems)
                    }
                default:
                    dataObject.fail(
                        "signedTransactionInfo",
                        "data.signedTransactionInfo: expected a JWS string, found \(info.value.kindName)",
                        &problems)
                }
            }
        }
        guard o.ok, let type else { return nil }
        if AppleNotification.read.contains(type), transaction == nil {
            o.fail(
                "data", "\(type): a notification of this type carries data.signedTransactionInfo",
                &problems)
            return nil
        }
        return AppleNotification(
            notificationType: type, subtype: subtype, notificationUUID: uuid, signedDate: signed,
            transaction: transaction, place: o.place)
    }
}
