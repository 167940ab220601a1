import ServiceKit

/// The PushDispatcher: owns the push tables and hands notifications to Expo. Until its delivery path lands it serves
/// health and metrics only and does not consume `mapvest.push.requests.v1`, so requests wait in Kafka instead of
/// being acknowledged and lost.
await ServiceMain.run(name: "PushDispatcher", defaultAdminPort: 9105) { _ in [] }
