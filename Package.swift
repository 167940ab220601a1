// swift-tools-version:6.0
import PackageDescription

/// Swift 6 language mode everywhere; strict concurrency is the default in this mode.
let swiftSettings: [SwiftSetting] = []

/// One `systemLibrary` target per C library. Only one Swift wrapper module imports each.
func cLibrary(_ name: String, pkgConfig: String, apt: [String]) -> Target {
    .systemLibrary(name: name, path: "Shared/CLibs/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

func shared(_ name: String, _ deps: [Target.Dependency]) -> Target {
    .target(name: name, dependencies: deps, path: "Shared/\(name)", swiftSettings: swiftSettings)
}

func service(_ name: String, _ deps: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: deps, path: "Services/\(name)", swiftSettings: swiftSettings)
}

func tests(_ name: String, _ deps: [Target.Dependency]) -> Target {
    .testTarget(name: name, dependencies: deps + ["TestSupport"], path: "Tests/\(name)", swiftSettings: swiftSettings)
}

let package = Package(
    name: "Mapvest",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "Gateway", targets: ["Gateway"]),
        .executable(name: "Identify", targets: ["Identify"]),
        .executable(name: "Research", targets: ["Research"]),
        .executable(name: "Nearby", targets: ["Nearby"]),
        .executable(name: "Rating", targets: ["Rating"]),
        .executable(name: "Briefs", targets: ["Briefs"]),
        .executable(name: "PushDispatcher", targets: ["PushDispatcher"]),
        .executable(name: "DevBroker", targets: ["DevBroker"]),
        .executable(name: "LoadGen", targets: ["LoadGen"]),
        .executable(name: "BenchNearbyRating", targets: ["BenchNearbyRating"]),
        .executable(name: "PushBench", targets: ["PushBench"]),
        .executable(name: "BenchCharts", targets: ["BenchCharts"]),
        .executable(name: "BenchBriefs", targets: ["BenchBriefs"]),
    ],
    targets: [
        // C libraries from Debian.
        cLibrary("CRdKafka", pkgConfig: "rdkafka", apt: ["librdkafka-dev"]),
        cLibrary("CLibPQ", pkgConfig: "libpq", apt: ["libpq-dev"]),
        cLibrary("CCurl", pkgConfig: "libcurl", apt: ["libcurl4-openssl-dev"]),
        cLibrary("CHiredis", pkgConfig: "hiredis", apt: ["libhiredis-dev"]),
        cLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: ["libmicrohttpd-dev"]),
        cLibrary("CCrypto", pkgConfig: "libcrypto", apt: ["libssl-dev"]),
        cLibrary("CTesseract", pkgConfig: "tesseract", apt: ["libtesseract-dev", "tesseract-ocr-eng"]),
        cLibrary("CCairo", pkgConfig: "cairo", apt: ["libcairo2-dev", "fonts-dejavu-core"]),

        // Shared modules.
        shared("Runtime", []),
        shared("Contracts", []),
        shared("Crypto", ["CCrypto"]),
        shared("Kafka", ["CRdKafka", "Runtime"]),
        shared("Messaging", ["Kafka", "Contracts", "Runtime"]),
        shared("Postgres", ["CLibPQ", "Runtime"]),
        shared("Redis", ["CHiredis", "Crypto", "Runtime"]),
        shared("HTTPServer", ["CMicroHTTPD", "Runtime"]),
        shared("HTTPClient", ["CCurl", "Runtime"]),
        shared("ServiceKit", ["HTTPServer", "Messaging", "Kafka", "Postgres", "Redis", "Runtime", "Contracts"]),
        shared("Finance", ["Contracts", "Runtime"]),
        shared("Jev", ["HTTPClient", "Runtime"]),
        shared("OpenRouter", ["HTTPClient", "Contracts", "Runtime"]),
        shared("Exa", ["HTTPClient", "Contracts", "Runtime"]),
        shared("MarketData", ["HTTPClient", "Contracts", "Runtime"]),
        shared("OCR", ["CTesseract", "Runtime"]),
        shared("Charts", ["CCairo", "Contracts"]),
        shared("Geo", []),
        shared("Resolver", ["Finance", "Exa", "OpenRouter", "MarketData", "Redis", "Postgres", "Contracts", "Runtime"]),
        shared("Places", ["HTTPClient", "Redis", "Finance", "Geo", "Contracts", "Runtime"]),
        shared("NearbyCore", ["Places", "Resolver", "Kafka", "Postgres", "Redis", "Geo", "Contracts", "Runtime"]),
        shared("Headlines", ["Jev", "MarketData", "Redis", "Crypto", "Contracts", "Runtime"]),
        shared("RatingEngine", ["Headlines", "Jev", "MarketData", "HTTPClient", "Redis", "Finance", "Contracts", "Runtime"]),
        shared("TickerPage", ["Charts", "MarketData", "RatingEngine", "Redis", "Messaging", "Contracts", "Runtime"]),
        shared("SearchIntent", ["Jev", "Finance", "Redis", "Contracts", "Runtime"]),
        shared("ExpoPush", ["HTTPClient", "Redis", "Contracts", "Runtime"]),
        shared("MCP", ["HTTPServer", "HTTPClient"]),
        shared("Scheduling", ["Messaging", "Kafka", "Postgres", "Contracts", "Runtime"]),
        shared("PushCore", ["ExpoPush", "Messaging", "Kafka", "Postgres", "Redis", "HTTPClient", "Crypto", "Contracts", "Runtime"]),

        // Services: one executable each.
        service("Gateway", ["ServiceKit", "HTTPServer", "HTTPClient", "Messaging", "Redis", "Postgres", "Crypto", "Contracts", "Runtime", "MCP", "Finance"]),
        service("Identify", ["ServiceKit", "Messaging", "Finance", "Resolver", "OCR", "Geo", "Crypto", "Jev", "OpenRouter", "Exa", "MarketData", "HTTPClient", "Redis", "Postgres", "Contracts", "Runtime"]),
        service("Nearby", ["ServiceKit", "Messaging", "NearbyCore", "Places", "Resolver", "Exa", "OpenRouter", "MarketData", "Redis", "Postgres", "Contracts", "Runtime"]),
        service("Rating", ["ServiceKit", "Messaging", "RatingEngine", "TickerPage", "Headlines", "SearchIntent", "Jev", "MarketData", "Redis", "Contracts", "Runtime"]),
        service("Briefs", ["ServiceKit", "Messaging", "Scheduling", "Headlines", "Places", "NearbyCore", "Finance", "Geo", "Resolver", "Jev", "OpenRouter", "Exa", "MarketData", "Redis", "Postgres", "Kafka", "Contracts", "Runtime"]),
        service("Research", ["ServiceKit", "Messaging", "OpenRouter", "HTTPClient", "Postgres", "Redis", "Crypto", "Contracts", "Runtime"]),
        service("PushDispatcher", ["ServiceKit", "PushCore", "Messaging", "Contracts", "Runtime"]),

        // Dev/test tooling.
        .executableTarget(name: "DevBroker", dependencies: ["Kafka", "Runtime"], path: "Tools/DevBroker",
                          swiftSettings: swiftSettings),

        .executableTarget(name: "LoadGen", dependencies: ["HTTPClient", "Runtime"], path: "Tools/LoadGen",
                          swiftSettings: swiftSettings),

        .executableTarget(name: "PushBench", dependencies: ["PushCore", "ExpoPush", "TestSupport", "Postgres", "Contracts", "Runtime"],
                          path: "Tools/PushBench", swiftSettings: swiftSettings),

        .executableTarget(name: "BenchCharts", dependencies: ["Charts", "Contracts"], path: "Tools/BenchCharts",
                          swiftSettings: swiftSettings),

        .executableTarget(name: "BenchNearbyRating", dependencies: ["TestSupport", "HTTPClient", "HTTPServer", "Runtime"],
                          path: "Tools/BenchNearbyRating", swiftSettings: swiftSettings),

        .executableTarget(name: "BenchBriefs", dependencies: ["TestSupport", "Kafka", "Postgres", "HTTPServer", "Contracts", "Runtime"],
                          path: "Tools/BenchBriefs", swiftSettings: swiftSettings),

        // Tests.
        .target(name: "TestSupport", dependencies: ["HTTPServer", "HTTPClient", "Runtime"], path: "Tests/TestSupport",
                swiftSettings: swiftSettings),
        tests("RuntimeTests", ["Runtime"]),
        tests("ContractsTests", ["Contracts"]),
        tests("CryptoTests", ["Crypto"]),
        tests("KafkaTests", ["Kafka", "Messaging", "Contracts", "Runtime"]),
        tests("PostgresTests", ["Postgres", "Runtime"]),
        tests("RedisTests", ["Redis", "Crypto", "Runtime"]),
        tests("HTTPTests", ["HTTPServer", "HTTPClient", "Runtime"]),
        tests("FinanceTests", ["Finance", "Contracts"]),
        tests("UpstreamTests", ["Jev", "OpenRouter", "Exa", "MarketData", "HTTPClient", "Contracts", "Runtime"]),
        tests("OCRTests", ["OCR"]),
        tests("ChartsTests", ["Charts", "Contracts"]),
        tests("GeoTests", ["Geo"]),
        tests("NearbyTests", ["NearbyCore", "Places", "Resolver", "Exa", "OpenRouter", "MarketData", "Kafka", "Redis", "Postgres", "Geo", "HTTPServer", "Contracts", "Runtime"]),
        tests("RatingTests", ["TickerPage", "Charts", "Messaging", "RatingEngine", "Headlines", "SearchIntent", "Jev", "MarketData", "Finance", "Redis", "HTTPServer", "Contracts", "Runtime"]),
        tests("PushTests", ["PushCore", "ExpoPush", "Messaging", "Kafka", "Postgres", "Redis", "HTTPServer", "HTTPClient", "Crypto", "Contracts", "Runtime"]),
        tests("MCPTests", ["MCP", "HTTPServer", "HTTPClient", "Runtime"]),
        tests("BriefsTests", ["Briefs", "Scheduling", "Contracts"]),
        tests("SchedulingTests", ["Scheduling", "Messaging", "Kafka", "Postgres", "Contracts", "Runtime"]),
        tests("SystemTests", ["HTTPClient", "HTTPServer", "Kafka", "Messaging", "Postgres", "Redis", "Scheduling", "Crypto", "Finance", "Contracts", "Runtime"]),
    ],
    swiftLanguageModes: [.v6]
)
