/// Standard base32 geohash (`0123456789bcdefghjkmnpqrstuvwxyz`). Precision 6 is a ~1.2 km × 0.6 km tile.
public enum Geohash {
    private static let alphabet = Array("0123456789bcdefghjkmnpqrstuvwxyz")

    /// The geohash of a point, or nil for coordinates that are not finite or out of range.
    public static func encode(lat: Double, lng: Double, precision: Int = 6) -> String? {
        guard lat.isFinite, lng.isFinite, (-90...90).contains(lat), (-180...180).contains(lng), precision > 0 else {
            return nil
        }
        var latRange = (-90.0, 90.0)
        var lngRange = (-180.0, 180.0)
        var out = ""
        var bits = 0
        var value = 0
        var even = true
        while out.count < precision {
            if even {
                let mid = (lngRange.0 + lngRange.1) / 2
                if lng >= mid {
                    value = value << 1 | 1
                    lngRange.0 = mid
                } else {
                    value <<= 1
                    lngRange.1 = mid
                }
            } else {
                let mid = (latRange.0 + latRange.1) / 2
                if lat >= mid {
                    value = value << 1 | 1
                    latRange.0 = mid
                } else {
                    value <<= 1
                    latRange.1 = mid
                }
            }
            even.toggle()
            bits += 1
            if bits == 5 {
                out.append(alphabet[value])
                bits = 0
                value = 0
            }
        }
        return out
    }

    /// The centre of a geohash's cell, or nil when it holds a character outside the alphabet.
    public static func center(_ hash: String) -> (lat: Double, lng: Double)? {
        var latRange = (-90.0, 90.0)
        var lngRange = (-180.0, 180.0)
        var even = true
        for ch in hash.lowercased() {
            guard let value = alphabet.firstIndex(of: ch) else { return nil }
            for bit in (0..<5).reversed() {
                let on = value >> bit & 1 == 1
                if even {
                    let mid = (lngRange.0 + lngRange.1) / 2
                    if on { lngRange.0 = mid } else { lngRange.1 = mid }
                } else {
                    let mid = (latRange.0 + latRange.1) / 2
                    if on { latRange.0 = mid } else { latRange.1 = mid }
                }
                even.toggle()
            }
        }
        guard !hash.isEmpty else { return nil }
        return ((latRange.0 + latRange.1) / 2, (lngRange.0 + lngRange.1) / 2)
    }
}

/// Great-circle distance in metres.
public func haversineMetres(lat1: Double, lng1: Double, lat2: Double, lng2: Double) -> Double {
    let r = 6_371_000.0
    let toRad = Double.pi / 180
    let dLat = (lat2 - lat1) * toRad
    let dLng = (lng2 - lng1) * toRad
    let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * toRad) * cos(lat2 * toRad) * sin(dLng / 2) * sin(dLng / 2)
    return 2 * r * atan2(a.squareRoot(), (1 - a).squareRoot())
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
