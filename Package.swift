// swift-tools-version:6.0
import PackageDescription

/// Swift 6 language mode everywhere; strict concurrency is the default in this mode. `MemberImportVisibility`: a
/// file sees the members (extensions) of a module only when it imports that module itself, so every dependency a
/// file uses is written down in it, and `scripts/checks/imports.py` keeps each target's dependencies equal to them.
let swiftSettings: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

/// One `systemLibrary` target per C library. Only one Swift wrapper module imports each.
func cLibrary(_ name: String, pkgConfig: String, apt: [String]) -> Target {
    .systemLibrary(name: name, path: "Shared/CLibs/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

func shared(_ name: String, _ deps: [Target.Dependency]) -> Target {
    .target(name: name, dependencies: deps, path: "Shared/\(name)", swiftSettings: swiftSettings)
}

/// A service's binary: `Services/<name>/`, minus the folders of the libraries that live beside it.
func service(_ name: String, _ deps: [Target.Dependency], libraries: [String] = []) -> Target {
    .executableTarget(
        name: name, dependencies: deps, path: "Services/\(name)", exclude: libraries, swiftSettings: swiftSettings)
}

/// A library only one service uses, beside its binary: `Services/<service>/<folder>/`.
func serviceLibrary(_ name: String, in service: String, folder: String, _ deps: [Target.Dependency]) -> Target {
    .target(name: name, dependencies: deps, path: "Services/\(service)/\(folder)", swiftSettings: swiftSettings)
}

func tests(_ name: String, _ deps: [Target.Dependency]) -> Target {
    .testTarget(name: name, dependencies: deps, path: "Tests/\(name)", swiftSettings: swiftSettings)
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
        shared("ServiceKit", ["HTTPServer", "HTTPClient", "Messaging", "Kafka", "Redis", "Runtime", "Contracts"]),
        shared("Finance", ["Contracts"]),
        shared("Jev", ["HTTPClient", "Runtime"]),
        shared("OpenRouter", ["HTTPClient", "Contracts", "Runtime"]),
        shared("Exa", ["HTTPClient", "Contracts", "Runtime"]),
        shared("MarketData", ["HTTPClient", "Contracts", "Runtime"]),
        serviceLibrary("OCR", in: "Identify", folder: "OCR", ["CTesseract", "Runtime"]),
        serviceLibrary("Charts", in: "Rating", folder: "Charts", ["CCairo", "Contracts"]),
        shared("Geo", []),
        shared(
            "Resolver", ["Finance", "Exa", "OpenRouter", "MarketData", "Redis", "Postgres", "Contracts", "Runtime"]),
        shared("Places", ["HTTPClient", "Redis", "Finance", "Geo", "Contracts", "Runtime"]),
        serviceLibrary(
            "NearbyDomain", in: "Nearby", folder: "Domain",
            ["Places", "Resolver", "Kafka", "Messaging", "Postgres", "Geo", "Contracts", "Runtime"]),
        shared("Headlines", ["Jev", "MarketData", "Redis", "Crypto", "Contracts", "Runtime"]),
        serviceLibrary(
            "RatingDomain", in: "Rating", folder: "Domain",
            ["Headlines", "Jev", "MarketData", "HTTPClient", "Redis", "Finance", "Contracts", "Runtime"]),
        serviceLibrary(
            "TickerPage", in: "Rating", folder: "TickerPage",
            ["Charts", "MarketData", "RatingDomain", "Redis", "Messaging", "Contracts", "Runtime"]),
        serviceLibrary(
            "SearchIntent", in: "Rating", folder: "SearchIntent", ["Jev", "Finance", "Redis", "Contracts", "Runtime"]),
        serviceLibrary(
            "ExpoPush", in: "PushDispatcher", folder: "ExpoPush", ["HTTPClient", "Redis", "Contracts", "Runtime"]),
        serviceLibrary("MCP", in: "Gateway", folder: "MCPServer", ["HTTPServer", "HTTPClient"]),
        serviceLibrary(
            "Scheduling", in: "Briefs", folder: "Scheduling",
            ["Messaging", "Kafka", "Postgres", "Contracts", "Runtime"]),
        serviceLibrary(
            "PushDomain", in: "PushDispatcher", folder: "Domain",
            ["ExpoPush", "Messaging", "Kafka", "Postgres", "Redis", "HTTPClient", "Crypto", "Contracts", "Runtime"]),

        // Services: one executable each.
        service(
            "Gateway",
            [
                "ServiceKit", "HTTPServer", "HTTPClient", "Messaging", "Redis", "Postgres", "Crypto", "Contracts",
                "Runtime", "MCP", "Finance", "Kafka",
            ], libraries: ["MCPServer"]),
        serviceLibrary("IdentifyDomain", in: "Identify", folder: "Domain", ["Finance", "Contracts", "Runtime"]),
        service(
            "Identify",
            [
                "ServiceKit", "Messaging", "Finance", "Resolver", "OCR", "Geo", "Crypto", "Jev", "OpenRouter", "Exa",
                "MarketData", "HTTPClient", "Redis", "Postgres", "Contracts", "Runtime", "Kafka", "IdentifyDomain",
            ], libraries: ["OCR", "Domain"]),
        service(
            "Nearby",
            [
                "ServiceKit", "Messaging", "NearbyDomain", "Places", "Resolver", "Exa", "OpenRouter", "MarketData",
                "Redis", "Postgres", "Contracts", "Runtime",
            ], libraries: ["Domain"]),
        service(
            "Rating",
            [
                "ServiceKit", "Messaging", "RatingDomain", "TickerPage", "Headlines", "SearchIntent", "Jev",
                "MarketData", "Redis", "Contracts", "Runtime",
            ], libraries: ["Domain", "TickerPage", "SearchIntent", "Charts"]),
        service(
            "Briefs",
            [
                "ServiceKit", "Messaging", "Scheduling", "Headlines", "Places", "Finance", "Geo", "Resolver", "Jev",
                "OpenRouter", "Exa", "MarketData", "Redis", "Postgres", "Kafka", "Contracts", "Runtime", "Crypto",
                "HTTPClient",
            ], libraries: ["Scheduling"]),
        service(
            "Research",
            [
                "ServiceKit", "Messaging", "OpenRouter", "HTTPClient", "Postgres", "Redis", "Crypto", "Contracts",
                "Runtime",
            ]),
        service(
            "PushDispatcher", ["ServiceKit", "PushDomain", "Messaging", "Contracts", "Runtime", "Kafka"],
            libraries: ["Domain", "ExpoPush"]),

        // Dev/test tooling.
        .executableTarget(
            name: "DevBroker", dependencies: ["KafkaMock", "Runtime"], path: "Tools/DevBroker",
            swiftSettings: swiftSettings),
        // librdkafka's mock cluster, for the dev broker only: no service links it.
        .target(
            name: "KafkaMock", dependencies: ["CRdKafka", "Runtime"], path: "Tools/KafkaMock",
            swiftSettings: swiftSettings),

        .executableTarget(
            name: "LoadGen", dependencies: ["CEventWait", "Runtime"], path: "Tools/LoadGen",
            swiftSettings: swiftSettings),
        // epoll with a nanosecond wait, which Swift's Glibc module does not declare.
        .target(name: "CEventWait", path: "Tools/CEventWait"),

        .executableTarget(
            name: "PushBench",
            dependencies: ["PushDomain", "TestSupport", "Postgres", "Contracts", "Runtime", "HTTPServer"],
            path: "Tools/PushBench", swiftSettings: swiftSettings),

        .executableTarget(
            name: "BenchCharts", dependencies: ["Charts", "Contracts"], path: "Tools/BenchCharts",
            swiftSettings: swiftSettings),

        .executableTarget(
            name: "BenchNearbyRating", dependencies: ["TestSupport", "HTTPClient", "HTTPServer", "Runtime"],
            path: "Tools/BenchNearbyRating", swiftSettings: swiftSettings),

        .executableTarget(
            name: "BenchBriefs",
            dependencies: ["TestSupport", "Kafka", "Postgres", "HTTPServer", "Contracts", "Runtime"],
            path: "Tools/BenchBriefs", swiftSettings: swiftSettings),

        // Tests.
        .target(
            name: "TestSupport", dependencies: ["HTTPServer", "HTTPClient", "Runtime"], path: "Tests/TestSupport",
            swiftSettings: swiftSettings),
        tests("RuntimeTests", ["Runtime"]),
        tests("ContractsTests", ["Contracts"]),
        tests("CryptoTests", ["Crypto"]),
        tests("KafkaTests", ["Kafka", "CRdKafka", "Messaging", "Contracts", "Runtime", "TestSupport"]),
        tests("PostgresTests", ["Postgres", "Runtime", "TestSupport"]),
        tests("RedisTests", ["Redis", "Crypto", "Runtime", "TestSupport"]),
        tests("HTTPTests", ["HTTPServer", "HTTPClient", "Runtime", "TestSupport"]),
        tests("FinanceTests", ["Finance", "Contracts"]),
        tests(
            "UpstreamTests",
            [
                "Jev", "OpenRouter", "Exa", "MarketData", "HTTPClient", "Contracts", "Runtime", "HTTPServer",
                "TestSupport",
            ]),
        tests("OCRTests", ["OCR", "Runtime", "TestSupport"]),
        tests("ChartsTests", ["Charts", "Contracts"]),
        tests("GeoTests", ["Geo"]),
        tests("IdentifyTests", ["IdentifyDomain", "Finance", "Contracts"]),
        tests(
            "NearbyTests",
            [
                "NearbyDomain", "Messaging", "Places", "Resolver", "Exa", "OpenRouter", "MarketData", "Kafka", "Redis",
                "Postgres", "Geo", "HTTPServer", "Contracts", "Runtime", "TestSupport",
            ]),
        tests(
            "RatingTests",
            [
                "TickerPage", "Charts", "Messaging", "RatingDomain", "Headlines", "SearchIntent", "Jev", "MarketData",
                "Redis", "HTTPServer", "Contracts", "Runtime", "TestSupport",
            ]),
        tests(
            "PushTests",
            [
                "PushDomain", "ExpoPush", "Messaging", "Kafka", "Postgres", "Redis", "HTTPServer", "HTTPClient",
                "Crypto", "Contracts", "Runtime", "TestSupport",
            ]),
        tests("MCPTests", ["MCP", "HTTPServer", "HTTPClient", "TestSupport", "Runtime"]),
        tests("BriefsTests", ["Briefs", "Scheduling", "Contracts"]),
        tests(
            "SchedulingTests", ["Scheduling", "Messaging", "Kafka", "Postgres", "Contracts", "Runtime", "TestSupport"]),
        tests(
            "SystemTests",
            [
                "HTTPClient", "HTTPServer", "Kafka", "Messaging", "Postgres", "Redis", "Scheduling", "Crypto",
                "Finance", "Contracts", "Runtime", "TestSupport",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
