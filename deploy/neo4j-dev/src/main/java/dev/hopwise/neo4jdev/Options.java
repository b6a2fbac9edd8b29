package dev.hopwise.neo4jdev;

import java.nio.file.Path;
import java.util.Map;

/**
 * The launcher's settings: command-line flags win over environment variables, which win over defaults.
 *
 * <pre>
 *   --port N         NEO4J_DEV_PORT       Bolt port (default 7687)
 *   --host H         NEO4J_DEV_HOST       Bolt listen host (default 127.0.0.1)
 *   --home DIR       NEO4J_DEV_HOME       Neo4j home: logs/ and, by default, data/ (default ./run)
 *   --data DIR       NEO4J_DEV_DATA       data directory (default HOME/data)
 *   --page-cache MB  NEO4J_DEV_PAGECACHE  page cache in MiB (default 256)
 * </pre>
 */
record Options(String host, int port, Path home, Path data, long pageCacheMiB) {

    static final String USAGE = "usage: neo4j-dev [--port N] [--host H] [--home DIR] [--data DIR] [--page-cache MiB]";

    static Options parse(String[] args, Map<String, String> env) {
        String host = env.getOrDefault("NEO4J_DEV_HOST", "127.0.0.1");
        String port = env.getOrDefault("NEO4J_DEV_PORT", "7687");
        String home = env.getOrDefault("NEO4J_DEV_HOME", "run");
        String data = env.get("NEO4J_DEV_DATA");
        String pageCache = env.getOrDefault("NEO4J_DEV_PAGECACHE", "256");

        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (flag.equals("-h") || flag.equals("--help")) {
                throw new IllegalArgumentException(USAGE);
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value for " + flag + "\n" + USAGE);
            }
            String value = args[++i];
            switch (flag) {
                case "--port" -> port = value;
                case "--host" -> host = value;
                case "--home" -> home = value;
                case "--data" -> data = value;
                case "--page-cache" -> pageCache = value;
                default -> throw new IllegalArgumentException("unknown flag " + flag + "\n" + USAGE);
            }
        }

        Path homeDir = Path.of(home).toAbsolutePath().normalize();
        Path dataDir = data == null || data.isBlank() ? homeDir.resolve("data") : Path.of(data).toAbsolutePath().normalize();
        return new Options(host, number("port", port, 1, 65535), homeDir, dataDir, number("page cache", pageCache, 8, 1 << 20));
    }

    String boltUri() {
        return "bolt://" + host + ":" + port;
    }

    private static int number(String name, String value, int min, int max) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n < min || n > max) {
                throw new IllegalArgumentException(name + " " + n + " is outside " + min + ".." + max);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " is not a number: " + value, e);
        }
    }
}
