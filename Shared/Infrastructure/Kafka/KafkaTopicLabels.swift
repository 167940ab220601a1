import Synchronization

/// The topic (and group) names metrics carry as labels. Names made per instance (one reply topic per gateway) would
/// make one series each, so the application registers such a family once at start and its members share the
/// family's label; this module knows no application topic names.
public enum KafkaTopicLabels {
    private static let families = Mutex<[(prefix: String, label: String)]>([])

    /// Names starting with `prefix` are labelled `label`. Register before the first message: counters keep the
    /// label they were created with.
    public static func collapse(prefix: String, into label: String) {
        families.withLock { families in
            if !families.contains(where: { $0.prefix == prefix }) { families.append((prefix, label)) }
        }
    }

    /// The label for `name`: its family's, else the name itself.
    public static func label(_ name: String) -> String {
        families.withLock { families in families.first { name.hasPrefix($0.prefix) }?.label } ?? name
    }
}
